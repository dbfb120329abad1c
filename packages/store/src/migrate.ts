import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import type pg from 'pg';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../../migrations', import.meta.url));

// Arbitrary but fixed: every Canon process migrating any database takes this session lock,
// so two processes starting together apply the migrations once, one after the other.
const MIGRATION_LOCK = 7_236_001;

/** Applies the generated migrations under a session advisory lock. Returns what was applied. */
export async function migrateDatabase(pool: pg.Pool): Promise<{ applied: number }> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      const before = await countApplied(client);
      await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
      const after = await countApplied(client);
      return { applied: after - before };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}

async function countApplied(client: pg.PoolClient): Promise<number> {
  // Two statements: a query naming the table would fail to parse before the first migration.
  const { rows } = await client.query<{ t: string | null }>(`SELECT to_regclass('drizzle.__drizzle_migrations')::text AS t`);
  if (!rows[0]?.t) return 0;
  const count = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations');
  return count.rows[0]?.n ?? 0;
}
