import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRuntime, loadConfig } from '@canon/runtime';
import { compileMany, QUEUES, scheduledCompile } from '@canon/runtime/internals';
import { createTestDatabase, runCanon, startTestCanon, type TestCanon, type TestDatabase } from '@canon/testing';

// One subject that cannot compile must not stop the others: `{all}`, the nightly job and
// `verify --all` go on and name it; a job dead-letters it with its error.
const episode = (key: string, subject: string, value: string) => ({
  idempotency_key: key,
  subject,
  occurred_at: '2024-05-01T09:00:00Z',
  body: { claims: [{ predicate: 'deploy day', value }] },
});

/**
 * An episode the door would refuse today, written straight into the log as an older version of
 * Canon (or a restored backup) might have left it: its claim's predicate is not a string.
 */
async function poison(canon: Pick<TestCanon, 'runtime'>, subject: string): Promise<void> {
  const { rows } = await canon.runtime.pool.query<{ id: string }>(
    `INSERT INTO episodes (workspace_id, id, source, idempotency_key, subject, scope, owner, kind, body, occurred_at,
        occurred_at_defaulted, observed_at, sequence, lineage, snapshot, actor_role, actor_user, actor_key, source_ref, content_hash)
     VALUES ('default', gen_random_uuid(), 'api', 'poison', $1, 'workspace', NULL, 'claim', '{"claims":[{"predicate":7,"value":"x"}]}',
        now(), false, NULL, NULL, 'api:poison', false, 'owner', NULL, NULL, NULL, '0')
     RETURNING id`,
    [subject],
  );
  await canon.runtime.pool.query(`INSERT INTO pending (workspace_id, subject, episode_id, scope) VALUES ('default', $1, $2, 'workspace')`, [subject, rows[0]!.id]);
}

