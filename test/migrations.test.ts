import { afterAll, describe, expect, it } from 'vitest';
import { getTableConfig, type PgTable } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import { createPool, migrateDatabase, schema } from '@canon/store';
import { createRuntime, loadConfig } from '@canon/runtime';
import { createEmptyDatabase, type TestDatabase } from '@canon/testing';

const dbs: TestDatabase[] = [];
afterAll(async () => {
  for (const db of dbs) await db.drop();
});

describe('migrations', () => {
  it('turn an empty database into exactly the schema the code declares', async () => {
    const db = await createEmptyDatabase();
    dbs.push(db);
    const pool = createPool(db.url);
    try {
      expect((await migrateDatabase(pool)).applied).toBeGreaterThan(0);
      expect((await migrateDatabase(pool)).applied).toBe(0);
      expect(await liveSchema(pool)).toEqual(declaredSchema());
      const { rows } = await pool.query(`SELECT extname FROM pg_extension WHERE extname = 'pg_trgm'`);
      expect(rows).toHaveLength(1);
      const triggers = await pool.query(`SELECT tgname FROM pg_trigger WHERE tgrelid = 'episodes'::regclass AND NOT tgisinternal ORDER BY 1`);
      expect(triggers.rows.map((r) => r.tgname)).toEqual(['episodes_append_only', 'episodes_no_truncate']);
    } finally {
      await pool.end();
    }
  });

  it('run once when two runtimes start together on an empty database', async () => {
    const db = await createEmptyDatabase();
    dbs.push(db);
    const config = loadConfig({}, { databaseUrl: db.url });
    const [a, b] = await Promise.all([createRuntime(config), createRuntime(config)]);
    try {
      const { rows } = await a.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations');
      const { rows: files } = await a.pool.query<{ hash: string }>('SELECT DISTINCT hash FROM drizzle.__drizzle_migrations');
      expect(rows[0]!.n).toBe(files.length);
      expect(rows[0]!.n).toBeGreaterThanOrEqual(2);
      // pg-boss installed its own schema too.
      const boss = await a.pool.query(`SELECT 1 FROM information_schema.schemata WHERE schema_name = 'pgboss'`);
      expect(boss.rows).toHaveLength(1);
      // Both bootstrap on a fresh database: exactly one owner key is minted.
      const [ka, kb] = await Promise.all([a.bootstrap(), b.bootstrap()]);
      expect([ka, kb].filter(Boolean)).toHaveLength(1);
      expect((await a.listKeys()).map((k) => [k.workspace_id, k.role])).toEqual([['default', 'owner']]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

const tables = (): PgTable[] =>
  (Object.values(schema) as unknown[]).filter((v): v is PgTable => typeof v === 'object' && v !== null && Symbol.for('drizzle:IsDrizzleTable') in v);

/** Tables, columns (type, nullability), indexes and checks as the code declares them. */
function declaredSchema() {
  const out: Record<string, unknown> = {};
  for (const t of tables()) {
    const c = getTableConfig(t);
    out[c.name] = {
      columns: Object.fromEntries(c.columns.map((col) => [col.name, { type: col.getSQLType().replace(/"/g, ''), notNull: col.notNull }])),
      indexes: c.indexes.map((i) => i.config.name).sort(),
      checks: c.checks.map((k) => k.name).sort(),
    };
  }
  return out;
}

/** The same facts read back from the migrated database's catalog. */
async function liveSchema(pool: pg.Pool) {
  const out: Record<string, { columns: Record<string, unknown>; indexes: string[]; checks: string[] }> = {};
  const cols = await pool.query<{ table_name: string; column_name: string; type: string; not_null: boolean }>(
    `SELECT c.relname AS table_name, a.attname AS column_name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null
     FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1, a.attnum`,
  );
  for (const r of cols.rows) {
    out[r.table_name] ??= { columns: {}, indexes: [], checks: [] };
    out[r.table_name]!.columns[r.column_name] = { type: r.type.replace(' with time zone', ' with time zone'), notNull: r.not_null };
  }
  const idx = await pool.query<{ table_name: string; name: string }>(
    `SELECT tablename AS table_name, indexname AS name FROM pg_indexes WHERE schemaname = 'public'
     AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE contype IN ('p', 'u')) ORDER BY 2`,
  );
  for (const r of idx.rows) out[r.table_name]?.indexes.push(r.name);
  const chk = await pool.query<{ table_name: string; name: string }>(
    `SELECT c.relname AS table_name, k.conname AS name FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND k.contype = 'c' ORDER BY 2`,
  );
  for (const r of chk.rows) out[r.table_name]?.checks.push(r.name);
  return out;
}
