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

/**
 * Lets the request and system roles enqueue jobs inside their own transactions (a compile
 * enqueued with the rows that cause it). pg-boss installs its schema after our migrations, so
 * this runs after it starts — under the migration lock, since concurrent GRANTs on the same
 * objects fail with "tuple concurrently updated".
 */
export async function grantQueueAccess(pool: pg.Pool, schema: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      const s = client.escapeIdentifier(schema);
      const roles = 'canon_app, canon_system';
      await client.query(`GRANT USAGE ON SCHEMA ${s} TO ${roles}`);
      await client.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${s} TO ${roles}`);
      await client.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA ${s} TO ${roles}`);
      await client.query(`GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ${s} TO ${roles}`);
      await client.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${roles}`);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}
