import { BusyError, NotFoundError, SecretRefusedError, ValidationError, type EpisodeInput } from '@canon/core';
import { lockSubject, LockTimeoutError, withLockTimeout, type MemoryRow, type Pool, type PoolClient } from '@canon/store';
import { compilePendingInTransaction, type CompileResult } from './compile.js';
import { seenBy } from './seen-by.js';
import { appendBatch, prepareBatch } from '../ingest/ingest.js';
import { loadPolicySet } from '../writes/policies.js';
import type { Principal } from '../auth/principal.js';
import { memoryRowOf, visibleTo } from '../recall/recall.js';
import { asAllUsers, withWorkspaceWriting } from '../auth/scope.js';

/** How long a conditional write waits for a subject another writer holds before answering 503. */
export const SUBJECT_LOCK_TIMEOUT_MS = 2000;

export interface SubjectWriteContext {
  tx: PoolClient;
  /** The memory as stored once the subject's lock is held and its pending episodes compiled. */
  memory: MemoryRow;
  policies: Awaited<ReturnType<typeof loadPolicySet>>;
}

/**
 * Runs a write on one memory's subject in one workspace transaction: finds the memory (another
 * user's personal memory is as absent as a missing one), takes the subject's advisory lock with
 * a short lock_timeout — a writer waiting longer answers 503 and retries, instead of piling up
 * connections behind a long compile — compiles what is pending, then hands over the memory as
 * it is now, so a revision compared in `fn` is compared under the lock.
 */
export function withMemorySubject<T>(pool: Pool, principal: Principal, memoryId: string, fn: (ctx: SubjectWriteContext) => Promise<T>): Promise<T> {
  return busyWhileLocked(`the subject of memory ${memoryId}`, () =>
    withWorkspaceWriting(pool, principal, async (tx) => {
      // The id of a key linked into another memory writes to that memory, as it reads it.
      const found = await memoryRowOf(tx, principal.workspace_id, memoryId);
      if (!found || !visibleTo(principal, found.timeline)) throw new NotFoundError(`no memory ${memoryId}`);
      await withLockTimeout(tx, SUBJECT_LOCK_TIMEOUT_MS, () => lockSubject(tx, principal.workspace_id, found.subject));
      const policies = await loadPolicySet(tx, principal.workspace_id);
      await asAllUsers(tx, () => compilePendingInTransaction(tx, principal.workspace_id, found.subject, policies));
      // Looked up again under the lock: the compile may have linked or unlinked the key.
      const memory = await memoryRowOf(tx, principal.workspace_id, memoryId);
      if (!memory || !visibleTo(principal, memory.timeline)) throw new NotFoundError(`no memory ${memoryId}`);
      return fn({ tx, memory, policies });
    }),
  );
}

/**
 * Runs a write transaction that takes a subject's lock under SUBJECT_LOCK_TIMEOUT_MS: a lock not
 * granted in time (the transaction already rolled back, nothing written) answers 503 "busy,
 * retry" — one translation for every writer that waits on a subject.
 */
export async function busyWhileLocked<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof LockTimeoutError) throw new BusyError(`${what} is being written by another request; retry shortly`, 1);
    throw err;
  }
}

/**
 * Appends one episode and compiles its subject, inside the caller's transaction (which holds
 * the subject's lock): the write and its effect commit together or not at all.
 */
export async function appendAndCompile(
  ctx: SubjectWriteContext,
  principal: Principal,
  episode: EpisodeInput | Record<string, unknown>,
): Promise<{ episode_id: string; compiled: CompileResult }> {
  const batch = await prepareBatch(principal, [episode]);
  const subject = batch.envelopes[0]!.subject;
  // appendBatch marks the episode pending; the compile below takes it.
  const ingested = await appendBatch(ctx.tx, principal, batch);
  const item = ingested.items[0]!;
  if (item.status === 'refused') throw new SecretRefusedError(item.rule ?? 'secret', item.path ?? 'body');
  if (item.status === 'erased' || item.episode_id === null) {
    throw new ValidationError('idempotency_key: this key belongs to an erased episode; use another key');
  }
  const compiled = await asAllUsers(ctx.tx, () => compilePendingInTransaction(ctx.tx, principal.workspace_id, subject, ctx.policies));
  return { episode_id: item.episode_id, compiled: seenBy(compiled, principal.user) };
}
