import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createPool, storedForm, type Pool } from '@canon/store';
import { createTestDatabase, type TestDatabase } from '@canon/testing';

// A compile folds the claims it has just written as the claims table would give them back; these
// hold `storedForm` to what the claims column actually gives back, member order included.
let db: TestDatabase;
let pool: Pool;
let claimColumnType: string;
beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url);
  const { rows } = await pool.query<{ type: string }>(
    `SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = 'claims'::regclass AND attname = 'claim'`,
  );
  claimColumnType = rows[0]!.type;
  await pool.query(`CREATE TABLE stored_form_probe (n bigint PRIMARY KEY, v ${claimColumnType} NOT NULL)`);
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

// Through a table with the claims column's type, written and read as insertClaims and
// claimsOfMemories do.
async function throughColumn(values: readonly unknown[]): Promise<unknown[]> {
  await pool.query('TRUNCATE stored_form_probe');
  await pool.query('INSERT INTO stored_form_probe (n, v) SELECT n, v FROM json_array_elements($1::json) WITH ORDINALITY AS t(v, n)', [JSON.stringify(values)]);
  const { rows } = await pool.query<{ v: unknown }>('SELECT v FROM stored_form_probe ORDER BY n');
  return rows.map((r) => r.v);
}

// The exact text, so that member order counts, not only deep equality.
const spelled = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v));

describe('storedForm', () => {
  it('keeps members in the order the column gives them back, at every depth', async () => {
    const values = [
      { workspace_id: 'w', episode_id: 'e', index: 0, b: 1, ab: 2, a: 3, é: 4, z: 5, '\u{1F600}': 6, '\uFFFF': 7 },
      { fact_key: { workspace_id: 'w', qualifiers: { region: 'eu', env: 'prod', ab: 'x', b: 'y' } }, settles: [{ source: 's', idempotency_key: 'k', index: 1 }] },
      { 10: 'a', 2: 'b', x: 'c' },
    ];
    expect(spelled(values.map(storedForm))).toEqual(spelled(await throughColumn(values)));
  });

  it('drops what JSON drops and gives -0 back as 0', async () => {
    const value = { a: undefined, b: [undefined, -0, Number.NaN], c: -0, d: () => 1 };
    expect(spelled([storedForm(value)])).toEqual(spelled(await throughColumn([value])));
    expect(Object.is((storedForm(value) as unknown as { c: number }).c, 0)).toBe(true);
  });

  it('gives any JSON value back as the column does', async () => {
    // PostgreSQL refuses U+0000 and lone surrogates in JSON text, as ingest does.
    const text = fc.string({ unit: 'grapheme', maxLength: 6 }).filter((s) => !s.includes('\u0000'));
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), text, tie('array'), tie('object')),
      array: fc.array(tie('value'), { maxLength: 4 }),
      object: fc.dictionary(text, tie('value'), { maxKeys: 6 }),
    })).value;
    await fc.assert(
      fc.asyncProperty(fc.array(json, { minLength: 1, maxLength: 20 }), async (values) => {
        expect(spelled(values.map(storedForm))).toEqual(spelled(await throughColumn(values)));
      }),
      { numRuns: 50 },
    );
  });
});
