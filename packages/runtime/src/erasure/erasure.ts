import { randomUUID } from 'node:crypto';
import { aRole, atLeast, BusyError, ForbiddenError, ROLES, type Role, LinkBody, memoryId, NotFoundError, sha256, ValidationError } from '@canon/core';
import {
  deleteChangesOfSubjects,
  deleteCompileRunsOfSubject,
  deleteDerivedOfSubject,
  deleteEpisodes,
  deleteJobsNaming,
  deleteWebhooksOfSubjects,
  erasableEpisodes,
  getSubject,
  closeWrites,
  insertErasedKeys,
  insertErasureRebuiltSubjects,
  insertErasure,
  linkEpisodesOfSubject,
  listApiKeys,
  listConnectorCursors,
  listConnectorInstances,
  loadConnectorCursor,
  saveConnectorCursor,
  lockSubject,
  memoryIdsOfEpisodes,
  memoryIdsWithClaims,
  recountBacklogs,
  revokeKeysOfUser,
  type Pool,
  type Sql,
} from '@canon/store';
import { rebuildInTransaction, type CompileResult } from '../compile/compile.js';
import { seenBy } from '../compile/seen-by.js';
import { erasedKeyHash, erasedSubjectHash } from '../ingest/erased-key.js';
import { connectorOfInstance, registeredConnector } from '../connectors/registry.js';
import { loadPolicySet } from '../writes/policies.js';
import type { Principal } from '../auth/principal.js';
import { allUsersOf, withWorkspace } from '../auth/scope.js';

export type ErasureTarget = { subject: string } | { user: string };

export interface ErasureResult {
  erasure_id: string;
  target_kind: 'subject' | 'user';
  episodes: number;
  /** Memories deleted (by subject), or memories of the affected subjects before their rebuild (by user). */
  memories: number;
  /**
   * The subjects erased (by subject) or touched (by user) that the one who erased may see: by user,
   * a subject whose erased episodes were all another person's personal ones is counted in
   * `personal_subjects` instead — the person's private subjects are no business of a maintainer's.
   */
  subjects: string[];
  /** By user: the affected subjects recompiled from what remains of their log (those named in `subjects`). */
  rebuilt: CompileResult[];
  /** By user: subjects touched that are not named here (only another person's personal episodes). */
  personal_subjects: number;
  /** By user: the user's keys of the workspace, revoked and no longer naming them. */
  keys_revoked: number;
  erased_at: string;
}

/**
 * Erasure (design §8), the one audited exception to the append-only log, in one transaction:
 * the subjects' locks (sorted, so two erasures cannot deadlock), the episodes and everything
 * derived from them deleted, a content-free tombstone per key so a re-sync answers `erased`
 * instead of resurrecting them, and an audit row of who erased how much and when. Erasing a
 * user's episodes leaves other episodes of the same subjects: those subjects are rebuilt from
 * what remains, in the same transaction, so no reader ever sees derived rows of erased claims.
 */
