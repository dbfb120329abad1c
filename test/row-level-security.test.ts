import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enterWorkspace, withSystem, withWorkspace } from '@canon/runtime';
import { startTestCanon, type TestCanon } from '@canon/testing';

let canon: TestCanon;
const TABLES = ['episodes', 'pending', 'claims', 'memories', 'memory_values', 'evidence', 'dispositions', 'episode_markers', 'subjects', 'compile_runs'];

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  for (const ws of ['alpha', 'beta']) {
    const { principal } = await canon.key('owner', { workspace: ws });
    await canon.runtime.ingest(
      principal,
      [1, 2, 3].map((i) => ({ idempotency_key: `${ws}-${i}`, subject: 'service:shared-name', body: { claims: [{ predicate: `p${i}`, value: `${ws} says ${i}` }] } })),
      { compile: 'wait' },
    );
  }
});
afterAll(() => canon.close());

describe('row-level security', () => {
  it('confines a query that forgets its workspace_id filter to the transaction’s workspace, as the non-owner role', async () => {
    const seen = await withWorkspace(canon.runtime.pool, 'alpha', async (tx) => {
      const who = await tx.query<{ u: string }>('SELECT current_user AS u');
      const counts: Record<string, string[]> = {};
      for (const t of TABLES) {
        const { rows } = await tx.query<{ workspace_id: string }>(`SELECT DISTINCT workspace_id FROM ${t}`);
        counts[t] = rows.map((r) => r.workspace_id);
      }
      const values = await tx.query<{ search_text: string }>('SELECT search_text FROM memory_values ORDER BY 1');
      return { user: who.rows[0]!.u, counts, values: values.rows.map((r) => r.search_text) };
    });
    expect(seen.user).toBe('canon_app');
    // Every table holds both workspaces' rows (pending is empty once compiled).
    for (const t of TABLES) expect(seen.counts[t], t).toEqual(t === 'pending' ? [] : ['alpha']);
    expect(seen.values.every((v) => v.includes('alpha says'))).toBe(true);
  });

  it('refuses to write a row into another workspace', async () => {
    await expect(
      withWorkspace(canon.runtime.pool, 'alpha', (tx) =>
        tx.query(`INSERT INTO pending (workspace_id, subject, episode_id) VALUES ('beta', 's', gen_random_uuid())`),
      ),
    ).rejects.toThrow(/row-level security/);
    const updated = await withWorkspace(canon.runtime.pool, 'alpha', (tx) => tx.query(`UPDATE subjects SET memories = 999 WHERE workspace_id = 'beta'`));
    expect(updated.rowCount).toBe(0);
  });

  it('shows nothing to the non-owner role when no workspace is set', async () => {
    const client = await canon.runtime.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT set_config('role', 'canon_app', true)`);
      const { rows } = await client.query('SELECT count(*)::int AS n FROM episodes');
      expect(rows[0].n).toBe(0);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  });

  it('lets the separate system role of cross-workspace jobs see every workspace', async () => {
    const workspaces = await withSystem(canon.runtime.pool, async (tx) => {
      const { rows } = await tx.query<{ workspace_id: string }>('SELECT DISTINCT workspace_id FROM episodes ORDER BY 1');
      return rows.map((r) => r.workspace_id);
    });
    expect(workspaces).toEqual(['alpha', 'beta']);
  });

  it('is forced and enabled on every workspace table', async () => {
    const { rows } = await canon.runtime.pool.query<{ relname: string; relrowsecurity: boolean; relforcerowsecurity: boolean }>(
      `SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind = 'r' AND (EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'workspace_id') OR c.relname = 'workspaces')`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(17);
    for (const r of rows) expect([r.relname, r.relrowsecurity, r.relforcerowsecurity]).toEqual([r.relname, true, true]);
  });

  it('keeps enterWorkspace to the transaction: the next one on the same connection is back to the owner', async () => {
    const client = await canon.runtime.pool.connect();
    try {
      await client.query('BEGIN');
      await enterWorkspace(client, 'beta');
      expect((await client.query('SELECT current_user AS u')).rows[0].u).toBe('canon_app');
      await client.query('COMMIT');
      expect((await client.query('SELECT current_user AS u')).rows[0].u).not.toBe('canon_app');
    } finally {
      client.release();
    }
  });
});
