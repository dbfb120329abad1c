import { describe, expect, it } from 'vitest';
import { parseCursor } from './cursor.js';

describe('parseCursor', () => {
  it('reads both numbers in decimal, leading zeros and all', () => {
    expect(parseCursor('01707.010')).toEqual({ tx: '1707', position: '10' });
    expect(parseCursor('1707.10')).toEqual({ tx: '1707', position: '10' });
    expect(parseCursor('0.0')).toEqual({ tx: '0', position: '0' });
  });

  it('refuses what is not two numbers that fit their columns', () => {
    for (const bad of ['1707', '1707.', '.10', '0x10.1', '1e3.1', '-1.1', '18446744073709551616.0', '0.9223372036854775808']) expect(parseCursor(bad), bad).toBeNull();
    expect(parseCursor('18446744073709551615.9223372036854775807')).not.toBeNull();
  });
});
