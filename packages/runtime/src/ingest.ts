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
import { appendEpisodes, keyOf, withTransaction, type NewEpisode, type Pool, type PoolClient } from '@canon/store';
import type { Principal } from './principal.js';

export type ItemStatus = 'created' | 'duplicate';

export interface IngestItemResult {
  index: number;
  status: ItemStatus;
  episode_id: string;
}

export interface IngestResult {
  items: IngestItemResult[];
  created: number;
  duplicates: number;
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
      uniques.push({ id: randomUUID(), envelope: env, content_hash: contentHash(env) });
    } else {
      uniqueIndexOf.push(first);
      if (canonicalEnvelope(uniques[first]!.envelope) !== canonicalEnvelope(env)) {
        inBatchConflicts.push({ index, source: env.source, idempotency_key: env.idempotency_key, episode_id: null });
      }
    }
  });
  if (inBatchConflicts.length > 0) throw new KeyConflictError(inBatchConflicts);

  const outcome = await withTransaction(pool, async (tx) => {
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
    return status;
  });

  const claimed = new Set<number>();
  const results: IngestItemResult[] = envelopes.map((_, index) => {
    const u = uniqueIndexOf[index]!;
    const s = outcome[u]!;
    // Only the first occurrence of a key in the batch can be the one that created it.
    const status: ItemStatus = s.status === 'created' && !claimed.has(u) ? 'created' : 'duplicate';
    claimed.add(u);
    return { index, status, episode_id: s.id };
  });
  return {
    items: results,
    created: results.filter((r) => r.status === 'created').length,
    duplicates: results.filter((r) => r.status === 'duplicate').length,
    subjects: [...new Set(envelopes.map((e) => e.subject))].sort(),
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
