import xxhash from 'xxhash-wasm';
import { hash } from 'node:crypto';
import canonicalizeModule from 'canonicalize';

// xxhash-wasm compiles its module asynchronously; ESM top-level await makes the
// hasher ready before any importer runs, so hashing stays a plain synchronous call.
const hasher = await xxhash();

// canonicalize is CommonJS with an ESM-style declaration; under NodeNext its default import is
// typed as the module namespace although at run time it is the function itself.
const canonicalizeJson = canonicalizeModule as unknown as (value: unknown) => string | undefined;

/** xxh64 of a UTF-8 string, as 16 lowercase hex digits. Fast, for comparison shortcuts. */
export function xxh64(text: string): string {
  return hasher.h64ToString(text);
}

/** SHA-256 (hex) for identities that must not collide: memory ids, key hashes. */
export function sha256(text: string): string {
  // The one-shot digest: no Hash object per call (ingest takes one per episode, for its erased-key check).
  return hash('sha256', text, 'hex');
}

/**
 * RFC 8785 (JCS) canonical JSON. `undefined` members are dropped, as JSON does.
 *
 * The same bytes as the `canonicalize` package, built faster: a copy of the value whose objects
 * have their members inserted in sorted order, serialized by the engine's JSON.stringify (which
 * keeps insertion order and spells strings and numbers as `canonicalize` does). That package
 * concatenates one string per member, which made hashing a 10,000-claim timeline (5 MB of JSON)
 * cost twenty times its JSON.stringify. What a copy cannot carry in order — a member named like
 * an array index (engines list those first, by number), `__proto__`, a hole in an array, a
 * function — goes to the package itself.
 */
export function canonicalJson(value: unknown): string {
  const copy = sortedCopy(value);
  const out = copy === UNSORTED ? canonicalizeJson(value) : (JSON.stringify(copy) as string | undefined);
  if (out === undefined) throw new TypeError('value has no JSON form');
  return out;
}

const UNSORTED = Symbol('unsorted');

/**
 * The value with every object's members in sorted order, copying only what is not so already:
 * an object whose members are in order and whose members' values need no copy is returned
 * itself, and so is an array of such values. A timeline read back from its row (stored as
 * canonical JSON) is in order throughout, and a resumed fold keeps most of it as it was read, so
 * hashing a hot key's 6 MB timeline need not copy it whole.
 */
function sortedCopy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(Number.isNaN(value) ? 'NaN is not allowed' : 'Infinity is not allowed');
    return typeof value === 'function' ? UNSORTED : value;
  }
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return sortedCopy(toJSON.call(value));
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i += 1) {
      const x: unknown = value[i];
      if (x === undefined && !(i in value)) return UNSORTED;
      const y = x === undefined || typeof x === 'symbol' ? null : sortedCopy(x);
      if (y === UNSORTED) return UNSORTED;
      if (out === null && y !== x) out = value.slice(0, i);
      if (out !== null) out[i] = y;
    }
    return out ?? value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let inOrder = true;
  for (let i = 0; i < keys.length; i += 1) {
    const k = keys[i]!;
    const c = k.charCodeAt(0);
    if ((c >= 48 && c <= 57) || k === '__proto__') return UNSORTED;
    if (i > 0 && !(keys[i - 1]! < k)) inOrder = false;
  }
  // Members already in order may be the object itself, until one of their values needs a copy;
  // JSON.stringify leaves out undefined and symbol members as the copy does.
  const order = inOrder ? keys : sortedKeys(keys);
  let out: Record<string, unknown> | null = inOrder ? null : {};
  for (let i = 0; i < order.length; i += 1) {
    const k = order[i]!;
    const x = record[k];
    if (x === undefined || typeof x === 'symbol') continue;
    const y = sortedCopy(x);
    if (y === UNSORTED) return UNSORTED;
    if (out === null && y !== x) out = membersBefore(record, order, i);
    if (out !== null) out[k] = y;
  }
  return out ?? value;
}

/** A copy of the members named by `order` before `end`, those JSON leaves out left out. */
function membersBefore(record: Record<string, unknown>, order: readonly string[], end: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let j = 0; j < end; j += 1) {
    const w = record[order[j]!];
    if (w !== undefined && typeof w !== 'symbol') out[order[j]!] = w;
  }
  return out;
}

/**
 * Length-prefixed join: ["a|b"] and ["a", "b"] give different strings, so parts
 * containing the separator can never collide with a different split.
 */
export function lengthPrefixed(parts: readonly string[]): string {
  return parts.map((p) => `${p.length}:${p}`).join('|');
}

/**
 * An object's own keys in code-unit order, as `Object.keys(o).sort()` gives them. Most objects
 * have a handful of keys, which an insertion sort orders without the work array that
 * Array.prototype.sort allocates per call (a third of what hashing a large timeline allocated).
 */
function sortedKeys(keys: string[]): string[] {
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i += 1) {
    const k = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > k) {
      keys[j + 1] = keys[j]!;
      j -= 1;
    }
    keys[j + 1] = k;
  }
  return keys;
}
