import { describe, expect, it } from 'vitest';
import { loadConfig, type Runtime } from '@canon/runtime';
import { createTestDatabase, createTestRuntime } from '@canon/testing';

const ep = (key: string, subject: string, scope: 'workspace' | 'personal' = 'workspace') => ({
  idempotency_key: key,
  subject,
  scope,
  body: { claims: [{ predicate: `fact ${key}`, value: 'v' }] },
});

/** A runtime without workers (jobs stay queued) over a database of its own, closed and dropped after `fn`. */
async function withRuntime(env: Record<string, string>, fn: (runtime: Runtime) => Promise<void>): Promise<void> {
  const db = await createTestDatabase();
  const runtime = await createTestRuntime(loadConfig(env, { databaseUrl: db.url }), { migrate: false, workers: false });
  try {
    await fn(runtime);
  } finally {
    await runtime.close();
    await db.drop();
  }
}

/** The queued compile jobs by subject, and whether each is due within ten minutes (pulled forward) or debounced. */
async function queuedCompiles(runtime: Runtime): Promise<Array<{ subject: string; soon: boolean }>> {
  const { rows } = await runtime.pool.query<{ subject: string; soon: boolean }>(
    `SELECT data->>'subject' AS subject, start_after < now() + interval '10 minutes' AS soon
     FROM pgboss.job WHERE name = 'compile' AND state = 'created' ORDER BY 1`,
  );
  return rows;
}

