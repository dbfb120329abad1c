import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isoOfTimestamptz } from './db.js';

/** A timestamptz as PostgreSQL prints it in a session in UTC: trailing zeros of the fraction dropped. */
function printed(ms: number, micros: number): string {
  const iso = new Date(ms).toISOString();
  const fraction = `${iso.slice(20, 23)}${String(micros).padStart(3, '0')}`.replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''}+00`;
}

describe('isoOfTimestamptz', () => {
  it('reads a UTC timestamptz as Date would, to the millisecond, cut not rounded', () => {
    const min = Date.UTC(1, 0, 1);
    const max = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
    fc.assert(
      fc.property(fc.integer({ min, max }), fc.integer({ min: 0, max: 999 }), (ms, micros) => {
        const v = printed(ms, micros);
        expect(isoOfTimestamptz(v)).toBe(new Date(v).toISOString());
        expect(isoOfTimestamptz(v)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 2000 },
    );
  });

  it('reads the forms it does not rearrange through Date: another offset, a year past 9999', () => {
    expect(isoOfTimestamptz('2026-12-05 08:14:04.5+01')).toBe('2026-12-05T07:14:04.500Z');
    expect(isoOfTimestamptz('2026-12-05 02:14:04.123456-05')).toBe('2026-12-05T07:14:04.123Z');
    expect(isoOfTimestamptz('2026-12-05 12:44:04+05:30')).toBe('2026-12-05T07:14:04.000Z');
    expect(isoOfTimestamptz('2026-12-05 07:14:04+00')).toBe('2026-12-05T07:14:04.000Z');
    expect(isoOfTimestamptz('2026-12-05 07:14:04.9999+00')).toBe('2026-12-05T07:14:04.999Z');
    expect(isoOfTimestamptz('10000-01-01 00:00:00+00')).toBe(new Date('10000-01-01 00:00:00+00').toISOString());
  });
});
