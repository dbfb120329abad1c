import {
  aRole,
  canonicalJson,
  CanonError,
  COMPILER_VERSION,
  ExportInvalidError,
  ExportReader,
  ForbiddenError,
  KeyConflictError,
  LIMITS,
  PoliciesDifferError,
  ValidationError,
  WorkspaceMismatchError,
  type ExportEpisode,
  type ExportHeader,
  type ExportManifest,
} from '@canon/core';
import { insertTombstones, subjectLogStates, type Pool, type PoolClient } from '@canon/store';
import { compileSubject } from '../compile/compile.js';
import { appendBatch, markedBySubject, prepareImportBatch, type ImportedItem } from '../ingest/ingest.js';
import { loadPolicySet, savePolicySet, WorkspacePolicies } from '../writes/policies.js';
import type { Principal } from '../auth/principal.js';
import { allUsersOf, withWorkspace, withWorkspaceWriting } from '../auth/scope.js';

export interface ImportOptions {
  /**
   * The target states policies of its own that differ from the export's: import anyway, under
   * the target's (the subjects they touch will not match the manifest). Without it such an
   * import is refused before anything is written.
   */
  keepPolicies?: boolean;
  /** Called after each batch is stored. */
  onProgress?: (progress: { line: number; episodes: number }) => void;
  /** Queue the compile of what a batch created, in its transaction (a server's job queue): how many episodes of each subject it marked. */
  enqueue?: (tx: PoolClient, marked: ReadonlyMap<string, number>) => Promise<void>;
  chunkSize?: number;
}

export interface ImportedSubject {
  subject: string;
  /** The manifest's state_hash (null: never compiled where it was exported). */
  expected: string | null;
  state_hash: string;
  ok: boolean;
  /** Why it differs, when it does. */
  reason?: string;
}

export interface ImportResult {
  /** The workspace exported, and the one imported into. */
  from_workspace: string;
  workspace: string;
  lines: number;
  episodes: number;
  created: number;
  duplicates: number;
  /** Episodes whose key is erased here: not written (erased stays erased). */
  erased: number;
  /** Episodes refused for holding a secret under this workspace's `secrets: "refuse"`. */
  refused: number;
  /** Episodes written with a secret redacted that the export held as it was (its Canon's rules missed it). */
  redacted: number;
  tombstones: { read: number; added: number };
  /** `applied`: the export's became this workspace's; `same`; `kept`: this workspace's differ and were kept; `none`: neither states any. */
  policies: 'applied' | 'same' | 'kept' | 'none';
  subjects: ImportedSubject[];
  /** Every subject's state_hash equals the manifest's. */
  ok: boolean;
}

/** Episodes per transaction. */
const BATCH = LIMITS.batchSize;

/**
 * Imports an export (owners only) through the ingest path: each batch of up to 1,000 episodes is
 * validated, redacted and appended in one transaction with its pending markers, keeping the
 * actor and times its log recorded. Duplicates stay duplicates; a key this workspace holds with
 * other content refuses the batch, naming the line; keys erased here answer `erased`; the
 * export's tombstones are added first, so what was erased there stays erased here. A line that
 * fails its hash refuses its batch before it is written, and the last batch waits for the
 * manifest, so a truncated stream leaves no half of it. Ends by compiling every subject of the
 * manifest and comparing its state_hash.
 */