describe('a subject whose backlog reaches CANON_COMPILE_AFTER', () => {
  it('has its compile job moved to now, counting every user’s waiting episodes; a smaller backlog stays debounced', async () => {
    await withRuntime({ CANON_COMPILE_DEBOUNCE_SECONDS: '3600', CANON_COMPILE_AFTER: '3' }, async (runtime) => {
      const alice = await runtime.authenticate((await runtime.createKey({ workspace: 'default', role: 'member', user: 'alice' })).key);
      const bob = await runtime.authenticate((await runtime.createKey({ workspace: 'default', role: 'member', user: 'bob' })).key);
      // Two personal episodes of alice's, that bob cannot see, then bob's third: the backlog is three.
      await runtime.ingest(alice, [ep('a1', 'service:busy', 'personal'), ep('a2', 'service:busy', 'personal')]);
      await runtime.ingest(bob, [ep('b1', 'service:busy'), ep('b2', 'service:quiet')]);
      expect(await queuedCompiles(runtime)).toEqual([
        { subject: 'service:busy', soon: true },
        { subject: 'service:quiet', soon: false },
      ]);
    });
  });

  it('is reached by the batch that brings the backlog to the threshold, not before; re-sent episodes add nothing', async () => {
    await withRuntime({ CANON_COMPILE_DEBOUNCE_SECONDS: '3600', CANON_COMPILE_AFTER: '5' }, async (runtime) => {
      const soon = async () => (await queuedCompiles(runtime)).filter((j) => j.soon).map((j) => j.subject);
      const owner = await runtime.authenticate((await runtime.createKey({ workspace: 'default', role: 'owner' })).key);
      // Two subjects in each batch: each batch's count is carried per subject.
      await runtime.ingest(owner, [ep('1', 'service:a'), ep('2', 'service:a'), ep('3', 'service:b')]);
      await runtime.ingest(owner, [ep('4', 'service:a'), ep('5', 'service:a'), ep('6', 'service:b')]);
      expect(await soon()).toEqual([]);
      // Four of service:a's episodes again, and a fifth: only the fifth is new.
      await runtime.ingest(owner, [ep('1', 'service:a'), ep('2', 'service:a'), ep('4', 'service:a'), ep('5', 'service:a'), ep('7', 'service:b')]);
      expect(await soon()).toEqual([]);
      await runtime.ingest(owner, [ep('8', 'service:a')]);
      expect(await soon()).toEqual(['service:a']);
      const { rows } = await runtime.pool.query(
        `SELECT subject, count(*)::int AS waiting, sum(batch_count)::int AS counted FROM pending GROUP BY 1 ORDER BY 1`,
      );
      expect(rows).toEqual([
        { subject: 'service:a', waiting: 5, counted: 5 },
        { subject: 'service:b', waiting: 3, counted: 3 },
      ]);
      expect(await backlog(runtime)).toEqual([
        { subject: 'service:a', episodes: 5 },
        { subject: 'service:b', episodes: 3 },
      ]);
    });
  });

  it('counts from what a compile leaves: a compiled backlog starts again from nothing', async () => {
    await withRuntime({ CANON_COMPILE_DEBOUNCE_SECONDS: '3600', CANON_COMPILE_AFTER: '3' }, async (runtime) => {
      const owner = await runtime.authenticate((await runtime.createKey({ workspace: 'default', role: 'owner' })).key);
      await runtime.ingest(owner, [ep('1', 'service:a'), ep('2', 'service:a')]);
      expect(await backlog(runtime)).toEqual([{ subject: 'service:a', episodes: 2 }]);
      await runtime.compile(owner, { subject: 'service:a' });
      expect(await backlog(runtime)).toEqual([]);
      // Two more: two waiting, not four.
      await runtime.ingest(owner, [ep('3', 'service:a'), ep('4', 'service:a')]);
      expect((await queuedCompiles(runtime)).filter((j) => j.soon)).toEqual([]);
      await runtime.ingest(owner, [ep('5', 'service:a')]);
      expect((await queuedCompiles(runtime)).filter((j) => j.soon)).toEqual([{ subject: 'service:a', soon: true }]);
    });
  });

  it('keeps no row naming a subject erased whole, nor a user\'s episodes erased from one', async () => {
    await withRuntime({ CANON_COMPILE_DEBOUNCE_SECONDS: '3600' }, async (runtime) => {
      const owner = await runtime.authenticate((await runtime.createKey({ workspace: 'default', role: 'owner' })).key);
      const eve = await runtime.authenticate((await runtime.createKey({ workspace: 'default', role: 'member', user: 'eve' })).key);
      await runtime.ingest(owner, [ep('1', 'service:doomed'), ep('2', 'service:kept')]);
      await runtime.ingest(eve, [ep('e1', 'note:eve-only', 'personal'), ep('e2', 'service:kept')]);
      expect(await backlog(runtime)).toEqual([
        { subject: 'note:eve-only', episodes: 1 },
        { subject: 'service:doomed', episodes: 1 },
        { subject: 'service:kept', episodes: 2 },
      ]);
      await runtime.erase(owner, { subject: 'service:doomed' });
      await runtime.erase(owner, { user: 'eve' });
      // The rebuilds took what was left of service:kept.
      expect(await backlog(runtime)).toEqual([]);
    });
  });

  it('is added to and named only for the workspace the transaction is confined to', async () => {
    await withRuntime({ CANON_COMPILE_DEBOUNCE_SECONDS: '3600' }, async (runtime) => {
      const who = await runtime.authenticate((await runtime.createKey({ workspace: 'default', role: 'owner' })).key);
      await runtime.ingest(who, [ep('x1', 'service:x'), ep('x2', 'service:x')]);
      const client = await runtime.pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(`SELECT set_config('canon.workspace_id', 'elsewhere', true)`);
        const other = await client.query(`SELECT * FROM canon_backlog_add('default', ARRAY['service:x'], ARRAY[1], 1)`);
        await client.query(`SELECT set_config('canon.workspace_id', 'default', true)`);
        const own = await client.query(`SELECT s FROM canon_backlog_add('default', ARRAY['service:y', 'service:x'], ARRAY[1, 1], 2) AS s`);
        await client.query('ROLLBACK');
        expect(other.rows).toEqual([]);
        expect(own.rows).toEqual([{ s: 'service:x' }]);
      } finally {
        client.release();
      }
    });
  });
});

/** Each subject's backlog row, read as the owner the pool connects as. */
async function backlog(runtime: Runtime): Promise<Array<{ subject: string; episodes: number }>> {
  const { rows } = await runtime.pool.query<{ subject: string; episodes: number }>(`SELECT subject, episodes::int AS episodes FROM pending_backlog ORDER BY 1`);
  return rows;
}