export async function erase(pool: Pool, principal: Principal, target: ErasureTarget): Promise<ErasureResult> {
  if (!atLeast(principal.role, 'maintainer')) throw new ForbiddenError(`only an owner or a maintainer may erase, not ${aRole(principal.role)}`);
  const name = 'subject' in target ? target.subject : target.user;
  if (typeof name !== 'string' || name.length === 0 || name.length > 512 || name.includes('\u0000')) {
    throw new ValidationError(`${'subject' in target ? 'subject' : 'user'}: 1 to 512 characters, no U+0000`);
  }
  const ws = principal.workspace_id;
  // Erasure acts on every user's episodes of the subject, personal ones included.
  return withWorkspace(pool, allUsersOf(ws), async (tx) => {
    // No write of the workspace under way while it reads what to erase, and none after it that
    // has not seen its tombstones and revoked keys: an erased key re-sent meanwhile stays erased,
    // and an erased person's batch in flight goes with the rest.
    await closeWrites(tx, ws);
    const targeted = await erasableEpisodes(tx, ws, target);
    const subjects = 'subject' in target ? [target.subject] : [...new Set(targeted.map((e) => e.subject))].sort();
    for (const subject of subjects) await lockSubject(tx, ws, subject);
    // Reread under the locks: an ingest that committed meanwhile is erased too.
    const episodes = await erasableEpisodes(tx, ws, target);
    // A person is erased by someone of at least their standing: a maintainer erasing an owner
    // would take an owner's facts and keys (standing first).
    if ('user' in target) {
      const roles = new Set([...episodes.map((e) => e.actor_role), ...(await listApiKeys(tx, ws)).filter((k) => k.user_id === target.user).map((k) => k.role)]);
      const above = [...roles].find((r) => ROLES.includes(r as Role) && !atLeast(principal.role, r as Role));
      if (above) throw new ForbiddenError(`erasing that user needs the ${above} role: they wrote or hold keys as one`);
    }
    const compiled = await Promise.all(subjects.map((s) => getSubject(tx, ws, s)));
    // A person erased keeps no key in their name (design §8): their keys are revoked and unnamed,
    // so nothing writes as them afterwards and no row names them.
    const keysRevoked = 'user' in target ? await revokeKeysOfUser(tx, ws, target.user) : 0;
    if (episodes.length === 0 && compiled.every((s) => s === null) && keysRevoked === 0) {
      throw new NotFoundError(`nothing to erase for that ${'subject' in target ? 'subject' : 'user'}`);
    }
    const memories = compiled.reduce((n, s) => n + (s?.memories ?? 0), 0);

    const erasureId = randomUUID();
    // What the user's episodes stated, read before they go: a link naming only those words is
    // found by it after the rebuild.
    const stated = 'user' in target ? new Set(await memoryIdsOfEpisodes(tx, ws, episodes.map((e) => e.id))) : new Set<string>();
    let deleted = await deleteEpisodes(tx, ws, episodes.map((e) => e.id));
    await insertErasedKeys(tx, ws, erasureId, episodes.map((e) => erasedKeyHash(ws, e.source, e.idempotency_key)));
    // The change feed carries the values that were read before (design §11): every change of the
    // subjects goes. A subject that stays records, in its rebuild, which memories the erasure
    // changed — without what they read before.
    await deleteChangesOfSubjects(tx, ws, subjects);
    const rebuilt: CompileResult[] = [];
    // Subjects gone with the erasure: nothing may name them afterwards — not their compile
    // audit, not a job's data or result in the queue (design §8).
    let gone: string[];
    if ('subject' in target) {
      await deleteDerivedOfSubject(tx, ws, target.subject);
      gone = [target.subject];
    } else {
      const policies = await loadPolicySet(tx, ws);
      gone = [];
      for (const subject of subjects) {
        let result = await rebuildInTransaction(tx, ws, subject, policies, { erasure: { user: target.user } });
        // A link (anyone's) that names a key only the erased user stated quotes that user's words,
        // and a linked group is keyed by one of its keys, so its memory would stay named by them.
        // With the claims gone the link joins nothing: it goes with them, tombstoned like theirs.
        const quoting = await linksQuotingErasedKeys(tx, ws, subject, stated);
        if (quoting.length > 0) {
          deleted += await deleteEpisodes(tx, ws, quoting.map((e) => e.id));
          await insertErasedKeys(tx, ws, erasureId, quoting.map((e) => erasedKeyHash(ws, e.source, e.idempotency_key)));
          result = await rebuildInTransaction(tx, ws, subject, policies, { erasure: { user: target.user } });
        }
        rebuilt.push(result);
        if ((await erasableEpisodes(tx, ws, { subject })).length === 0) gone.push(subject);
      }
    }
    // Every subject touched: a memory's revision counts the claims folded into it, and there it
    // may come back to a number it had, holding something else (a stale proposal passed); what is
    // stated there again (a subject erased whole) starts at revision 1 once more.
    await insertErasureRebuiltSubjects(tx, ws, erasureId, subjects.map((s) => erasedSubjectHash(ws, s)));
    for (const subject of gone) await deleteCompileRunsOfSubject(tx, ws, subject);
    await deleteChangesOfSubjects(tx, ws, gone);
    await deleteJobsNaming(tx, ws, gone);
    // A webhook that follows only a gone subject names it, and has nothing left to follow.
    await deleteWebhooksOfSubjects(tx, ws, gone);
    await forgetInCursors(tx, ws, gone);
    const audit = await insertErasure(tx, {
      workspace_id: ws,
      id: erasureId,
      target_kind: 'subject' in target ? 'subject' : 'user',
      // A subject's is the hash `erasure_rebuilt_subjects` keeps (migration 0040 reads it so).
      target_hash: 'subject' in target ? erasedSubjectHash(ws, target.subject) : sha256(JSON.stringify([ws, 'user', name])),
      actor_key_id: principal.key_id,
      actor_role: principal.role,
      episodes: deleted,
      memories,
    });
    // Each subject's backlog from the rows left (a subject gone keeps no row, nor its name there):
    // last, as a compile does, since the rows stay locked until the commit.
    await recountBacklogs(tx, ws, subjects);
    // Named to the one who erased: a subject they named, or one where the person said something
    // the workspace (or they themselves) could see.
    const shown = new Set(
      'subject' in target
        ? subjects
        : episodes.filter((e) => e.scope === 'workspace' || (principal.user !== null && e.owner === principal.user)).map((e) => e.subject),
    );
    return {
      erasure_id: erasureId,
      target_kind: 'subject' in target ? 'subject' : 'user',
      episodes: deleted,
      memories,
      subjects: subjects.filter((s) => shown.has(s)),
      // Each rebuild as the one erasing may see it: no other user's personal part (`seenBy`).
      rebuilt: rebuilt.filter((r) => shown.has(r.subject)).map((r) => seenBy(r, principal.user)),
      personal_subjects: subjects.filter((s) => !shown.has(s)).length,
      keys_revoked: keysRevoked,
      erased_at: audit.erased_at,
    };
  });
}

