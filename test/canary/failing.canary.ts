// Deliberately failing: `.ci/run` runs this file alone through `npm test` (CANON_TEST_CANARY=1)
// and fails CI unless the run reports exactly this one failure and exits non-zero. It goes
// through the real global setup and a real database, as every test of the suite does.
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { createTestDatabase } from '@canon/testing';

const db = await createTestDatabase();
afterAll(() => db.drop());

it('fails on purpose', async () => {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const { rows } = await client.query<{ two: number }>('SELECT 1 + 1 AS two');
  await client.end();
  expect(rows[0]!.two).toBe(3);
});
