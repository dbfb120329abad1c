import fc from 'fast-check';
import canonicalizeModule from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256 } from './hash.js';
import { EpisodeInput, toEnvelope } from './episode.js';
import { jsonValues } from './test-support.js';

// The reference: every digest, etag and memory id was computed with this package's bytes.
const canonicalize = canonicalizeModule as unknown as (value: unknown) => string | undefined;

/** Keys that a sorted copy cannot carry in order, mixed with ordinary ones. */
const key = fc.oneof(fc.string(), fc.constantFrom('0', '1', '10', '9', '01', '4294967295', '-1', '1.5', '__proto__', 'toJSON', 'constructor', '', 'a', 'B', 'é', '\ud83d\ude00'));
// Strings of any code point, lone surrogates too; a member left undefined is dropped, an undefined
// array element reads null, as JSON does.
const json = jsonValues({ strings: fc.oneof(fc.string(), fc.string({ unit: 'binary' })), keys: key, undefinedMembers: true });

describe('canonicalJson', () => {
  it('gives the bytes of the canonicalize package for any JSON value', () => {
    fc.assert(
      fc.property(json, (v) => {
        expect(canonicalJson(v)).toBe(canonicalize(v));
      }),
      { numRuns: 3000 },
    );
  });

  it('also for what JSON.parse makes of it (own __proto__ members, index-like keys)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const parsed: unknown = JSON.parse(JSON.stringify(v));
        expect(canonicalJson(parsed)).toBe(canonicalize(parsed));
      }),
      { numRuns: 2000 },
    );
    const tricky = JSON.parse('{"b":1,"__proto__":{"x":[1,{"10":2,"9":3}]},"a":{"2":null,"1":true,"z":"é"}}') as unknown;
    expect(canonicalJson(tricky)).toBe(canonicalize(tricky));
    expect(canonicalJson(tricky)).toBe('{"__proto__":{"x":[1,{"10":2,"9":3}]},"a":{"1":true,"2":null,"z":"é"},"b":1}');
  });

  it('also for values already in order, whole or holding values that are not', () => {
    // What a row stores is canonical JSON: read back, it is in order throughout, and is serialized
    // as it stands (no copy) unless a member below needs one.
    fc.assert(
      fc.property(json, json, (v, w) => {
        const ordered: unknown = JSON.parse(canonicalJson(v));
        expect(canonicalJson(ordered)).toBe(canonicalize(ordered));
        const mixed = { a: ordered, b: w, c: undefined, d: new Date(0), e: [ordered, undefined, w], f: ordered };
        expect(canonicalJson(mixed)).toBe(canonicalize(mixed));
        expect(canonicalJson([ordered, w, ordered])).toBe(canonicalize([ordered, w, ordered]));
      }),
      { numRuns: 2000 },
    );
  });

  it('sorts members by UTF-16 code units and spells numbers and strings as JSON does', () => {
    expect(canonicalJson({ b: [1e21, 0.1, -0, 1.5e-7], a: 'x\u2028"\ud800', A: null, é: true, '\ud83d\ude00': 1, '\uffff': 2 })).toBe(
      canonicalize({ b: [1e21, 0.1, -0, 1.5e-7], a: 'x\u2028"\ud800', A: null, é: true, '\ud83d\ude00': 1, '\uffff': 2 }),
    );
  });

  it('reads toJSON, holes and functions as the package does', () => {
    const d = new Date('2025-01-01T00:00:00.000Z');
    expect(canonicalJson({ at: d, list: [d] })).toBe(canonicalize({ at: d, list: [d] }));
    // eslint-disable-next-line no-sparse-arrays
    const holes = [1, , 3];
    expect(canonicalJson(holes)).toBe(canonicalize(holes));
    const withFunction = { a: 1, f: () => 1 };
    expect(canonicalJson(withFunction)).toBe(canonicalize(withFunction));
  });

  it('refuses what has no JSON form', () => {
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
    expect(() => canonicalJson({ a: Number.NaN })).toThrow('NaN is not allowed');
    expect(() => canonicalJson([Number.POSITIVE_INFINITY])).toThrow('Infinity is not allowed');
  });
});

describe('sha256', () => {
  it('is the SHA-256 of the UTF-8 bytes, in lowercase hex (stored key hashes and tombstones depend on it)', () => {
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    // A character outside ASCII is hashed as its UTF-8 bytes (C3 A9), not as UTF-16.
    expect(sha256('é')).toBe('4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c');
  });
});

describe('an envelope as toEnvelope builds it', () => {
  it('lists its members in canonical order already, so its canonical form is its plain JSON', () => {
    fc.assert(
      fc.property(
        fc.record({ scope: fc.constantFrom('workspace' as const, 'personal' as const), user: fc.option(fc.string({ minLength: 1 }), { nil: null }), text: fc.string(), sequence: fc.option(fc.nat(), { nil: undefined }) }),
        ({ scope, user, text, sequence }) => {
          const input = EpisodeInput.parse({ idempotency_key: 'k', subject: 's', scope: user === null ? 'workspace' : scope, body: { text }, ...(sequence === undefined ? {} : { sequence }) });
          const env = toEnvelope(input, 'w', { role: 'member', user });
          const keys = Object.keys(env);
          expect(keys).toEqual([...keys].sort());
          expect(canonicalJson(env)).toBe(JSON.stringify(env));
        },
      ),
    );
  });
});
