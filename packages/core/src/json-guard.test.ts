import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonFault, stringFault, type JsonFault } from './json-guard.js';
import { jsonValues } from './test-support.js';

/**
 * The walk as it was before paths were built lazily, kept as the reference: every fault it found,
 * at the path it gave, is what clients have been told since input limits existed.
 */
function eagerJsonFault(value: unknown, maxDepth: number): JsonFault | null {
  const stack: Array<[unknown, string, number]> = [[value, '', 0]];
  while (stack.length > 0) {
    const [v, path, depth] = stack.pop()!;
    if (typeof v === 'string') {
      const fault = stringFault(v);
      if (fault) return { path, message: fault };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) return { path, message: `is nested deeper than ${maxDepth} levels` };
    const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i -= 1) {
      const [k, x] = entries[i]!;
      const at = path === '' ? k : `${path}.${k}`;
      if (!Array.isArray(v)) {
        const fault = stringFault(k);
        if (fault) return { path: at, message: `key ${fault}` };
      }
      stack.push([x, at, depth + 1]);
    }
  }
  return null;
}

/** Strings that are sometimes faulty: a NUL, a lone surrogate of either half, dots and empty keys that shape a path. */
const text = fc.string({ unit: fc.oneof(fc.constantFrom('\u0000', '\ud800', '\udfff', '.', 'a', 'é', '\ud83d\ude00'), fc.string({ minLength: 1, maxLength: 1 })), maxLength: 6 });
const json = jsonValues({ strings: text, keys: fc.oneof(text, fc.constantFrom('', '__proto__', '0')), maxLength: 4 });

describe('jsonFault', () => {
  it('finds the fault the eager walk found, at the same path, or none when it found none', () => {
    fc.assert(
      fc.property(json, fc.integer({ min: 0, max: 6 }), (value, maxDepth) => {
        expect(jsonFault(value, maxDepth)).toEqual(eagerJsonFault(value, maxDepth));
      }),
      { numRuns: 3000 },
    );
  });

  it('names the path of a deep fault, through arrays and objects', () => {
    expect(jsonFault({ episodes: [{ body: { text: 'ok' } }, { body: { text: 'bad\u0000' } }] })).toEqual({
      path: 'episodes.1.body.text',
      message: 'must not contain U+0000',
    });
    expect(jsonFault({ a: { ['b\ud800']: 1 } })).toEqual({ path: 'a.b\ud800', message: 'key must be well-formed Unicode (it holds a lone surrogate)' });
    expect(jsonFault([[[1]]], 2)).toEqual({ path: '0.0', message: 'is nested deeper than 2 levels' });
    expect(jsonFault({ fine: ['yes', 1, null, { deep: true }] })).toBeNull();
    // What JSON.parse makes of 1e400 and -1e400.
    expect(jsonFault(JSON.parse('{"body":{"claims":[{"value":-1e400}],"n":1e400}}'))).toEqual({ path: 'body.claims.0.value', message: 'is a number beyond the range of a double' });
    expect(jsonFault({ max: Number.MAX_VALUE, tiny: 5e-324 })).toBeNull();
  });

  it('refuses a value nested 100,000 deep without overflowing the stack', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    expect(jsonFault(deep)?.message).toBe('is nested deeper than 32 levels');
  });
});