export async function importLog(pool: Pool, principal: Principal, input: AsyncIterable<string>, options: ImportOptions = {}): Promise<ImportResult> {
  if (principal.role !== 'owner') throw new ForbiddenError(`only an owner may import, not ${aRole(principal.role)}`);
  const ws = principal.workspace_id;
  const reader = new ExportReader();
  let header: ExportHeader | null = null;
  let exported: Record<string, unknown> | null = null;
  let started = false;
  let manifest: ExportManifest | null = null;
  let policies: ImportResult['policies'] = 'none';
  const totals = { episodes: 0, created: 0, duplicates: 0, erased: 0, refused: 0, redacted: 0 };
  const tombstones = { read: 0, added: 0 };
  const notWritten = new Map<string, number>();
  const redactedIn = new Map<string, number>();
  const count = (map: Map<string, number>, subject: string) => map.set(subject, (map.get(subject) ?? 0) + 1);
  let tombstoneBatch: Array<{ key_hash: string; erasure_id: string }> = [];
  let batch: Array<{ line: number; item: ImportedItem; subject: string }> = [];

  /** Before the first tombstone, episode or manifest: the checks that must pass before anything is written. */
  async function start(firstKind: string): Promise<void> {
    started = true;
    if (header === null) throw new ExportInvalidError(reader.line, 'no header');
    if (firstKind === 'tombstone' && header.workspace !== ws) {
      throw new WorkspaceMismatchError(
        `the export's erasure tombstones are bound to workspace ${JSON.stringify(header.workspace)} and cannot be checked in ${JSON.stringify(ws)}: import it with a key of workspace ${JSON.stringify(header.workspace)} (\`canon keys create --workspace ${header.workspace} --role owner\`): an export keeps its erasures, and they hold only where they were made`,
        { from_workspace: header.workspace, workspace: ws },
      );
    }
    policies = await settlePolicies(pool, principal, exported, options.keepPolicies === true);
  }

  /** The export's policies are saved with the first write, so a refusal before it leaves none behind. */
  let policiesSaved = false;
  async function beforeWrite(): Promise<void> {
    if (policiesSaved) return;
    policiesSaved = true;
    if (policies === 'applied' && exported !== null) {
      const stated = exported;
      await withWorkspace(pool, principal, (tx) => savePolicySet(tx, ws, stated));
    }
  }

  async function flushTombstones(): Promise<void> {
    if (tombstoneBatch.length === 0) return;
    const rows = tombstoneBatch;
    tombstoneBatch = [];
    await beforeWrite();
    tombstones.added += await withWorkspace(pool, principal, (tx) => insertTombstones(tx, ws, rows));
  }

  async function flushEpisodes(): Promise<void> {
    if (batch.length === 0) return;
    const current = batch;
    batch = [];
    const prepared = await prepareImportBatch(principal, current.map((b) => b.item)).catch((err: unknown) => {
      throw atLine(err, current);
    });
    // Tombstones first, so a key erased there answers `erased` here.
    await flushTombstones();
    await beforeWrite();
    const result = await withWorkspaceWriting(
      pool,
      principal,
      (tx) =>
        appendBatch(tx, principal, prepared, async (tx, created) => {
          const marked = markedBySubject(created);
          if (options.enqueue && marked.size > 0) await options.enqueue(tx, marked);
        }),
      allUsersOf(ws),
    ).catch((err: unknown) => {
      throw atLine(err, current);
    });
    totals.episodes += current.length;
    totals.created += result.created;
    totals.duplicates += result.duplicates;
    totals.erased += result.erased;
    totals.refused += result.refused;
    totals.redacted += result.redacted;
    result.items.forEach((r, i) => {
      if (r.status === 'erased' || r.status === 'refused') count(notWritten, current[i]!.subject);
      else if (r.redactions !== undefined) count(redactedIn, current[i]!.subject);
    });
    options.onProgress?.({ line: current.at(-1)!.line, episodes: totals.episodes });
  }

  for await (const text of input) {
    const record = reader.read(text);
    if (record === null) continue;
    switch (record.type) {
      case 'header':
        header = record;
        break;
      case 'policies':
        exported = record.policies;
        break;
      case 'tombstone':
        if (!started) await start('tombstone');
        tombstones.read += 1;
        tombstoneBatch.push({ key_hash: record.key_hash, erasure_id: record.erasure_id });
        if (tombstoneBatch.length >= BATCH) await flushTombstones();
        break;
      case 'episode':
        if (!started) await start('episode');
        // A full batch is written when the next episode arrives: the last one waits for the manifest.
        if (batch.length >= BATCH) await flushEpisodes();
        batch.push({ line: reader.line, item: importedItem(record), subject: record.subject });
        break;
      case 'manifest':
        if (!started) await start('manifest');
        manifest = record;
        break;
    }
  }
  manifest ??= reader.finish();
  await flushTombstones();
  await flushEpisodes();
  await beforeWrite();
  return {
    from_workspace: header!.workspace,
    workspace: ws,
    lines: reader.line,
    ...totals,
    tombstones,
    policies,
    ...(await compareSubjects(pool, ws, manifest, notWritten, redactedIn, options.chunkSize)),
  };
}

/** An exported episode as the append path takes it: the source's fields, and the log's. */
function importedItem(e: ExportEpisode): ImportedItem {
  const input: Record<string, unknown> = {
    source: e.source,
    idempotency_key: e.idempotency_key,
    subject: e.subject,
    scope: e.scope,
    kind: e.kind,
    body: e.body,
    lineage: e.lineage,
    snapshot: e.snapshot,
  };
  if (!e.occurred_at_defaulted) input['occurred_at'] = e.occurred_at;
  if (e.observed_at !== null) input['observed_at'] = e.observed_at;
  if (e.sequence !== null) input['sequence'] = e.sequence;
  if (e.source_ref !== null) input['source_ref'] = e.source_ref;
  return { input, actor: e.actor, actor_key: e.actor_key, occurred_at_default: e.occurred_at_defaulted ? e.occurred_at : null };
}

/** An error of a batch, naming the export's line instead of the batch's index. */
function atLine(err: unknown, batch: ReadonlyArray<{ line: number }>): unknown {
  const lineOf = (index: number) => batch[index]?.line ?? batch[0]!.line;
  if (err instanceof KeyConflictError) {
    const conflicts = err.conflicts.map((c) => ({ ...c, line: lineOf(c.index) }));
    const first = conflicts[0]!;
    return new CanonError(
      'key_conflict',
      `line ${first.line}: idempotency key ${JSON.stringify(first.idempotency_key)} of source ${JSON.stringify(first.source)} already names a different episode here` +
        (first.episode_id ? ` (${first.episode_id})` : '') +
        '; this batch was not written',
      { conflicts, line: first.line },
    );
  }
  if (err instanceof ValidationError && err.issues.length > 0) {
    const issue = err.issues[0]!;
    return new ExportInvalidError(lineOf(issue.index), `episode: ${issue.path ? `${issue.path}: ` : ''}${issue.message}; this batch was not written`);
  }
  return err;
}

