import { combineDigests, updateStateHash } from '@canon/core';

export const COUNTERS = ['episodes_processed', 'memories_created', 'memories_updated', 'memories_superseded', 'conflicts_opened', 'tombstoned'] as const;
export type Counters = Record<(typeof COUNTERS)[number], number>;

export const zeroCounters = (): Counters => ({
  episodes_processed: 0,
  memories_created: 0,
  memories_updated: 0,
  memories_superseded: 0,
  conflicts_opened: 0,
  tombstoned: 0,
});

/**
 * One user's part of a compile of a subject that holds personal memories: what the compile counted
 * of that user's personal episodes and memories, and the sum of the digests of that user's personal
 * memories once it was done (a part of the subject's state_hash).
 */
export interface PersonalPart {
  counters: Counters;
  sum: string;
}

/**
 * Kept on a result under a symbol: never serialized (JSON leaves symbol keys out), so no answer,
 * log line, job result or audit row carries another user's part by mistake; `seenBy` reads it.
 */
export const PERSONAL_PARTS: unique symbol = Symbol('personal parts');

export type Parts = ReadonlyMap<string, PersonalPart>;
type WithParts = { [PERSONAL_PARTS]?: Parts };
/** What `seenBy` tells: a compile's counters and its state_hash (`CompileResult`, among others). */
export type Counted = Counters & { state_hash: string };

export function partsOf(result: Counted): Parts | undefined {
  return (result as WithParts)[PERSONAL_PARTS];
}

export function withParts<T extends Counted>(result: T, parts: Parts | undefined): T {
  if (parts === undefined || parts.size === 0) {
    delete (result as WithParts)[PERSONAL_PARTS];
    return result;
  }
  (result as WithParts)[PERSONAL_PARTS] = parts;
  return result;
}

/**
 * The parts of a subject's personal memories as they stand (`sums`, per owner the sum of their
 * digests), with what this compile counted for each owner (`counted`): an owner whose memories are
 * all gone keeps its counters with an empty sum.
 */
export function partsFrom(sums: ReadonlyMap<string, string>, counted: ReadonlyMap<string, Counters> = new Map()): Parts {
  const parts = new Map<string, PersonalPart>();
  for (const [owner, sum] of sums) parts.set(owner, { counters: counted.get(owner) ?? zeroCounters(), sum });
  for (const [owner, counters] of counted) if (!parts.has(owner)) parts.set(owner, { counters, sum: combineDigests([]) });
  return parts;
}

/** Adds a memory's digest to its owner's list, when the memory is a personal one. */
export function notePersonalDigest(into: Map<string, string[]>, key: { scope: string; owner: string | null }, digest: string): void {
  if (key.scope !== 'personal' || key.owner === null) return;
  const list = into.get(key.owner);
  if (list) list.push(digest);
  else into.set(key.owner, [digest]);
}

/** Per owner, the sum of their memories' digests. */
export function sumsOf(digests: ReadonlyMap<string, readonly string[]>): Map<string, string> {
  return new Map([...digests].map(([owner, list]) => [owner, combineDigests(list)]));
}

/**
 * Per-owner sums after a compile removed and added these digests (`updateStateHash` per owner, as
 * the subject's state_hash is kept); an owner left with no memory is dropped.
 */
export function updateSums(
  sums: ReadonlyMap<string, string>,
  removed: ReadonlyMap<string, readonly string[]>,
  added: ReadonlyMap<string, readonly string[]>,
): Map<string, string> {
  const out = new Map(sums);
  for (const owner of new Set([...removed.keys(), ...added.keys()])) {
    out.set(owner, updateStateHash(out.get(owner) ?? EMPTY, removed.get(owner) ?? [], added.get(owner) ?? []));
  }
  for (const [owner, sum] of out) if (sum === EMPTY) out.delete(owner);
  return out;
}

const EMPTY = combineDigests([]);

/**
 * Two steps of one compile (chunks), as one: counters added, and the sums of the later step, which
 * read the subject after the earlier one.
 */
export function laterParts(a: Parts | undefined, b: Parts | undefined): Parts | undefined {
  if (!a) return b;
  const out = new Map<string, PersonalPart>();
  for (const [owner, part] of b ?? new Map<string, PersonalPart>()) out.set(owner, { counters: addCounters(a.get(owner)?.counters, part.counters), sum: part.sum });
  for (const [owner, part] of a) if (!out.has(owner)) out.set(owner, { counters: part.counters, sum: combineDigests([]) });
  return out;
}

function addCounters(a: Counters | undefined, b: Counters): Counters {
  const out = { ...b };
  if (a) for (const k of COUNTERS) out[k] += a[k];
  return out;
}

/** The view of an answer any key of the workspace may read (a job's result): no user's personal part. */
export const WORKSPACE_VIEW: { readonly user: null } = Object.freeze({ user: null });

/**
 * A compile's result as a key of `user` (null: a key of no user, or an answer any key of the
 * workspace may read) may see it: other users' personal episodes and memories are left out of the
 * counters, and their memories' digests out of the state_hash. The state_hash is then that of the
 * memories the key sees, so it moves with what the key can recall and not with another user's
 * personal writes (design §7).
 */
export function seenBy<T extends Counted>(result: T, user: string | null): T {
  const parts = partsOf(result);
  const { [PERSONAL_PARTS]: _parts, ...rest } = result as T & WithParts;
  const plain = rest as T;
  if (!parts) return plain;
  const hidden = [...parts].filter(([owner]) => owner !== user).map(([, part]) => part);
  if (hidden.length === 0) return plain;
  const out = { ...plain };
  for (const part of hidden) for (const k of COUNTERS) out[k] -= part.counters[k];
  out.state_hash = updateStateHash(plain.state_hash, hidden.map((p) => p.sum), []);
  return out;
}
