import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enterWorkspace, withSystem, withWorkspace } from '@canon/runtime/internals';
import { startTestCanon, type TestCanon } from '@canon/testing';

let canon: TestCanon;
const TABLES = ['episodes', 'pending', 'claims', 'memories', 'memory_values', 'evidence', 'claim_decisions', 'episode_markers', 'subjects', 'compile_runs'];

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
        tx.query(`INSERT INTO pending (workspace_id, subject, episode_id, scope) VALUES ('beta', 's', gen_random_uuid(), 'workspace')`),
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

describe('personal scope in the database', () => {
  const SUBJECT = 'note:alice-only-7f3c';
  let alice: { key: string; principal: import('@canon/runtime').Principal };
  let bob: { key: string; principal: import('@canon/runtime').Principal };

  beforeAll(async () => {
    alice = await canon.key('member', { workspace: 'alpha', user: 'alice' });
    bob = await canon.key('member', { workspace: 'alpha', user: 'bob' });
    await canon.runtime.ingest(
      alice.principal,
      [{ idempotency_key: 'alice-note', subject: SUBJECT, scope: 'personal', body: { claims: [{ predicate: 'favourite editor', value: 'alice-marker-91b2' }] } }],
      { compile: 'wait' },
    );
    // A workspace episode of the same subject: the subject is shared, its personal rows are not.
    await canon.runtime.ingest(bob.principal, [{ idempotency_key: 'bob-note', subject: 'service:shared-name', scope: 'personal', body: { text: 'bob-marker-22c1' } }], { compile: 'wait' });
  });

  it('shows a personal row and everything derived from it to its owner only, even to a query with no filter', async () => {
    const rowsAs = (user: string | null) =>
      withWorkspace(canon.runtime.pool, { workspace_id: 'alpha', user }, async (tx) => {
        const out: Record<string, string> = {};
        for (const t of TABLES) out[t] = JSON.stringify((await tx.query(`SELECT * FROM ${t}`)).rows);
        return out;
      });
    const [asAlice, asBob, asNobody] = [await rowsAs('alice'), await rowsAs('bob'), await rowsAs(null)];
    for (const t of ['episodes', 'claims', 'memories', 'memory_values', 'evidence', 'claim_decisions', 'episode_markers', 'subjects', 'compile_runs']) {
      // evidence and decisions name the episode's key; the other tables its subject.
      expect(asAlice[t], t).toContain(t === 'evidence' || t === 'claim_decisions' ? 'alice-note' : SUBJECT);
      expect(asBob[t], t).not.toContain('alice-marker-91b2');
      expect(asBob[t], t).not.toContain('alice-note');
      expect(asBob[t], t).not.toContain(SUBJECT);
      expect(asNobody[t], t).not.toContain(SUBJECT);
      expect(asAlice[t], t).not.toContain('bob-marker-22c1');
    }
  });

  it('refuses to write a personal row for another user', async () => {
    await expect(
      withWorkspace(canon.runtime.pool, { workspace_id: 'alpha', user: 'bob' }, (tx) =>
        tx.query(`UPDATE memories SET status = status WHERE subject = $1 RETURNING id`, [SUBJECT]),
      ),
    ).resolves.toMatchObject({ rowCount: 0 });
  });

  it('lists and counts only what the key may see', async () => {
    const names = async (key: string) => ((await (await canon.request('/v1/subjects', { key })).json()) as { subjects: Array<{ subject: string; episodes: number; memories: number }> }).subjects;
    expect((await names(bob.key)).map((s) => s.subject)).not.toContain(SUBJECT);
    expect((await names(alice.key)).find((s) => s.subject === SUBJECT)).toMatchObject({ episodes: 1, memories: 1 });
    const shared = async (key: string) => (await names(key)).find((s) => s.subject === 'service:shared-name')!;
    expect((await shared(alice.key)).episodes).toBe((await shared(bob.key)).episodes - 1);
    const log = await canon.request(`/v1/episodes?subject=${encodeURIComponent(SUBJECT)}`, { key: bob.key });
    expect(await log.text()).not.toContain('alice');
  });

  it('answers a key taken by another user’s personal episode without naming it', async () => {
    const res = await canon.request('/v1/episodes', { key: bob.key, json: { idempotency_key: 'alice-note', subject: SUBJECT, body: { text: 'x' } } });
    expect(res.status).toBe(409);
    const text = await res.text();
    expect(text).toContain('taken');
    const ids = await withSystem(canon.runtime.pool, async (tx) => (await tx.query<{ id: string }>(`SELECT id FROM episodes WHERE idempotency_key = 'alice-note'`)).rows);
    expect(text).not.toContain(ids[0]!.id);
  });
});
