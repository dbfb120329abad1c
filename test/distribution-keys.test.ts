import fs from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@canon/testing';

// docs/scaling.md's plan for outgrowing one PostgreSQL (partitioning, or Citus with
// `workspace_id` as the distribution column) holds only while the schema keeps to it. This reads
// the schema the migrations really build, from PostgreSQL's catalog.

/**
 * The unique indexes that do not lead with workspace_id, each with the reason docs/scaling.md
 * gives. Both tables become Citus reference tables (one copy on every node), so their unique
 * indexes stay global and need no distribution column.
 */
const NOT_BY_WORKSPACE: Readonly<Record<string, string>> = {
  // The workspace table itself: its id is the workspace id.
  workspaces_pkey: 'workspaces',
  // Authentication finds a key by its hash before it knows the workspace.
  api_keys_key_hash_uq: 'api_keys',
};
const REFERENCE_TABLES = new Set(Object.values(NOT_BY_WORKSPACE));

let db: TestDatabase;
let sql: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
});

afterAll(async () => {
  await sql?.end();
  await db?.drop();
});

const tables = async () =>
  (
    await sql.query<{ table: string; has_workspace_id: boolean }>(
      `SELECT c.relname AS table,
              EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'workspace_id' AND NOT a.attisdropped) AS has_workspace_id
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
       ORDER BY 1`,
    )
  ).rows;

describe('every key can be distributed by workspace', () => {
  it('leads every primary key and unique index with workspace_id, except the documented reference tables', async () => {
    // indkey[0] is 0 for an expression: such an index leads with no column at all.
    const { rows } = await sql.query<{ index: string; table: string; first: string | null }>(
      `SELECT i.relname AS index, t.relname AS table, a.attname AS first
       FROM pg_index x
       JOIN pg_class i ON i.oid = x.indexrelid
       JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
       LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = x.indkey[0]
       WHERE n.nspname = 'public' AND (x.indisunique OR x.indisprimary)
       ORDER BY 2, 1`,
    );
    expect(rows.length).toBeGreaterThan(15);
    const astray = rows.filter((r) => r.first !== 'workspace_id').map((r) => ({ index: r.index, table: r.table }));
    expect(astray).toEqual(Object.entries(NOT_BY_WORKSPACE).map(([index, table]) => ({ index, table })).sort((a, b) => (a.table < b.table ? -1 : 1)));
  });

  it('gives every other table a workspace_id, and references only reference tables across workspaces', async () => {
    const all = await tables();
    expect(all.filter((t) => !t.has_workspace_id && !REFERENCE_TABLES.has(t.table))).toEqual([]);
    // A foreign key between two distributed tables must include the distribution column; one to a
    // reference table need not.
    const { rows: keys } = await sql.query<{ name: string; from: string; to: string; columns: string[] }>(
      `SELECT c.conname AS name, f.relname AS from, t.relname AS to,
              array(SELECT a.attname::text FROM unnest(c.conkey) k JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k) AS columns
       FROM pg_constraint c JOIN pg_class f ON f.oid = c.conrelid JOIN pg_class t ON t.oid = c.confrelid
       JOIN pg_namespace n ON n.oid = f.relnamespace
       WHERE n.nspname = 'public' AND c.contype = 'f'`,
    );
    expect(keys.filter((k) => !REFERENCE_TABLES.has(k.to) && !k.columns.includes('workspace_id'))).toEqual([]);
  });

  it('confines every table to its workspace with row-level security', async () => {
    const { rows } = await sql.query<{ table: string; forced: boolean; isolation: string | null }>(
      `SELECT c.relname AS table, c.relrowsecurity AND c.relforcerowsecurity AS forced,
              (SELECT p.qual FROM pg_policies p WHERE p.schemaname = 'public' AND p.tablename = c.relname
                 AND p.policyname = 'workspace_isolation' AND p.roles = '{canon_app}') AS isolation
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
       ORDER BY 1`,
    );
    const column = (table: string) => (table === 'workspaces' ? 'id' : 'workspace_id');
    for (const r of rows) {
      expect({ table: r.table, forced: r.forced, isolation: r.isolation }).toEqual({
        table: r.table,
        forced: true,
        isolation: `(${column(r.table)} = current_setting('canon.workspace_id'::text, true))`,
      });
    }
  });

  it('names every table in docs/scaling.md, and the reference tables as such', async () => {
    const doc = fs.readFileSync('docs/scaling.md', 'utf8');
    for (const t of await tables()) expect(doc, t.table).toContain(`\`${t.table}\``);
    for (const index of Object.keys(NOT_BY_WORKSPACE)) expect(doc, index).toContain(`\`${index}\``);
    const reference = doc.split('\n\n').find((paragraph) => paragraph.startsWith('**Reference tables**')) ?? '';
    for (const table of REFERENCE_TABLES) expect(reference, table).toContain(`\`${table}\``);
  });
});
