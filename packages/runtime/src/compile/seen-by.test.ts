import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { COMPILER_VERSION, combineDigests } from '@canon/core';
import { laterParts, partsFrom, partsOf, seenBy, sumsOf, updateSums, withParts, zeroCounters, type Counters } from './seen-by.js';

// A real digest is never zero: a sum an owner's memories could never make.
const digest = fc.stringMatching(/^[0-9a-f]{64}$/).filter((d) => /[1-9a-f]/.test(d));

function resultOf(digests: ReadonlyMap<string | null, readonly string[]>, counted: ReadonlyMap<string, Counters>) {
  const all = [...digests.values()].flat();
  const total = zeroCounters();
  for (const c of counted.values()) for (const k of Object.keys(total) as Array<keyof Counters>) total[k] += c[k];
  total.episodes_processed += 2; // the workspace's own part
  const personal = new Map([...digests].filter((e): e is [string, readonly string[]] => e[0] !== null));
  return withParts({ subject: 's', ...total, state_hash: combineDigests(all), compiler_version: COMPILER_VERSION }, partsFrom(sumsOf(personal), counted));
}

describe('seenBy', () => {
  it('tells each user the hash of the memories that user sees, and the workspace part of the counters with their own', () => {
    fc.assert(
      fc.property(fc.array(digest, { maxLength: 4 }), fc.array(digest, { maxLength: 4 }), fc.array(digest, { maxLength: 4 }), (shared, ann, bob) => {
        const annCounted = { ...zeroCounters(), episodes_processed: 3, memories_created: ann.length };
        const r = resultOf(new Map([[null, shared], ['ann', ann], ['bob', bob]]), new Map([['ann', annCounted]]));
        expect(seenBy(r, 'ann').state_hash).toBe(combineDigests([...shared, ...ann]));
        expect(seenBy(r, 'bob').state_hash).toBe(combineDigests([...shared, ...bob]));
        expect(seenBy(r, null).state_hash).toBe(combineDigests(shared));
        expect(seenBy(r, 'ann').episodes_processed).toBe(5);
        expect(seenBy(r, 'bob').episodes_processed).toBe(2);
        expect(seenBy(r, 'bob').memories_created).toBe(0);
      }),
    );
  });

  it('leaves no trace of another user in what is serialized, before or after', () => {
    const r = resultOf(new Map([[null, ['a'.repeat(64)]], ['ann-secret-id', ['b'.repeat(64)]]]), new Map([['ann-secret-id', { ...zeroCounters(), memories_created: 1 }]]));
    expect(JSON.stringify(r)).not.toContain('ann-secret-id');
    const told = seenBy(r, 'bob');
    expect(partsOf(told)).toBeUndefined();
    expect(Object.getOwnPropertySymbols(told)).toEqual([]);
    expect(JSON.stringify(told)).toBe(JSON.stringify({ ...r, memories_created: 0, state_hash: combineDigests(['a'.repeat(64)]) }));
  });

  it('is the identity on a subject no user holds personal memories in', () => {
    const r = resultOf(new Map([[null, ['c'.repeat(64)]]]), new Map());
    expect(partsOf(r)).toBeUndefined();
    expect(seenBy(r, 'ann')).toEqual(r);
  });
});

describe('laterParts', () => {
  it('adds the counters of two chunks and keeps the sums the later one read', () => {
    const one = { ...zeroCounters(), episodes_processed: 1, memories_created: 1 };
    const a = partsFrom(sumsOf(new Map([['ann', ['1'.padStart(64, '0')]], ['eve', ['2'.padStart(64, '0')]]])), new Map([['ann', one], ['eve', one]]));
    // The later chunk finds eve's memory gone (an unlink merged it away) and ann's changed.
    const b = partsFrom(sumsOf(new Map([['ann', ['3'.padStart(64, '0')]]])), new Map([['ann', { ...zeroCounters(), episodes_processed: 1, memories_updated: 1 }]]));
    const both = laterParts(a, b)!;
    expect(both.get('ann')).toEqual({ counters: { ...zeroCounters(), episodes_processed: 2, memories_created: 1, memories_updated: 1 }, sum: '3'.padStart(64, '0') });
    expect(both.get('eve')).toEqual({ counters: one, sum: combineDigests([]) });
    expect(laterParts(undefined, b)).toBe(b);
  });
});

describe('updateSums', () => {
  it("keeps each owner's sum as a compile keeps the state_hash: the sum of the digests there are", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('ann', 'bob'), digest), { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 4 }), fc.array(fc.tuple(fc.constantFrom('ann', 'eve'), digest), { maxLength: 4 }), (before, gone, added) => {
        const group = (pairs: ReadonlyArray<readonly [string, string]>) => {
          const m = new Map<string, string[]>();
          for (const [o, d] of pairs) m.set(o, [...(m.get(o) ?? []), d]);
          return m;
        };
        const removed = [...new Set(gone.filter((i) => i < before.length))].map((i) => before[i]!);
        const after = [...before.filter((_, i) => !gone.includes(i)), ...added];
        const kept = updateSums(sumsOf(group(before)), group(removed), group(added));
        expect(kept).toEqual(sumsOf(group(after)));
      }),
    );
  });
});
