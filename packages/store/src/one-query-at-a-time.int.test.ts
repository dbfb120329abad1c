import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@canon/testing';
import { createPool } from './db.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.drop());

it('runs statements sent before the answers before them in order, without node-postgres queueing them (no pg@9 warning on stderr)', async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.message);
  process.on('warning', onWarning);
  const pool = createPool(db.url);
  try {
    const client = await pool.connect();
    try {
      await client.query('CREATE TEMP TABLE seq (n int)');
      // Sent at once, as a compile sends its next read and its writes: each must see the ones before.
      const sent = Array.from({ length: 20 }, (_, i) => client.query('INSERT INTO seq SELECT $1::int WHERE (SELECT count(*) FROM seq) = $1::int RETURNING n', [i]));
      const failing = client.query('SELECT 1/0');
      const after = client.query('SELECT count(*)::int AS n FROM seq');
      expect((await Promise.all(sent)).map((r) => r.rows[0]?.n)).toEqual(Array.from({ length: 20 }, (_, i) => i));
      await expect(failing).rejects.toThrow(/division by zero/);
      expect((await after).rows[0].n).toBe(20);
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
    await new Promise((r) => setImmediate(r));
    process.off('warning', onWarning);
  }
  expect(warnings.filter((m) => m.includes('already executing a query'))).toEqual([]);
});
