import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { inStoredYears, Instant, subjectFault } from './episode.js';

/** The schema as it was before an instant written as toISOString writes it was kept as sent. */
const ParsedAgain = z.iso.datetime({ offset: true }).transform((s) => new Date(s).toISOString());

const pad = (n: number, width: number) => String(n).padStart(width, '0');

// Date-times in the shapes clients send, valid or not: any digits in each field (days past the
// month's end, hour 24, second 60), with or without fractions, with Z or an offset.
const written = fc
  .record({
    year: fc.integer({ min: 0, max: 9999 }),
    month: fc.integer({ min: 0, max: 13 }),
    day: fc.integer({ min: 0, max: 32 }),
    hour: fc.integer({ min: 0, max: 25 }),
    minute: fc.integer({ min: 0, max: 60 }),
    second: fc.integer({ min: 0, max: 61 }),
    fraction: fc.constantFrom('', '.', '.0', '.12', '.123', '.1234', '.999999', '.000'),
    zone: fc.constantFrom('Z', 'z', '+00:00', '-05:30', '+14:00', '+0100', ''),
  })
  .map((d) => `${pad(d.year, 4)}-${pad(d.month, 2)}-${pad(d.day, 2)}T${pad(d.hour, 2)}:${pad(d.minute, 2)}:${pad(d.second, 2)}${d.fraction}${d.zone}`);

describe('Instant', () => {
  it('accepts and writes every date-time as parsing it again does', () => {
    fc.assert(
      fc.property(fc.oneof(written, fc.date({ min: new Date('0000-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }).map((d) => d.toISOString()), fc.string()), (s) => {
        const before = ParsedAgain.safeParse(s);
        const now = Instant.safeParse(s);
        // Less the instants outside the years the log stores.
        expect(now.success).toBe(before.success && inStoredYears(before.data));
        if (now.success && before.success) expect(now.data).toBe(before.data);
      }),
      { numRuns: 20_000 },
    );
  });

  it('keeps an instant written as toISOString writes it', () => {
    expect(Instant.parse('2026-01-01T10:00:00.000Z')).toBe('2026-01-01T10:00:00.000Z');
    expect(Instant.parse('2024-02-29T23:59:59.999Z')).toBe('2024-02-29T23:59:59.999Z');
    expect(Instant.safeParse('2026-02-29T00:00:00.000Z').success).toBe(false);
    expect(Instant.parse('2026-01-01T10:00:00Z')).toBe('2026-01-01T10:00:00.000Z');
    expect(Instant.parse('2026-01-01T10:00:00.000+02:00')).toBe('2026-01-01T08:00:00.000Z');
  });

  it('refuses an instant outside the years 0001–9999 once in UTC', () => {
    expect(Instant.safeParse('0000-06-01T00:00:00Z').success).toBe(false);
    expect(Instant.safeParse('0001-01-01T00:30:00+01:00').success).toBe(false);
    expect(Instant.safeParse('9999-12-31T23:30:00-01:00').success).toBe(false);
    expect(Instant.parse('0001-01-01T00:00:00Z')).toBe('0001-01-01T00:00:00.000Z');
    expect(Instant.parse('9999-12-31T23:59:59.999Z')).toBe('9999-12-31T23:59:59.999Z');
  });
});

describe('subjectFault', () => {
  it('names a character no reader sees, or one that reorders what is shown, and a space at an end', () => {
    for (const [name, shown] of [
      ['service:billing\u200b', 'U+200B'],
      ['service:bil\u00adling', 'U+00AD'],
      ['service:\u202egnillib', 'U+202E'],
      ['service:billing\u2066', 'U+2066'],
      ['service:billing\u200f', 'U+200F'],
      ['service:billing\u3164', 'U+3164'],
      ['service:billing\u{e0041}\u{e0042}', 'U+E0041'],
      ['service:billing\t', 'U+0009'],
      ['service:billing\u2028', 'U+2028'],
      ['service:billing\u{1d173}', 'U+1D173'],
      ['service:billing\ufff9', 'U+FFF9'],
      ['service:billing\u0600', 'U+0600'],
      ['service:bill\u2800ing', 'U+2800'],
      ['service\u00a0billing', 'U+00A0'],
      ['service\u3000billing', 'U+3000'],
      ['service:bil\u200cling', 'U+200C'],
      ['service:billing\ufe0f', 'U+FE0F'],
      ['service:billing\u{e0100}', 'U+E0100'],
      ['team:\u200d👩', 'U+200D'],
    ] as const) {
      expect(subjectFault(name), name).toContain(shown);
    }
    expect(subjectFault(' service:billing')).toContain('white space at its start or end');
    expect(subjectFault('service:billing\u00a0')).toContain('U+00A0');
    expect(subjectFault('service:billing ')).toContain('white space at its start or end');
  });

  it('leaves names as written: inner spaces, joiners of Persian and emoji, variation selectors, other scripts', () => {
    for (const name of ['team:two words', 'user:می\u200cخواهم', 'team:👩\u200d💻', 'team:❤\ufe0f', 'user:Zoë', 'user:Zoe\u0308', 'service:billing']) {
      expect(subjectFault(name), name).toBeNull();
    }
  });
});
