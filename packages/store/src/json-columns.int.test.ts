import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson } from '@canon/core';
import { useStoreDatabase } from '@canon/testing';
import type { Pool } from './db.js';
import { jsonColumn, jsonTextsColumn, rowsFromJsonColumns } from './json-columns.js';

let pool: Pool;
useStoreDatabase((p) => {
  pool = p;
});

// What a row of the statements that send their columns this way can hold: text of any content
// (but U+0000, refused at the door), numbers, booleans, timestamps as text, nulls, and JSON
// texts sent as json elements.
const text = fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\u0000'));
const json = fc.jsonValue({ maxDepth: 3 }).map((v) => canonicalJson(v as never));
const row = fc.record({
  t: fc.option(text, { nil: null }),
  n: fc.option(fc.integer(), { nil: null }),
  b: fc.option(fc.boolean(), { nil: null }),
  at: fc.option(fc.date({ min: new Date('1970-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString()), { nil: null }),
  j: json,
});

async function roundTrip(rows: ReadonlyArray<{ t: string | null; n: number | null; b: boolean | null; at: string | null; j: string }>) {
  const { rows: back } = await pool.query<{ t: string | null; n: number | null; b: boolean | null; at: string | null; j: string; ord: string }>(
    `SELECT u.t, u.n::int AS n, u.b::boolean AS b, to_char(u.at::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, u.j::text AS j, u.ord
       FROM ${rowsFromJsonColumns(1, ['text', 'text', 'text', 'text', 'json'], true)} AS u(t, n, b, at, j, ord) ORDER BY u.ord`,
    [jsonColumn(rows, (r) => r.t), jsonColumn(rows, (r) => r.n), jsonColumn(rows, (r) => r.b), jsonColumn(rows, (r) => r.at), jsonTextsColumn(rows, (r) => r.j)],
  );
  return back.map(({ ord: _, ...r }) => r);
}

describe('rows sent as JSON columns', () => {
  it('come back row by row as they were sent: text of any content, numbers, booleans, instants, nulls, JSON texts byte for byte', async () => {
    const odd = ['', 'NULL', 'null', '{a,b}', '"quoted"', 'back\\slash', "it's", ' spaced ', 'tab\there', 'line\nbreak', '日本', '\u{1F600}', '\\u0041'];
    const rows = odd.map((t, i) => ({ t, n: i - 5, b: i % 2 === 0, at: null, j: canonicalJson({ text: t, i } as never) }));
    expect(await roundTrip(rows)).toEqual(rows);
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 20 }), async (rows) => {
        expect(await roundTrip(rows)).toEqual(rows);
      }),
      { numRuns: 100 },
    );
  });

  it('are as many as were sent, an empty batch none', async () => {
    expect(await roundTrip([])).toEqual([]);
  });
});
