import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeJson } from './json-bytes.js';

const expected = (value: unknown) => {
  const text = JSON.stringify(value);
  return text === undefined ? null : Buffer.from(text);
};

// Long enough that the answer is encoded in pieces (above 96 K characters).
const big = (n: number, text: string) => Array.from({ length: n }, (_, i) => ({ i, text: `${text} ${i}`.repeat(1000), nested: { list: [i, null, true], text } }));

describe('encodeJson', () => {
  it('is JSON.stringify as UTF-8, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(Buffer.from(encodeJson(value) ?? [])).toEqual(expected(value) ?? Buffer.from([]));
      }),
      { numRuns: 500 },
    );
  });

  it('is JSON.stringify as UTF-8 for a large page, its pieces cut anywhere in its text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 20 }), fc.integer({ min: 50, max: 150 }), fc.jsonValue(), (text, n, other) => {
        const page = { subject: text, other, memories: big(n, text), empty: [], none: undefined, fn: () => 1, next: null };
        const bytes = encodeJson(page)!;
        expect(Buffer.from(bytes).equals(expected(page)!)).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  it('gives what JSON.stringify gives around toJSON, holes, undefined and a null prototype', () => {
    const date = new Date(Date.UTC(2026, 0, 2));
    const keyed = { toJSON: (key: string) => `key ${key}` };
    const holes: unknown[] = big(80, 'h');
    holes[90] = undefined;
    holes[95] = () => 1;
    holes.length = 100;
    const cases: unknown[] = [
      { memories: holes },
      { memories: big(100, 'd'), at: date },
      { memories: [...big(100, 'k'), keyed] },
      { memories: [keyed, ...big(100, 'k')] },
      { memories: Object.assign(big(100, 'a'), { toJSON: () => 'array' }) },
      Object.assign(Object.create(null) as object, { memories: big(100, 'n'), text: 'zürich 🚀' }),
      { toJSON: () => ({ memories: big(100, 't') }) },
      { only: undefined },
      {},
      [big(100, 'top')],
      'text',
      undefined,
    ];
    for (const value of cases) {
      const bytes = encodeJson(value);
      const want = expected(value);
      // Buffer.equals, not toEqual: a deep comparison of 700 KB byte by byte takes seconds.
      expect(bytes === null || want === null ? bytes === want : Buffer.from(bytes).equals(want)).toBe(true);
    }
  });
});
