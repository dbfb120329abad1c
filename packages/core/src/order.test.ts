import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareInstants } from './order.js';

const instant = fc.date({ min: new Date('0001-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true });
const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

describe('compareInstants', () => {
  it('orders toISOString spellings (compared as strings) as the times they name', () => {
    fc.assert(
      fc.property(instant, instant, (a, b) => {
        expect(compareInstants(a.toISOString(), b.toISOString())).toBe(sign(a.getTime() - b.getTime()));
      }),
      { numRuns: 2000 },
    );
  });

  it('orders any other spelling of the same instants the same way', () => {
    const offset = (d: Date) => d.toISOString().replace('Z', '+00:00');
    fc.assert(
      fc.property(instant, instant, (a, b) => {
        expect(compareInstants(offset(a), b.toISOString())).toBe(sign(a.getTime() - b.getTime()));
        expect(compareInstants(a.toISOString(), offset(b))).toBe(sign(a.getTime() - b.getTime()));
      }),
      { numRuns: 500 },
    );
  });

  it('reads a time with an offset as that instant, not as its digits', () => {
    expect(compareInstants('2024-05-01T10:00:00.000+02:00', '2024-05-01T09:00:00.000Z')).toBe(-1);
    expect(compareInstants('2024-05-01T08:00:00.000Z', '2024-05-01T10:00:00+02:00')).toBe(0);
  });
});
