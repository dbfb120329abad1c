import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createPool, databaseAnswers, ensureDatabase, openReadSnapshot, type Pool } from '@canon/store';
import { createTestDatabase, type TestDatabase } from '@canon/testing';

// The store's connection-level operations: the snapshot an export streams from, the readiness
// probe, and creating the embedded server's database.

let db: TestDatabase;
let pool: Pool;
beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url);
  await pool.query('CREATE TABLE probe (n int)');
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe('openReadSnapshot', () => {
  it('sees the database as at its first read, however long it is held, and writes nothing', async () => {
    await pool.query('INSERT INTO probe VALUES (1)');
    const snapshot = await openReadSnapshot(pool);
    try {
      const count = async () => (await snapshot.tx.query<{ n: number }>('SELECT count(*)::int AS n FROM probe')).rows[0]!.n;
      expect(await count()).toBe(1);
      await pool.query('INSERT INTO probe VALUES (2)');
      expect(await count()).toBe(1);
      await expect(snapshot.tx.query('INSERT INTO probe VALUES (3)')).rejects.toThrow(/read-only transaction/);
    } finally {
      await snapshot.release();
    }
    // Released without `end`: rolled back, and the connection is clean for its next user.
    expect((await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM probe')).rows[0]!.n).toBe(2);
    const next = await openReadSnapshot(pool);
    await next.end();
    await next.release();
    expect(pool.idleCount).toBeGreaterThan(0);
  });
});

describe('databaseAnswers', () => {
  it('is true while the database answers and false once it cannot', async () => {
    expect(await databaseAnswers(pool)).toBe(true);
    const closed = createPool(db.url);
    await closed.end();
    expect(await databaseAnswers(closed)).toBe(false);
  });
});

describe('ensureDatabase', () => {
  it('creates a database once, even when two callers race', async () => {
    const name = `${new URL(db.url).pathname.slice(1)}_made`;
    const admin = new URL(db.url);
    admin.pathname = '/postgres';
    try {
      await Promise.all([ensureDatabase(admin.toString(), name), ensureDatabase(admin.toString(), name)]);
      await ensureDatabase(admin.toString(), name);
      const client = new pg.Client({ connectionString: admin.toString() });
      await client.connect();
      try {
        expect((await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount).toBe(1);
      } finally {
        await client.end();
      }
    } finally {
      const client = new pg.Client({ connectionString: admin.toString() });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
      await client.end();
    }
  });
});
