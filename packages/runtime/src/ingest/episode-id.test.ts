import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newEpisodeId } from './episode-id.js';

describe('newEpisodeId', () => {
  it('is a version-7 UUID whose first 48 bits are the time given', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 48 - 1 }), (now) => {
        const id = newEpisodeId(now);
        expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(now);
      }),
    );
  });

  it('sorts as text in the order of its times, and never repeats', () => {
    const times = [0, 1, 255, 256, 1_700_000_000_000, 1_700_000_000_001, Date.now(), 2 ** 48 - 1];
    const ids = times.map((t) => newEpisodeId(t));
    expect([...ids].sort()).toEqual(ids);
    const many = new Set(Array.from({ length: 10_000 }, () => newEpisodeId(42)));
    expect(many.size).toBe(10_000);
  });
});
