import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { useStoreDatabase } from '@canon/testing';
import type { Pool } from './db.js';
import { sqlLiteral } from './literal.js';

let pool: Pool;
useStoreDatabase((p) => {
  pool = p;
});

describe('sqlLiteral', () => {
  it('reads back as the string it was, whatever it holds but U+0000', async () => {
    const odd = ["o'brien", 'a\\b', "\\'; SELECT 1; --", "E'x'", '$$', '"', '日本', '\u{1F600}', ''];
    const { rows } = await pool.query(`SELECT ARRAY[${odd.map(sqlLiteral).join(', ')}]::text[] AS v`);
    expect(rows[0].v).toEqual(odd);
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\u0000')), async (s) => {
        expect((await pool.query(`SELECT ${sqlLiteral(s)}::text AS v`)).rows[0].v).toBe(s);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses U+0000, which would end the query text', () => {
    expect(() => sqlLiteral('a\u0000b')).toThrow(RangeError);
  });
});
