import { canonicalJson } from './hash.js';
import type { Claim, LineageVersion } from './claim.js';
import { compareStrings } from './normalize.js';

/** Instants are compared as times, not strings, so "…Z" and "+00:00" spellings agree. */
export function compareInstants(a: string, b: string): number {
  // Stored instants are `toISOString()` spellings, which order as strings; parse anything else.
  if (isoUtc(a) && isoUtc(b)) return a < b ? -1 : a > b ? 1 : 0;
  const d = Date.parse(a) - Date.parse(b);
  return d < 0 ? -1 : d > 0 ? 1 : 0;
}

function isoUtc(s: string): boolean {
  return s.length === 24 && s.charCodeAt(23) === 90 /* Z */ && s.charCodeAt(10) === 84 /* T */ && s.charCodeAt(19) === 46 /* . */;
}

/** Absent sequences sort first: a source that numbers its events orders only those it numbered. */
function compareSequence(a: number | null, b: number | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

/**
 * The bytes of what a claim says, for the third position of the total order. Excludes where it
 * came from (source, key, ingest time) so that equal statements order by content alone.
 */
export function claimBytes(c: Claim): string {
  return canonicalJson([
    c.op,
    c.value,
    c.conditions,
    c.correction,
    c.settles,
    c.effective_explicit,
    c.standing,
    c.text,
  ]);
}

/**
 * design §4's total order: (effective time, sequence, canonical claim bytes, source, idempotency
 * key, claim index). Arrival (`ingested_at`) is deliberately absent: replaying the log in any
 * order must walk the claims the same way. The last three fields name a claim uniquely, so this is
 * a total order on a de-duplicated set.
 */
export function compareClaims(a: Claim, b: Claim): number {
  return compareKeyed(a, sortKey(a), b, sortKey(b));
}

function compareKeyed(a: Claim, ka: SortKey, b: Claim, kb: SortKey): number {
  return (
    (ka.time < kb.time ? -1 : ka.time > kb.time ? 1 : 0) ||
    compareSequence(a.sequence, b.sequence) ||
    compareStrings(bytesOf(a, ka), bytesOf(b, kb)) ||
    compareStrings(a.source, b.source) ||
    compareStrings(a.idempotency_key, b.idempotency_key) ||
    a.index - b.index
  );
}

/**
 * A claim's parsed time and canonical bytes, computed at most once per claim object (the bytes only
 * when a comparison reaches them, as a tie on time and sequence is rare): a sort compares each
 * claim O(log n) times, and serializing it on every comparison made sorting a 10,000-claim key the
 * largest part of its fold. Claims are immutable values, so the cache cannot go stale.
 */
type SortKey = { time: number; bytes: string | null };
const sortKeys = new WeakMap<Claim, SortKey>();
function sortKey(c: Claim): SortKey {
  let k = sortKeys.get(c);
  if (!k) sortKeys.set(c, (k = { time: Date.parse(c.effective_from), bytes: null }));
  return k;
}

/** A claim's canonical bytes, serialized only when two claims tie on time and sequence. */
function bytesOf(c: Claim, k: SortKey): string {
  return (k.bytes ??= claimBytes(c));
}

type Versioned = Pick<LineageVersion, 'occurred_at' | 'sequence' | 'source' | 'idempotency_key'>;

/** Order of the versions of one lineage: (occurred_at, sequence, source, idempotency key). */
export function compareVersions(a: Versioned, b: Versioned): number {
  return (
    compareInstants(a.occurred_at, b.occurred_at) ||
    compareSequence(a.sequence, b.sequence) ||
    compareStrings(a.source, b.source) ||
    compareStrings(a.idempotency_key, b.idempotency_key)
  );
}

/** A set of claims in the total order, one per (source, idempotency key, index). */
export function orderClaims(claims: readonly Claim[]): Claim[] {
  const byRef = new Map<string, Claim>();
  for (const c of claims) {
    // An array of strings and a number: plain JSON is already canonical, and much cheaper.
    const id = JSON.stringify([c.source, c.idempotency_key, c.index]);
    const seen = byRef.get(id);
    // The same reference always carries the same claim; if a caller ever passes two different
    // ones, keep the smaller so the result still does not depend on input order.
    if (!seen || compareStrings(canonicalJson(c), canonicalJson(seen)) < 0) byRef.set(id, c);
  }
  // Each claim's key looked up once, not at each of the sort's n log n comparisons.
  const keyed = [...byRef.values()].map((c) => ({ c, k: sortKey(c) }));
  keyed.sort((x, y) => compareKeyed(x.c, x.k, y.c, y.k));
  return keyed.map((x) => x.c);
}

/** Versions in order, one per (source, idempotency key). */
export function orderVersions(versions: readonly LineageVersion[]): LineageVersion[] {
  const byId = new Map<string, LineageVersion>();
  for (const v of versions) {
    const id = canonicalJson([v.source, v.idempotency_key]);
    const seen = byId.get(id);
    if (!seen || compareStrings(canonicalJson(v), canonicalJson(seen)) < 0) byId.set(id, v);
  }
  return [...byId.values()].sort(compareVersions);
}
