import xxhash from 'xxhash-wasm';
import { createHash } from 'node:crypto';
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
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** RFC 8785 (JCS) canonical JSON. `undefined` members are dropped, as JSON does. */
export function canonicalJson(value: unknown): string {
  const out = canonicalizeJson(value);
  if (out === undefined) throw new TypeError('value has no JSON form');
  return out;
}

/**
 * Length-prefixed join: ["a|b"] and ["a", "b"] give different strings, so parts
 * containing the separator can never collide with a different split.
 */
export function lengthPrefixed(parts: readonly string[]): string {
  return parts.map((p) => `${p.length}:${p}`).join('|');
}
