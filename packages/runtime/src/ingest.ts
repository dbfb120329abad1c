import { randomUUID } from 'node:crypto';
import {
  canWrite,
  canonicalEnvelope,
  contentHash,
  EpisodeInput,
  envelopeOf,
  ForbiddenError,
  KeyConflictError,
  LIMITS,
  toEnvelope,
  ValidationError,
  CanonError,
  type Envelope,
  type ItemIssue,
} from '@canon/core';
import { appendEpisodes, erasedKeysAmong, keyOf, type NewEpisode, type Pool, type PoolClient } from '@canon/store';
import { withWorkspace } from './scope.js';
import { erasedKeyHash } from './erased-key.js';
import type { Principal } from './principal.js';

export type ItemStatus = 'created' | 'duplicate' | 'erased';

export interface IngestItemResult {
  index: number;
  status: ItemStatus;
  /** Null for an `erased` key: nothing was written. */
  episode_id: string | null;
}

export interface IngestResult {
  items: IngestItemResult[];
  created: number;
  duplicates: number;
  /** Items whose key was erased earlier (design §8): answered `erased`, nothing written. */
  erased: number;
  /** Distinct subjects the batch wrote to (the ones a compile must visit). */
  subjects: string[];
}

/**
 * Work to do inside the ingest transaction once the rows are in: pending markers and compile
 * jobs for what was created, a connector's cursor. Called even when nothing was created.
 */
export type AfterAppend = (tx: PoolClient, created: Array<{ id: string; envelope: Envelope }>) => Promise<void>;

/**
 * Validates every item, then appends the batch in one transaction: all of it, or — on any
 * invalid item or key conflict — nothing at all.
 */
export async function ingestEpisodes(
  pool: Pool,
  principal: Principal,
  items: readonly unknown[],
  afterAppend?: AfterAppend,
): Promise<IngestResult> {
  const batch = prepareBatch(principal, items);
  return withWorkspace(pool, principal.workspace_id, (tx) => appendBatch(tx, principal, batch, afterAppend));
}

/** A validated batch, de-duplicated within itself: what `appendBatch` writes. */
export interface PreparedBatch {
  envelopes: Envelope[];
  uniques: NewEpisode[];
  /** item index → index in `uniques` */
  uniqueIndexOf: number[];
}

/** Checks the role, the size and every item; throws before anything is written. */
export function prepareBatch(principal: Principal, items: readonly unknown[]): PreparedBatch {
  if (!canWrite(principal.role)) throw new ForbiddenError(`the ${principal.role} role cannot write episodes`);
  if (items.length === 0) throw new ValidationError('the batch is empty');
  if (items.length > LIMITS.batchSize) {
    throw new ValidationError(`a batch holds at most ${LIMITS.batchSize} episodes; this one has ${items.length}`);
  }

  const envelopes = parseBatch(principal, items);

  // Within the batch: the same key twice is a duplicate when identical, a conflict otherwise.
  const firstByKey = new Map<string, number>();
  const uniques: NewEpisode[] = [];
  const uniqueIndexOf: number[] = []; // item index → index in `uniques`
  const inBatchConflicts: KeyConflictError['conflicts'] = [];
  envelopes.forEach((env, index) => {
    const k = keyOf(env.source, env.idempotency_key);
    const first = firstByKey.get(k);
    if (first === undefined) {
      firstByKey.set(k, uniques.length);
      uniqueIndexOf.push(uniques.length);
      uniques.push({ id: randomUUID(), envelope: env, content_hash: contentHash(env), actor_key: principal.key_id });
    } else {
      uniqueIndexOf.push(first);
      if (canonicalEnvelope(uniques[first]!.envelope) !== canonicalEnvelope(env)) {
        inBatchConflicts.push({ index, source: env.source, idempotency_key: env.idempotency_key, episode_id: null });
      }
    }
  });
  if (inBatchConflicts.length > 0) throw new KeyConflictError(inBatchConflicts);
  return { envelopes, uniques, uniqueIndexOf };
}

