import type { Claim, LineageVersion } from './claim.js';
import type { FactKey } from './fact-key.js';
import { timelineHashes } from './blocks.js';
import type { Policy } from './policy.js';
import { compareInstants } from './order.js';
import { fold } from './fold.js';
import type { Timeline } from './timeline.js';

const MOD = 1n << 256n;

/**
 * The digest of one timeline's state (design §4: the key without the workspace id, the policy,
 * values with intervals, status, conditions and evidence referenced by source, idempotency key and
 * claim index, decisions and lineage events; no memory id, ingest time or reason wording): what a
 * subject's state hash is summed from. Hashed block by block (`timelineHashes`).
 */
export function timelineDigest(t: Timeline): string {
  return timelineHashes(t, null, null).digest();
}

/**
 * Combines timeline digests into a subject's state hash: their sum modulo 2^256 (a multiset
 * hash). Order-independent like a sorted hash, and incremental: a compile that changes one
 * memory of a subject with 100,000 updates the hash with that memory's old and new digests
 * instead of rereading the others, which keeps a no-op or one-episode compile flat in history.
 */
export function combineDigests(digests: readonly string[]): string {
  let sum = 0n;
  for (const d of digests) sum = (sum + BigInt(`0x${d}`)) % MOD;
  return toHex(sum);
}

/** `hash - removed + added`, the incremental form of `combineDigests`. */
export function updateStateHash(hash: string, removed: readonly string[], added: readonly string[]): string {
  let sum = BigInt(`0x${hash}`);
  for (const d of removed) sum = (sum - BigInt(`0x${d}`) + MOD) % MOD;
  for (const d of added) sum = (sum + BigInt(`0x${d}`)) % MOD;
  return toHex(sum);
}

export { EMPTY_STATE_HASH } from './empty-state-hash.js';

function toHex(n: bigint): string {
  return n.toString(16).padStart(64, '0');
}

/** Order-independent hash of a set of timelines (a subject's state). */
export function stateHash(timelines: readonly Timeline[]): string {
  return combineDigests(timelines.map(timelineDigest));
}

/** The ETag of one memory: a hash of its whole timeline (ids and reasons included). */
export function timelineEtag(timeline: Timeline): string {
  return timelineEtagAndJson(timeline).etag;
}

/** The ETag of one memory and the canonical JSON it hashes, for a caller that also stores the timeline. */
export function timelineEtagAndJson(timeline: Timeline): { etag: string; json: string } {
  const { etag, json } = timelineHashes(timeline, null, null);
  return { etag, json };
}

/**
 * Transaction-time travel (design §7): refold only what had been ingested by `transactionTime`.
 * Null when nothing on the key was known yet and no fact key was given.
 */
export function knownAt(
  claims: readonly Claim[],
  lineageVersions: readonly LineageVersion[],
  transactionTime: string,
  policy: Policy,
  factKey?: FactKey,
): Timeline | null {
  const known = claims.filter((c) => compareInstants(c.ingested_at, transactionTime) <= 0);
  const versions = lineageVersions.filter((v) => compareInstants(v.ingested_at, transactionTime) <= 0);
  if (known.length === 0 && !factKey) return null;
  return fold(known, policy, versions, factKey);
}