/** The link episodes of a subject naming a key the erased episodes stated and no remaining claim does. */
async function linksQuotingErasedKeys(tx: Sql, ws: string, subject: string, stated: ReadonlySet<string>) {
  if (stated.size === 0) return [];
  const naming = (await linkEpisodesOfSubject(tx, ws, subject)).flatMap((e) => {
    const parsed = LinkBody.safeParse(e.body);
    const ids = parsed.success ? parsed.data.link.keys.map((k) => memoryId(ws, k)).filter((id) => stated.has(id)) : [];
    return ids.length > 0 ? [{ episode: e, ids }] : [];
  });
  if (naming.length === 0) return [];
  const left = new Set(await memoryIdsWithClaims(tx, ws, [...new Set(naming.flatMap((n) => n.ids))]));
  return naming.filter((n) => n.ids.some((id) => !left.has(id))).map((n) => n.episode);
}

/**
 * Tells every connector cursor of the workspace the subjects gone: a cursor naming a scanned
 * file kept its path and content hash, and the next run retracted the deleted file — writing the
 * erased subject back (design §8). A connector that keeps nothing of its subjects has no
 * `forgetSubjects`, and its cursor stays.
 */
async function forgetInCursors(tx: Sql, ws: string, gone: readonly string[]): Promise<void> {
  if (gone.length === 0) return;
  const cursors = await listConnectorCursors(tx, ws);
  if (cursors.length === 0) return;
  const registered = new Map((await listConnectorInstances(tx, ws)).map((i) => [i.id, i.connector] as const));
  for (const { instance_id, cursor } of cursors) {
    const connector = connectorOfInstance(instance_id, registered.get(instance_id));
    if (connector === null) continue;
    const forget = registeredConnector(connector).definition.forgetSubjects;
    if (!forget) continue;
    // In the erasure's transaction: a run that saves its cursor after this is refused (its batch
    // rolled back), as two runs are. One that committed after the cursor was read moved it — and
    // its cursor may name the subjects again — so it is read anew and forgotten in, a few times.
    let read = cursor;
    for (let attempt = 1; ; attempt += 1) {
      const next = forget(read, gone, instance_id);
      if (next === undefined) break;
      if ((await saveConnectorCursor(tx, { workspaceId: ws, instanceId: instance_id, expected: read, cursor: next })).ok) break;
      if (attempt === CURSOR_ATTEMPTS) throw new BusyError(`connector instance ${instance_id} kept moving its cursor during the erasure; nothing was erased (retry)`);
      read = (await loadConnectorCursor(tx, { workspaceId: ws, instanceId: instance_id }))?.cursor ?? null;
    }
  }
}

/** How often an erasure reads a cursor a connector run keeps moving before it gives up. */
const CURSOR_ATTEMPTS = 5;