describe('a poisoned subject is isolated', () => {
  let canon: TestCanon;
  let owner: string;
  beforeAll(async () => {
    canon = await startTestCanon({}, { CANON_COMPILE_DEBOUNCE_SECONDS: '3600' });
    owner = (await canon.key('owner')).key;
    for (const [i, s] of ['service:a', 'service:b', 'service:c'].entries()) {
      expect((await canon.request('/v1/episodes', { key: owner, json: episode(`e${i}`, s, 'Tuesday') })).status).toBe(200);
    }
    await poison(canon, 'service:poisoned');
  }, 120_000);
  afterAll(() => canon.close());

  it('a synchronous {all} compiles the others and names the failed subject', async () => {
    const res = await canon.request('/v1/compile', { key: owner, json: { all: true } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.results.map((r: { subject: string }) => r.subject).sort()).toEqual(['service:a', 'service:b', 'service:c']);
    expect(body.failed).toHaveLength(1);
    expect(body.failed[0].subject).toBe('service:poisoned');
    expect(body.failed[0].error).toMatch(/\w/);
  });

  it('an {all} job completes, reports the failed subject, and dead-letters it with its error', async () => {
    const queued = await canon.request('/v1/compile', { key: owner, json: { all: true, async: true } });
    expect(queued.status).toBe(202);
    const { job_id } = await queued.json();
    let job: { state: string; result?: { failed: Array<{ subject: string }>; subjects: number } } = { state: 'created' };
    for (let i = 0; i < 200 && job.state !== 'completed' && job.state !== 'failed'; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      job = await (await canon.request(`/v1/jobs/${job_id}`, { key: owner })).json();
    }
    expect(job.state).toBe('completed');
    expect(job.result!.subjects).toBe(4);
    expect(job.result!.failed.map((f) => f.subject)).toEqual(['service:poisoned']);
    const dead = await (await canon.request('/v1/jobs/dead', { key: owner })).json();
    const letters = dead.jobs as Array<{ subject: string; error: unknown }>;
    expect(letters.map((d) => d.subject)).toContain('service:poisoned');
    expect(JSON.stringify(letters.find((d) => d.subject === 'service:poisoned')!.error)).toMatch(/\w/);
  });

  it('a failed compile job tells its poller the error\'s class and message, not the server\'s stack', async () => {
    const id = await canon.runtime.boss!.send(QUEUES.compile, { workspace_id: 'default', subject: 'service:poisoned' });
    let job: { state: string; error?: unknown } = { state: 'created' };
    for (let i = 0; i < 300 && job.state !== 'retry' && job.state !== 'failed'; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      job = await (await canon.request(`/v1/jobs/${id}`, { key: owner })).json();
    }
    expect(['retry', 'failed']).toContain(job.state);
    expect(job.error).toMatchObject({ message: expect.any(String) });
    expect(JSON.stringify(job.error)).not.toMatch(/stack|node_modules|\bat \//);
  });

  it('the other subjects still verify', async () => {
    for (const subject of ['service:a', 'service:b', 'service:c']) {
      const report = await (await canon.request('/v1/verify', { key: owner, json: { subject } })).json();
      expect(report.ok).toBe(true);
    }
  });
});

describe('a subject erased while a many-subject compile runs', () => {
  it('is named neither among the failures the job keeps nor in a dead letter', async () => {
    const canon = await startTestCanon({ queue: false });
    try {
      const owner = await canon.key('owner');
      expect((await canon.request('/v1/episodes', { key: owner.key, json: episode('k0', 'service:kept', 'Tuesday') })).status).toBe(200);
      await poison(canon, 'service:erased-meanwhile');
      const letters: string[] = [];
      // The failure is told (as a dead letter would be sent), then the subject is erased before the job ends.
      const result = await compileMany(canon.runtime.pool, 'default', ['service:erased-meanwhile', 'service:kept'], null, undefined, async (_ws, failed) => {
        letters.push(failed.subject);
        await canon.runtime.erase(owner.principal, { subject: failed.subject });
      });
      expect(letters).toEqual(['service:erased-meanwhile']);
      expect(result.failed).toEqual([]);
      expect(result.results.map((r) => r.subject)).toEqual(['service:kept']);
    } finally {
      await canon.close();
    }
  });
});

describe('one {all} job per workspace at a time', () => {
  let canon: TestCanon;
  beforeAll(async () => {
    // A queue with no workers in this process: the first job stays queued.
    canon = await startTestCanon({ workers: false });
  }, 120_000);
  afterAll(() => canon.close());

  it('a second request while one is queued answers the queued job’s id', async () => {
    const owner = (await canon.key('owner')).key;
    const other = (await canon.key('owner', { workspace: 'other' })).key;
    const ask = async (key: string) => {
      const res = await canon.request('/v1/compile', { key, json: { all: true, async: true } });
      expect(res.status).toBe(202);
      return (await res.json()).job_id as string;
    };
    const first = await ask(owner);
    const again = await Promise.all([ask(owner), ask(owner), ask(owner)]);
    expect(new Set(again)).toEqual(new Set([first]));
    // Another workspace has its own.
    expect(await ask(other)).not.toBe(first);
  });
});

describe('the running {all} job', () => {
  let canon: TestCanon;
  beforeAll(async () => {
    // Workers on, and no compile of the ingest's own: the {all} job does the work.
    canon = await startTestCanon({}, { CANON_COMPILE_DEBOUNCE_SECONDS: '3600', CANON_COMPILE_AFTER: '1000000000' });
  }, 120_000);
  afterAll(() => canon.close());

  it('is what a second request answers while it runs, however many finished before it; it answers totals, not a result per subject', async () => {
    const owner = await canon.key('owner');
    const ask = async () => {
      const res = await canon.request('/v1/compile', { key: owner.key, json: { all: true, async: true } });
      expect(res.status).toBe(202);
      return (await res.json()).job_id as string;
    };
    const job = async (id: string) => (await (await canon.request(`/v1/jobs/${id}`, { key: owner.key })).json()) as { state: string; result?: Record<string, unknown> };
    const settle = async (id: string) => {
      for (let i = 0; i < 600; i += 1) {
        const j = await job(id);
        if (j.state === 'completed') return j;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`job ${id} never completed`);
    };
    // A history of finished {all} jobs, each over a few subjects.
    await canon.runtime.ingest(owner.principal, ['s:1', 's:2', 's:3'].map((subject, i) => ({ idempotency_key: `h-${i}`, subject, body: { claims: [{ predicate: 'replicas', value: i }] } })));
    const finished: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const id = await ask();
      await settle(id);
      finished.push(id);
    }
    expect(new Set(finished).size).toBe(5);
    const done = await job(finished[0]!);
    expect(done.result).toMatchObject({ subjects: 3, failed: [] });
    expect(done.result).toHaveProperty('totals');
    expect(done.result).not.toHaveProperty('results');

    // Then one that takes a while: 3,000 statements on one key.
    const batch = Array.from({ length: 3000 }, (_, i) => ({
      idempotency_key: `slow-${i}`,
      subject: 'service:slow',
      occurred_at: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(),
      body: { text: `The primary database host is db-${i}.internal.` },
    }));
    for (let i = 0; i < batch.length; i += 1000) await canon.runtime.ingest(owner.principal, batch.slice(i, i + 1000));
    const running = await ask();
    let state = '';
    for (let i = 0; i < 600 && state !== 'active'; i += 1) {
      state = (await job(running)).state;
      if (state !== 'active') await new Promise((r) => setTimeout(r, 10));
    }
    expect(state).toBe('active');
    expect(new Set(await Promise.all([ask(), ask(), ask()]))).toEqual(new Set([running]));
    expect((await settle(running)).result).toMatchObject({ subjects: 4 });
  });
});

describe('the server answers while a large subject compiles', () => {
  let canon: TestCanon;
  beforeAll(async () => {
    canon = await startTestCanon({ queue: false });
  }, 120_000);
  afterAll(() => canon.close());

  it('health checks are answered before the compile of 3,000 episodes finishes', async () => {
    const owner = await canon.key('owner');
    const writers = await Promise.all(Array.from({ length: 10 }, (_, i) => canon.key('agent', { user: `w${i}` })));
    for (const [w, writer] of writers.entries()) {
      const batch = Array.from({ length: 300 }, (_, i) => ({
        idempotency_key: `big-${w}-${i}`,
        subject: 'service:big',
        occurred_at: new Date(Date.UTC(2025, 0, 1) + (w * 300 + i) * 60_000).toISOString(),
        body: { text: `The primary database host is db-${w}-${i}.internal.` },
      }));
      await canon.runtime.ingest(writer.principal, batch);
    }
    let finished = false;
    const compile = canon.runtime.compile(owner.principal, { subject: 'service:big' }).finally(() => {
      finished = true;
    });
    const answeredDuring: number[] = [];
    while (!finished) {
      // A health check as a prober sends it: every 10 ms, each on its own turn of the event loop.
      await new Promise((r) => setTimeout(r, 10));
      const res = await canon.app.request('/healthz');
      if (!finished) answeredDuring.push(res.status);
    }
    const out = await compile;
    expect(out.async).toBe(false);
    expect(answeredDuring.length).toBeGreaterThan(0);
    expect(new Set(answeredDuring)).toEqual(new Set([200]));
  }, 120_000);
});

describe('the command line and the nightly job go on past a poisoned subject', () => {
  let db: TestDatabase;
  let home: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    db = await createTestDatabase();
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-isolation-'));
    const runtime = await createRuntime(loadConfig({}, { databaseUrl: db.url }), { queue: false, migrate: false });
    const { key, principal } = await runtime.createKey({ workspace: 'default', role: 'owner' }).then(async (k) => ({ key: k.key, principal: await runtime.authenticate(k.key) }));
    await runtime.ingest(principal, [episode('g1', 'service:good', 'Tuesday'), episode('n1', 'service:nightly', 'Friday')]);
    await poison({ runtime }, 'service:poisoned');
    await runtime.close();
    env = { ...process.env, DATABASE_URL: db.url, CANON_HOME: home, CANON_API_KEY: key, CANON_COMPILE_DEBOUNCE_SECONDS: '3600' };
  }, 120_000);
  afterAll(async () => {
    await db.drop();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('the nightly job compiles every other subject and names the failed one', async () => {
    const runtime = await createRuntime(loadConfig({}, { databaseUrl: db.url }), { queue: false, migrate: false });
    try {
      const out = await scheduledCompile(runtime.pool);
      expect(out.failed.map((f) => f.subject)).toEqual(['service:poisoned']);
      expect(out.compiled).toBe(2);
    } finally {
      await runtime.close();
    }
  });

  it('canon compile --all and canon verify --all do every other subject, name the failed one and exit 1', async () => {
    const compile = await runCanon(env, 'compile', '--all');
    expect(compile.code, compile.stderr).toBe(1);
    expect(compile.stdout).toContain('FAIL service:poisoned');
    expect(compile.stdout).toMatch(/service:good: /);
    const verify = await runCanon(env, 'verify', '--all');
    expect(verify.code, verify.stderr).toBe(1);
    expect(verify.stdout).toMatch(/ok +service:good/);
    expect(verify.stdout).toMatch(/ok +service:nightly/);
    expect(verify.stdout).toContain('FAIL service:poisoned');
  }, 120_000);
});
