import { describe, expect, it } from 'vitest';
import { key, KeyPartError } from './key.js';

describe('key', () => {
  it('is the same for the same parts', () => {
    expect(key(['git', 'canon', 'commit', 'abc'])).toBe(key(['git', 'canon', 'commit', 'abc']));
  });

  it('length-prefixes parts, so a separator inside a part never collides with a split', () => {
    expect(key(['a|b'])).not.toBe(key(['a', 'b']));
    expect(key(['ab', 'c'])).not.toBe(key(['a', 'bc']));
    expect(key(['', 'a'])).not.toBe(key(['a', '']));
  });

  it('changes with any part', () => {
    const base = ['github', 'o', 'r', 'issue', '1', '2020-01-01T00:00:00.000Z', 'h'];
    const keys = new Set(base.map((_, i) => key(base.map((p, j) => (i === j ? `${p}x` : p)))));
    expect(keys.size).toBe(base.length);
    expect(keys.has(key(base))).toBe(false);
  });

  it('refuses undefined, null and non-string parts', () => {
    expect(() => key(['a', undefined as unknown as string])).toThrow(KeyPartError);
    expect(() => key([null as unknown as string])).toThrow(/part 0 is null/);
    expect(() => key(['a', 1 as unknown as string])).toThrow(/number/);
    expect(() => key([])).toThrow(KeyPartError);
  });
});