/**
 * Appends a prepared batch inside the caller's transaction (ingest's own, or a proposal's,
 * which compiles in the same one). Keys erased earlier are answered `erased` and skipped; the
 * rest of the batch proceeds.
 */
export async function appendBatch(tx: PoolClient, principal: Principal, batch: PreparedBatch, afterAppend?: AfterAppend): Promise<IngestResult> {
  const { envelopes, uniqueIndexOf } = batch;
  const hashes = batch.uniques.map((u) => erasedKeyHash(principal.workspace_id, u.envelope.source, u.envelope.idempotency_key));
  const erasedHashes = await erasedKeysAmong(tx, principal.workspace_id, hashes);
  const uniques = batch.uniques.filter((_, i) => !erasedHashes.has(hashes[i]!));
  const { inserted, existing } = await appendEpisodes(tx, principal.workspace_id, uniques);
  const stored = new Map(existing.map((e) => [keyOf(e.source, e.idempotency_key), e]));
  const conflicts: KeyConflictError['conflicts'] = [];
  const status = uniques.map((u) => {
    const k = keyOf(u.envelope.source, u.envelope.idempotency_key);
    if (inserted.has(k)) return { status: 'created' as const, id: u.id };
    const prior = stored.get(k);
    // The hash is a shortcut only: equal hashes are confirmed on the canonical envelopes.
    if (prior && prior.content_hash === u.content_hash && canonicalEnvelope(envelopeOf(prior)) === canonicalEnvelope(u.envelope)) {
      return { status: 'duplicate' as const, id: prior.id };
    }
    conflicts.push({
      index: envelopes.indexOf(u.envelope),
      source: u.envelope.source,
      idempotency_key: u.envelope.idempotency_key,
      episode_id: prior?.id ?? null,
    });
    return { status: 'duplicate' as const, id: prior?.id ?? u.id };
  });
  if (conflicts.length > 0) throw new KeyConflictError(conflicts);
  if (afterAppend) {
    const created = uniques.filter((_, i) => status[i]!.status === 'created');
    await afterAppend(tx, created.map((u) => ({ id: u.id, envelope: u.envelope })));
  }
  const byKey = new Map(uniques.map((u, i) => [u, status[i]!]));
  const outcome = batch.uniques.map((u) => byKey.get(u) ?? { status: 'erased' as const, id: null });

  const claimed = new Set<number>();
  const results: IngestItemResult[] = envelopes.map((_, index) => {
    const u = uniqueIndexOf[index]!;
    const s = outcome[u]!;
    // Only the first occurrence of a key in the batch can be the one that created it.
    const status: ItemStatus = s.status === 'erased' ? 'erased' : s.status === 'created' && !claimed.has(u) ? 'created' : 'duplicate';
    claimed.add(u);
    return { index, status, episode_id: s.id };
  });
  return {
    items: results,
    created: results.filter((r) => r.status === 'created').length,
    duplicates: results.filter((r) => r.status === 'duplicate').length,
    erased: results.filter((r) => r.status === 'erased').length,
    subjects: [...new Set(envelopes.filter((_, i) => results[i]!.status !== 'erased').map((e) => e.subject))].sort(),
  };
}

function parseBatch(principal: Principal, items: readonly unknown[]): Envelope[] {
  const issues: ItemIssue[] = [];
  const envelopes: Envelope[] = [];
  items.forEach((raw, index) => {
    const parsed = EpisodeInput.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        issues.push({ index, path: issue.path.join('.'), message: issue.message });
      }
      return;
    }
    try {
      envelopes.push(toEnvelope(parsed.data, principal.workspace_id, { role: principal.role, user: principal.user }));
    } catch (err) {
      if (!(err instanceof CanonError)) throw err;
      issues.push({ index, path: 'scope', message: err.message });
    }
  });
  if (issues.length > 0) {
    const items = new Set(issues.map((i) => i.index)).size;
    throw new ValidationError(`${items} of ${envelopes.length + items} episodes are invalid; nothing was stored`, issues);
  }
  return envelopes;
}