/** The workspace's own policies, without what an export never carries. */
const comparable = (own: WorkspacePolicies | null): string | null => {
  if (own === null) return null;
  const { resolver: _resolver, ...rest } = own;
  return canonicalJson(rest);
};

/**
 * The export's policies apply where the target states none; where it states the same, nothing
 * changes; where it states others, the import is refused unless told to keep the target's.
 */
async function settlePolicies(pool: Pool, principal: Principal, exported: Record<string, unknown> | null, keep: boolean): Promise<ImportResult['policies']> {
  const ws = principal.workspace_id;
  return withWorkspace(pool, principal, async (tx) => {
    const { own } = await loadPolicySet(tx, ws);
    const here = comparable(own);
    const there = exported === null ? null : canonicalJson(exported);
    if (here === null && there === null) return 'none';
    if (here === there) return 'same';
    // Saved with the import's first write (beforeWrite); checked here, before anything is.
    if (here === null && exported !== null) {
      const valid = WorkspacePolicies.safeParse(exported);
      if (!valid.success) throw new ValidationError(`the export's policies are not valid here: ${valid.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      return 'applied';
    }
    if (keep) return 'kept';
    throw new PoliciesDifferError(
      there === null
        ? 'this workspace states policies of its own and the export was made under the defaults; nothing was written (pass --keep-policies, or ?policies=keep, to import under this workspace’s)'
        : 'this workspace states policies of its own that differ from the export’s; nothing was written (pass --keep-policies, or ?policies=keep, to import under this workspace’s)',
      { here: own, export: exported },
    );
  });
}

/** Compiles every subject of the manifest and says, of each whose state differs, why. */
async function compareSubjects(
  pool: Pool,
  ws: string,
  manifest: ExportManifest,
  notWritten: ReadonlyMap<string, number>,
  redactedIn: ReadonlyMap<string, number>,
  chunkSize?: number,
): Promise<{ subjects: ImportedSubject[]; ok: boolean }> {
  const subjects: ImportedSubject[] = [];
  for (const s of manifest.subjects) {
    const compiled = await compileSubject(pool, ws, s.subject, chunkSize ? { chunkSize } : {});
    subjects.push({ subject: s.subject, expected: s.state_hash, state_hash: compiled.state_hash, ok: compiled.state_hash === s.state_hash });
  }
  const differing = subjects.filter((s) => !s.ok);
  if (differing.length > 0) {
    const here = await withWorkspace(pool, allUsersOf(ws), async (tx) => ({
      states: new Map((await subjectLogStates(tx, ws, { only: differing.map((s) => s.subject) })).map((s) => [s.subject, s])),
      fingerprint: (await loadPolicySet(tx, ws)).fingerprint,
    }));
    const bySubject = new Map(manifest.subjects.map((s) => [s.subject, s]));
    for (const s of differing) {
      const there = bySubject.get(s.subject)!;
      const mine = here.states.get(s.subject);
      const reasons: string[] = [];
      if (there.state_hash === null) reasons.push('it was never compiled where it was exported');
      if (there.pending > 0) reasons.push(`${there.pending} of its episodes were not compiled yet where it was exported, so the manifest's state_hash predates them`);
      if (there.compiler_version !== null && there.compiler_version !== COMPILER_VERSION) {
        reasons.push(`the compiler versions differ: ${there.compiler_version} there, ${COMPILER_VERSION} here`);
      }
      if (there.policy_fingerprint !== null && there.policy_fingerprint !== here.fingerprint) {
        reasons.push(`the policies differ: fingerprint ${there.policy_fingerprint.slice(0, 12)} there, ${here.fingerprint.slice(0, 12)} here`);
      }
      const missing = notWritten.get(s.subject) ?? 0;
      if (missing > 0) reasons.push(`${missing} of its episodes were not written here (their keys are erased here, or they hold secrets this workspace refuses)`);
      const redacted = redactedIn.get(s.subject) ?? 0;
      if (redacted > 0) reasons.push(`${redacted} of its episodes held a secret the rules here find, written here redacted (the export's Canon stored them as they were)`);
      if (mine && mine.episodes > there.episodes - missing) {
        reasons.push(`this workspace holds ${mine.episodes} of its episodes, the export ${there.episodes}: episodes of its own change the state`);
      }
      // A subject's state spans every user's personal timelines, an export holds only its key's,
      // and nothing in the file binds the manifest's state_hash (a line hash anyone can compute):
      // with the log whole as far as the file can tell, either may be why.
      if (reasons.length === 0) {
        reasons.push(
          'the log it carries does not give the manifest’s state_hash: the subject held personal episodes of users other than the exporting key’s, which are never exported, or the manifest was changed after the export',
        );
      }
      s.reason = reasons.join('; ');
    }
  }
  return { subjects, ok: differing.length === 0 };
}
