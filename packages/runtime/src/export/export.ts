import { aRole, atLeast, cleanString, COMPILER_VERSION, ExportWriter, LoggedEpisode as LoggedEpisodeSchema, ForbiddenError, NotFoundError, EXPORT_FORMAT, EXPORT_VERSION, parseInput, type ExportSelection } from '@canon/core';
import { erasedKeysPage, listEpisodes, openReadSnapshot, subjectLogStates, subjectsOfWorkspace, type LoggedEpisode, type Pool } from '@canon/store';
import { z } from 'zod';
import { compileSubject } from '../compile/compile.js';
import { loadPolicySet } from '../writes/policies.js';
import type { Principal } from '../auth/principal.js';
import { enterWorkspace, withWorkspace } from '../auth/scope.js';

/** Rows read per query: the log is paged by (tx_id, position), never held whole. */
const PAGE = 1000;

export const ExportParams = z
  .object({
    subject: cleanString(z.string().min(1).max(512)).optional(),
    all: z.boolean().optional(),
  })
  .refine((p) => !(p.subject !== undefined && p.all === true), { message: 'give a subject or all, not both' });
export type ExportParams = z.input<typeof ExportParams>;

export interface OpenedExport {
  /** Episodes the export will write (for a progress bar). */
  episodes: number;
  /** The lines, in order; the snapshot they read is released when they end or are abandoned. */
  lines: AsyncGenerator<string, void, undefined>;
}

const RESOLVER_NOTE =
  'the workspace states a resolver in its policies; it is not exported: it names an API key of this workspace, which does not exist in another Canon (state one there with PUT /v1/policies)';

/**
 * Opens an export of a workspace's log (owners and maintainers): its workspace episodes and the
 * key's user's personal ones — another user's personal episodes are visible to that user only
 * (design §7), in an export as anywhere. The selected subjects are compiled first, so
 * the manifest's state hashes are of the log exported; then one read-only snapshot reads the
 * header, the policies, the tombstones, the episodes in commit order and the manifest, a page at
 * a time. Refusals (role, an unknown subject) come before the first line.
 */
export async function openExport(pool: Pool, principal: Principal, raw: ExportParams, options: { chunkSize?: number } = {}): Promise<OpenedExport> {
  if (!atLeast(principal.role, 'maintainer')) throw new ForbiddenError(`only an owner or a maintainer may export, not ${aRole(principal.role)}`);
  const params = parseInput(ExportParams, raw, 'query');
  const selection: ExportSelection = params.subject !== undefined ? { subject: params.subject } : { all: true };
  const ws = principal.workspace_id;

  const subjects = await withWorkspace(pool, principal, (tx) => subjectsOfWorkspace(tx, ws));
  const chosen = 'subject' in selection ? subjects.filter((s) => s === selection.subject) : subjects;
  if ('subject' in selection && chosen.length === 0) throw new NotFoundError(`no subject ${JSON.stringify(selection.subject)} in this workspace`);
  for (const subject of chosen) await compileSubject(pool, ws, subject, options.chunkSize ? { chunkSize: options.chunkSize } : {});

  const only = 'subject' in selection ? { only: [selection.subject] } : {};
  // A count for progress only: the lines read their own snapshot, opened when the first is asked for.
  const states = await withWorkspace(pool, principal, (tx) => subjectLogStates(tx, ws, only));
  return { episodes: states.reduce((n, s) => n + s.episodes, 0), lines: exportLines(pool, principal, selection) };
}

/** The lines, from one read-only snapshot taken when the first is asked for (an export never read holds no connection). */
async function* exportLines(pool: Pool, principal: Principal, selection: ExportSelection): AsyncGenerator<string, void, undefined> {
  const ws = principal.workspace_id;
  const snapshot = await openReadSnapshot(pool);
  const tx = snapshot.tx;
  try {
    // What the key may see (design §7): workspace episodes and its user's personal ones.
    await enterWorkspace(tx, principal);
    const states = await subjectLogStates(tx, ws, 'subject' in selection ? { only: [selection.subject] } : {});
    const writer = new ExportWriter();
    const policies = await loadPolicySet(tx, ws);
    const { resolver, ...own } = policies.own ?? {};
    const notes = resolver ? [RESOLVER_NOTE] : [];
    yield writer.line({
      type: 'header',
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      workspace: ws,
      compiler_version: COMPILER_VERSION,
      exported_at: new Date().toISOString(),
      selection,
      ...(notes.length > 0 ? { notes } : {}),
    });
    if (policies.own !== null) yield writer.line({ type: 'policies', policies: own, ...(resolver ? { omitted: ['resolver'] } : {}) });

    // Tombstones are content-free and name no subject: every one travels, whatever the selection.
    for (let after: string | null = null; ; ) {
      const page = await erasedKeysPage(tx, ws, after, PAGE);
      for (const t of page) yield writer.line({ type: 'tombstone', key_hash: t.key_hash, erasure_id: t.erasure_id });
      if (page.length < PAGE) break;
      after = page.at(-1)!.key_hash;
    }

    const subject = 'subject' in selection ? selection.subject : undefined;
    for (let after: string | undefined; ; ) {
      // Within the snapshot nothing is in flight: settled: false reads exactly what it holds.
      const page = await listEpisodes(tx, { workspaceId: ws, subject, after, limit: PAGE, settled: false });
      if (!page.ok) throw new Error('the export cursor was refused');
      for (const e of page.episodes) yield writer.line(episodeRecord(e));
      if (page.next === null) break;
      after = page.next;
    }

    yield writer.manifest({
      compiler_version: COMPILER_VERSION,
      policy_fingerprint: policies.fingerprint,
      subjects: states.map((s) => ({
        subject: s.subject,
        episodes: s.episodes,
        state_hash: s.state_hash,
        compiler_version: s.compiler_version,
        policy_fingerprint: s.policy_fingerprint,
        pending: s.pending,
      })),
    });
    await snapshot.end();
  } finally {
    await snapshot.release();
  }
}

/** The fields of the logged episode an export line carries: the schema's, so the two cannot drift apart. */
const LOGGED_FIELDS = Object.keys(LoggedEpisodeSchema.shape) as Array<keyof typeof LoggedEpisodeSchema.shape>;

/** An episode as an export line: what its source posted and what the log recorded beside it. */
function episodeRecord(e: LoggedEpisode): Record<string, unknown> & { type: 'episode' } {
  const record: Record<string, unknown> & { type: 'episode' } = { type: 'episode', log_position: e.log_position };
  for (const field of LOGGED_FIELDS) record[field] = e[field];
  record['actor_key'] = e.actor_key ?? null;
  return record;
}
