import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createApp } from '@canon/api';
import { createRuntime, loadConfig } from '@canon/runtime';
import { QUEUES, scheduledCompile } from '@canon/runtime/internals';
import { getJobProgress, saveJobProgress } from '@canon/store';
import { createTestDatabase, createTestRuntime, isAlive, killChild, startTestCanon, until } from '@canon/testing';

const ep = (key: string, subject: string, i = 0) => ({
  idempotency_key: key,
  subject,
  occurred_at: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
  body: { claims: [{ predicate: `fact ${i % 11}`, value: `v${i % 3}` }] },
});

describe('compile jobs', () => {
  it('fires the stored schedules from a runtime unless told not to (a command\'s is)', async () => {
    const db = await createTestDatabase();
    const config = loadConfig({}, { databaseUrl: db.url });
    // The database's clock, which stamps the queue's instances: the template's came before it.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const since = (await client.query<{ t: Date }>('SELECT now() AS t')).rows[0]!.t;
    await client.end();
    const firing = await createRuntime(config, { migrate: false });
    const quiet = await createRuntime(config, { migrate: false, schedules: false });
    try {
      const { rows } = await firing.pool.query<{ schedule: boolean }>('SELECT schedule FROM pgboss.instance WHERE started_on >= $1', [since]);
      expect(rows.map((r) => r.schedule).sort()).toEqual([false, true]);
    } finally {
      await quiet.close();
      await firing.close();
      await db.drop();
    }
  });

  it('runs an async compile as a job, polled to completion and still readable after a restart', async () => {
    const db = await createTestDatabase();
    const config = loadConfig({ CANON_COMPILE_DEBOUNCE_SECONDS: '3600' }, { databaseUrl: db.url });
    let runtime = await createTestRuntime(config, { migrate: false });
    try {
      const { key } = await runtime.createKey({ workspace: 'default', role: 'owner' });
      const other = await runtime.createKey({ workspace: 'elsewhere', role: 'owner' });
      let app = createApp(runtime);
      const call = (path: string, init: { json?: unknown; key?: string } = {}) =>
        app.request(path, {
          method: init.json ? 'POST' : 'GET',
          headers: { authorization: `Bearer ${init.key ?? key}`, 'content-type': 'application/json' },
          ...(init.json ? { body: JSON.stringify(init.json) } : {}),
        });
      await call('/v1/episodes', { json: { episodes: Array.from({ length: 30 }, (_, i) => ep(`j-${i}`, 'subject:a', i)) } });
      const accepted = await call('/v1/compile', { json: { subject: 'subject:a', async: true } });
      expect(accepted.status).toBe(202);
      const { job_id } = await accepted.json();
      const done = await until('the job to complete', async () => {
        const job = await (await call(`/v1/jobs/${job_id}`)).json();
        return job.state === 'completed' ? job : null;
      });
      expect(done).toMatchObject({ job_id, state: 'completed', created_at: expect.any(String), started_at: expect.any(String), completed_at: expect.any(String) });
      expect(done.result.totals.episodes_processed).toBe(30);
      expect(done.result.results[0]).toMatchObject({ subject: 'subject:a', memories_created: 11 });
      // Another workspace cannot see it.
      expect((await call(`/v1/jobs/${job_id}`, { key: other.key })).status).toBe(404);

      await runtime.close();
      runtime = await createTestRuntime(config, { migrate: false });
      app = createApp(runtime);
      const after = await (await call(`/v1/jobs/${job_id}`)).json();
      expect(after).toMatchObject({ job_id, state: 'completed' });
      expect(after.result.totals.episodes_processed).toBe(30);
    } finally {
      await runtime.close();
      await db.drop();
    }
  });

  it('fans out {all: true} over every subject with a summed result', async () => {
    const canon = await startTestCanon({ queue: true }, { CANON_COMPILE_DEBOUNCE_SECONDS: '3600' });
    try {
      const { key } = await canon.key('owner');
      for (const s of ['s:1', 's:2', 's:3']) {
        await canon.request('/v1/episodes', { key, json: { episodes: Array.from({ length: 5 }, (_, i) => ep(`${s}-${i}`, s, i)) } });
      }
      const { job_id } = await (await canon.request('/v1/compile', { key, json: { all: true, async: true } })).json();
      const job = await until('fan-out', async () => {
        const j = await (await canon.request(`/v1/jobs/${job_id}`, { key })).json();
        return j.state === 'completed' ? j : null;
      });
      expect(job.result.subjects).toBe(3);
      expect(job.progress).toEqual({ done: 3, total: 3 });
      expect(job.result.totals.episodes_processed).toBe(15);
      const sync = await (await canon.request('/v1/compile', { key, json: { all: true } })).json();
      expect(sync.totals.episodes_processed).toBe(0);
      expect(sync.results.map((r: { subject: string }) => r.subject)).toEqual(['s:1', 's:2', 's:3']);
    } finally {
      await canon.close();
    }
  });

  it('never lets a late, smaller progress report overwrite a larger one', async () => {
    const db = await createTestDatabase();
    const runtime = await createRuntime(loadConfig({}, { databaseUrl: db.url }), { migrate: false, queue: false });
    try {
      await runtime.createKey({ workspace: 'default', role: 'owner' });
      const job = '00000000-0000-4000-8000-000000000001';
      // Two workers of one job: the one that finished third commits before the one that finished second.
      await saveJobProgress(runtime.pool, 'default', job, 0, 3);
      await saveJobProgress(runtime.pool, 'default', job, 3, 3);
      await saveJobProgress(runtime.pool, 'default', job, 2, 3);
      expect(await getJobProgress(runtime.pool, 'default', job)).toEqual({ done: 3, total: 3 });
      // Concurrent reports in any commit order end on the largest.
      await Promise.all([1, 5, 4, 2].map((n) => saveJobProgress(runtime.pool, 'default', job, n, 5)));
      expect(await getJobProgress(runtime.pool, 'default', job)).toEqual({ done: 5, total: 5 });
    } finally {
      await runtime.close();
      await db.drop();
    }
  });

  it('sends no compile job for a subject whose compile waits to start, and one once that compile has started', async () => {
    const db = await createTestDatabase();
    const runtime = await createTestRuntime(loadConfig({ CANON_COMPILE_DEBOUNCE_SECONDS: '0', CANON_COMPILE_AFTER: '1000' }, { databaseUrl: db.url }), { migrate: false, workers: false });
    try {
      const who = await runtime.authenticate((await runtime.createKey({ workspace: 'default', role: 'member' })).key);
      const jobs = async () =>
        (await runtime.pool.query<{ id: string; state: string }>(`SELECT id::text, state::text FROM pgboss.job WHERE name = 'compile' ORDER BY created_on, id`)).rows;
      await runtime.ingest(who, [ep('w-1', 'waiting')]);
      const [first] = await jobs();
      expect(first).toMatchObject({ state: 'created' });
      // The job waiting will read this episode when it starts: nothing more is queued.
      await runtime.ingest(who, [ep('w-2', 'waiting', 1)]);
      expect(await jobs()).toEqual([first]);
      // Once a worker holds that job, the next episode gets a job of its own.
      const [taken] = await runtime.boss!.fetch(QUEUES.compile);
      expect(taken?.id).toBe(first!.id);
      await runtime.ingest(who, [ep('w-3', 'waiting', 2)]);
      const after = await jobs();
      expect(after).toHaveLength(2);
      expect(after.map((j) => j.state).sort()).toEqual(['active', 'created']);
    } finally {
      await runtime.close();
      await db.drop();
    }
  });

  it('compiles the tail of a burst through the debounced job, with no explicit compile', async () => {
    const db = await createTestDatabase();
    const runtime = await createTestRuntime(loadConfig({ CANON_COMPILE_DEBOUNCE_SECONDS: '1', CANON_COMPILE_AFTER: '1000' }, { databaseUrl: db.url }), { migrate: false });
    try {
      const { key } = await runtime.createKey({ workspace: 'default', role: 'member' });
      const who = await runtime.authenticate(key);
      for (let i = 0; i < 12; i += 1) await runtime.ingest(who, [ep(`burst-${i}`, 'burst', i)]);
      const { rows: queued } = await runtime.pool.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'compile' AND state IN ('created', 'active', 'completed')`);
      expect(queued[0].n).toBeLessThanOrEqual(3); // one queued job absorbed the burst
      await until('the burst to be compiled', async () => {
        const { rows } = await runtime.pool.query(`SELECT (SELECT count(*)::int FROM pending) AS p, (SELECT count(*)::int FROM episode_markers) AS m`);
        return rows[0].p === 0 && rows[0].m === 12;
      });
      expect((await runtime.memories(who, 'burst')).memories).toHaveLength(11);
    } finally {
      await runtime.close();
      await db.drop();
    }
  });

  it('the nightly job (scheduled, here driven directly) compiles exactly the subjects with pending episodes', async () => {
    const db = await createTestDatabase();
    const runtime = await createTestRuntime(loadConfig({ CANON_COMPILE_DEBOUNCE_SECONDS: '3600', CANON_SCHEDULE_CRON: '15 3 * * *' }, { databaseUrl: db.url }), { migrate: false });
    try {
      const schedules = await runtime.boss!.getSchedules(QUEUES.scheduledCompile);
      expect(schedules.map((s) => [s.name, s.cron, s.timezone])).toEqual([[QUEUES.scheduledCompile, '15 3 * * *', 'UTC']]);
      const { key } = await runtime.createKey({ workspace: 'default', role: 'member' });
      const who = await runtime.authenticate(key);
      await runtime.ingest(who, [ep('n-1', 'night:done', 1)]);
      await runtime.compile(who, { subject: 'night:done' });
      await runtime.ingest(who, [ep('n-2', 'night:a', 2), ep('n-3', 'night:b', 3)]);
      // Fire it the way the schedule does: a job on the nightly queue.
      const id = await runtime.boss!.send(QUEUES.scheduledCompile, {});
      const job = await until('the nightly job', async () => {
        const [j] = await runtime.boss!.findJobs(QUEUES.scheduledCompile, { id: id! });
        return j?.state === 'completed' ? j : null;
      });
      expect(job.output).toMatchObject({ compiled: 2, rebuilt: 0 });
      const { rows } = await runtime.pool.query(`SELECT subject, kind FROM compile_runs ORDER BY subject`);
      expect(rows).toEqual([
        { subject: 'night:a', kind: 'compile' },
        { subject: 'night:b', kind: 'compile' },
        { subject: 'night:done', kind: 'compile' },
      ]);
      // A policy change makes the compiled subjects stale: the next night rebuilds them.
      await runtime.pool.query(`INSERT INTO policies (workspace_id, policy_set) VALUES ('default', '{"time_zone": "Europe/Paris"}')`);
      expect(await scheduledCompile(runtime.pool)).toMatchObject({ compiled: 0, rebuilt: 3 });
    } finally {
      await runtime.close();
      await db.drop();
    }
  });

  it('refuses to start on a default schedule the queue could not fire, naming the variable', async () => {
    const db = await createTestDatabase();
    try {
      await expect(createTestRuntime(loadConfig({ CANON_SCHEDULE_CRON: 'every night' }, { databaseUrl: db.url }), { migrate: false })).rejects.toThrow(
        /^CANON_SCHEDULE_CRON: "every night" is not a schedule: five fields/,
      );
      await expect(createTestRuntime(loadConfig({ CANON_SCHEDULE_TZ: 'Europe/Atlantis' }, { databaseUrl: db.url }), { migrate: false })).rejects.toThrow(
        /^CANON_SCHEDULE_TZ: "Europe\/Atlantis" is not a time zone/,
      );
    } finally {
      await db.drop();
    }
  });

  it('keeps a compile schedule per workspace: an owner changes their own, and each night covers its workspace only', async () => {
    const db = await createTestDatabase();
    const runtime = await createTestRuntime(loadConfig({ CANON_COMPILE_DEBOUNCE_SECONDS: '3600' }, { databaseUrl: db.url }), { migrate: false });
    const app = createApp(runtime);
    const call = (key: string, method = 'GET', json?: unknown) =>
      Promise.resolve(app.request('/v1/schedule', { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: json ? JSON.stringify(json) : undefined }));
    try {
      const mine = (await runtime.createKey({ workspace: 'default', role: 'owner' })).key;
      const theirs = (await runtime.createKey({ workspace: 'other', role: 'owner' })).key;
      const lonely = (await runtime.createKey({ workspace: 'third', role: 'member' })).key;
      expect((await call(theirs, 'PUT', { cron: '30 1 * * *', time_zone: 'Europe/Paris' })).status).toBe(200);
      expect(await (await call(theirs)).json()).toEqual({ cron: '30 1 * * *', time_zone: 'Europe/Paris' });
      // Without a zone, the zone the schedule has stays, as `canon schedule set` without --tz keeps it.
      const kept = await call(theirs, 'PUT', { cron: '30 1 * * *' });
      expect(kept.status).toBe(200);
      expect(await kept.json()).toEqual({ cron: '30 1 * * *', time_zone: 'Europe/Paris' });
      // The default workspace's night is untouched; a workspace with no schedule of its own has the default.
      expect(await (await call(mine)).json()).toEqual({ cron: '0 3 * * *', time_zone: 'UTC' });
      expect(await (await call(lonely)).json()).toEqual({ cron: '0 3 * * *', time_zone: 'UTC' });
      expect((await call(lonely, 'PUT', { cron: '0 4 * * *', time_zone: 'UTC' })).status).toBe(403);
      // One rule over HTTP and in process: an alias such as @daily is a schedule; 201+ characters are refused.
      expect((await call(mine, 'PUT', { cron: '@daily', time_zone: 'UTC' })).status).toBe(200);
      const long = `${Array.from({ length: 60 }, (_, i) => i).join(',')} ${Array.from({ length: 24 }, (_, i) => i).join(',')} * * *`;
      expect(long.length).toBeGreaterThan(200);
      expect((await call(mine, 'PUT', { cron: long, time_zone: 'UTC' })).status).toBe(400);
      const owner = await runtime.authenticate(mine);
      await expect(runtime.setSchedule(owner, { cron: long, time_zone: 'UTC' })).rejects.toThrow(/cron/);
      // A schedule the queue could not fire names the field at fault and the shape a valid one takes.
      const refused = async (body: object) => {
        const res = await call(mine, 'PUT', body);
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        return (await res.json()) as { detail: string; issues: Array<{ path: string; message: string }> };
      };
      const words = await refused({ cron: 'every day', time_zone: 'UTC' });
      expect(words.issues).toEqual([{ index: 0, path: 'cron', message: expect.stringContaining('"every day" is not a schedule: five fields') }]);
      expect(words.detail).toMatch(/as in "0 3 \* \* \*".*or an alias such as @daily/);
      expect((await refused({ cron: '61 * * * *' })).issues[0]!.message).toMatch(/"61 \* \* \* \*" is not a schedule.*\(got value 61 expected range 0-59\)$/);
      // A sixth field (the parser's seconds) would compile every second: five fields, or an alias.
      expect((await refused({ cron: '* * * * * *' })).issues[0]!.message).toMatch(/"\* \* \* \* \* \*" is not a schedule: five fields .*\(it has 6 fields\)$/);
      expect((await refused({ cron: '* * *' })).issues[0]!.message).toMatch(/\(it has 3 fields\)$/);
      const zone = await refused({ cron: '0 3 * * *', time_zone: 'Mars/Olympus' });
      expect(zone.issues).toEqual([{ index: 0, path: 'time_zone', message: '"Mars/Olympus" is not a time zone this server knows (an IANA name, such as UTC or Europe/Paris)' }]);
      // Nothing was changed by a refused schedule.
      expect(await (await call(mine)).json()).toEqual({ cron: '@daily', time_zone: 'UTC' });
      expect((await call(mine, 'PUT', { cron: '45 2 * * *', time_zone: 'UTC' })).status).toBe(200);
      expect(await (await call(theirs)).json()).toEqual({ cron: '30 1 * * *', time_zone: 'Europe/Paris' });
      const keyed = (await runtime.boss!.getSchedules(QUEUES.scheduledCompile)).map((s) => [s.key, s.cron, s.data]).sort();
      expect(keyed).toEqual([['', '0 3 * * *', {}], ['default', '45 2 * * *', { workspace_id: 'default' }], ['other', '30 1 * * *', { workspace_id: 'other' }]]);

      for (const ws of ['default', 'other', 'third']) {
        const who = await runtime.authenticate((await runtime.createKey({ workspace: ws, role: 'member' })).key);
        await runtime.ingest(who, [ep(`${ws}-1`, `night:${ws}`, 1)]);
      }
      // Fire other's night the way its schedule does: only other's subject is compiled.
      const fire = async (data: object) => {
        const id = await runtime.boss!.send(QUEUES.scheduledCompile, data);
        return until('the scheduled compile', async () => {
          const [j] = await runtime.boss!.findJobs(QUEUES.scheduledCompile, { id: id! });
          return j?.state === 'completed' ? j : null;
        });
      };
      const otherNight = await fire({ workspace_id: 'other' });
      expect(otherNight.output).toMatchObject({ compiled: 1 });
      // Its id, in the log line of the run, is a job of that workspace: its keys read it at
      // GET /v1/jobs/{id}, no other workspace's do.
      const job = (key: string, id: string) => Promise.resolve(app.request(`/v1/jobs/${id}`, { headers: { authorization: `Bearer ${key}` } }));
      const seen = await job(theirs, otherNight.id);
      expect(seen.status).toBe(200);
      expect(await seen.json()).toMatchObject({ job_id: otherNight.id, queue: QUEUES.scheduledCompile, state: 'completed', result: { compiled: 1 } });
      expect((await job(mine, otherNight.id)).status).toBe(404);
      // The default schedule covers only the workspaces without their own: third.
      const defaultNight = await fire({});
      expect(defaultNight.output).toMatchObject({ compiled: 1 });
      // It spans workspaces: no workspace's key reads it, an owner's neither.
      for (const key of [mine, theirs, lonely]) expect((await job(key, defaultNight.id)).status).toBe(404);
      const { rows } = await runtime.pool.query(`SELECT workspace_id, subject FROM compile_runs ORDER BY 1`);
      expect(rows).toEqual([
        { workspace_id: 'other', subject: 'night:other' },
        { workspace_id: 'third', subject: 'night:third' },
      ]);
    } finally {
      await runtime.close();
      await db.drop();
    }
  });

  it('runs every workspace\'s night when their schedules fire in the same minute, the default\'s too', async () => {
    const db = await createTestDatabase();
    const runtime = await createTestRuntime(loadConfig({ CANON_COMPILE_DEBOUNCE_SECONDS: '3600' }, { databaseUrl: db.url }), { migrate: false, workers: false });
    try {
      for (const ws of ['alpha', 'beta']) {
        const owner = await runtime.authenticate((await runtime.createKey({ workspace: ws, role: 'owner' })).key);
        await runtime.setSchedule(owner, { cron: '0 3 * * *', time_zone: 'UTC' });
      }
      // Fire each schedule as pg-boss's clock does: its data, with the options it was saved with.
      const schedules = await runtime.boss!.getSchedules(QUEUES.scheduledCompile);
      expect(schedules.map((x) => x.key).sort()).toEqual(['', 'alpha', 'beta']);
      for (const x of schedules) await runtime.boss!.send(QUEUES.scheduledCompile, x.data ?? {}, x.options as object);
      const queued = await runtime.boss!.findJobs<{ workspace_id?: string }>(QUEUES.scheduledCompile, { queued: true });
      expect(queued.map((j) => j.data?.workspace_id ?? 'the default').sort()).toEqual(['alpha', 'beta', 'the default']);
    } finally {
      await runtime.close();
      await db.drop();
    }
  });

  it('adopts the schedules a database kept under the queue the scheduled compile had before, and drops that queue', async () => {
    const db = await createTestDatabase();
    const config = loadConfig({ CANON_COMPILE_DEBOUNCE_SECONDS: '3600' }, { databaseUrl: db.url });
    let runtime = await createTestRuntime(config, { migrate: false, workers: false });
    try {
      await runtime.boss!.createQueue('nightly');
      await runtime.boss!.schedule('nightly', '10 2 * * *', { workspace_id: 'kept' }, { key: 'kept', tz: 'Europe/Paris' });
      await runtime.close();
      runtime = await createTestRuntime(config, { migrate: false, workers: false });
      expect(await runtime.boss!.getQueue('nightly')).toBeNull();
      const kept = await runtime.boss!.getSchedules(QUEUES.scheduledCompile, 'kept');
      expect(kept.map((s) => [s.cron, s.timezone, s.data])).toEqual([['10 2 * * *', 'Europe/Paris', { workspace_id: 'kept' }]]);
    } finally {
      await runtime.close();
      await db.drop();
    }
  });

  it('leaves no partial state when a worker is killed with SIGKILL mid-compile, and the retried job finishes the same', async () => {
    const db = await createTestDatabase();
    // Small chunks, so the kill lands between two committed chunks of one job.
    const config = loadConfig({ CANON_COMPILE_DEBOUNCE_SECONDS: '0', CANON_COMPILE_AFTER: '1', CANON_COMPILE_CHUNK: '2000' }, { databaseUrl: db.url });
    // The producer has no workers: only the child process compiles.
    const producer = await createTestRuntime(config, { migrate: false, workers: false });
    const children: ChildProcess[] = [];
    const startWorker = async () => {
      // The worker runs in this very process (tsx as a loader, no wrapper process), so the
      // SIGKILL below reaches the process that compiles.
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/compile-worker.ts'], {
        env: { ...process.env, DATABASE_URL: db.url, CANON_COMPILE_DEBOUNCE_SECONDS: '0', CANON_COMPILE_CHUNK: '2000' },
        // Its stderr would only show the noise of being killed.
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      children.push(child);
      const pid = await new Promise<number>((resolve, reject) => {
        child.stdout!.on('data', (d: Buffer) => {
          const ready = /ready (\d+)/.exec(d.toString());
          if (ready) resolve(Number(ready[1]));
        });
        child.on('exit', (code) => reject(new Error(`worker exited with ${code}`)));
      });
      expect(pid).toBe(child.pid);
      return child;
    };
    try {
      const { key } = await producer.createKey({ workspace: 'default', role: 'owner' });
      const who = await producer.authenticate(key);
      const total = 12_000;
      for (let b = 0; b < total / 1000; b += 1) {
        await producer.ingest(who, Array.from({ length: 1000 }, (_, j) => ep(`k-${b * 1000 + j}`, 'big', b * 1000 + j)));
      }
      const worker = await startWorker();
      const count = async () => {
        const { rows } = await producer.pool.query(`SELECT (SELECT count(*)::int FROM episode_markers) AS m, (SELECT count(*)::int FROM pending) AS p`);
        return rows[0] as { m: number; p: number };
      };
      await until('the compile to be under way', async () => {
        const c = await count();
        return c.m > 0 && c.p > 0;
      });
      worker.kill('SIGKILL');
      const [, signal] = (await new Promise((r) => worker.once('exit', (...args) => r(args)))) as [number | null, string | null];
      expect(signal).toBe('SIGKILL');
      expect(isAlive(worker.pid!)).toBe(false);

      // Each chunk is one transaction: every claim belongs to a marked episode, every episode
      // is either marked or still pending, never both.
      const { rows: state } = await producer.pool.query(
        `SELECT (SELECT count(*)::int FROM episode_markers) AS marked,
                (SELECT count(*)::int FROM pending) AS pending,
                (SELECT count(*)::int FROM pending p JOIN episode_markers m USING (workspace_id, episode_id)) AS both,
                (SELECT count(*)::int FROM claims c WHERE NOT EXISTS
                   (SELECT 1 FROM episode_markers m WHERE m.workspace_id = c.workspace_id AND m.episode_id = c.episode_id)) AS orphans`,
      );
      expect(state[0].marked + state[0].pending).toBe(total);
      expect(state[0].both).toBe(0);
      expect(state[0].orphans).toBe(0);
      expect(state[0].pending).toBeGreaterThan(0);

      await startWorker();
      await until('the retried job to finish', async () => (await count()).p === 0, 120_000);
      const report = await producer.verify(who, 'big');
      expect(report.differences).toEqual([]);
      expect(report.rebuilt_state_hash).toBe(report.incremental_state_hash);
    } finally {
      await Promise.all(children.map(killChild));
      await producer.close();
      await db.drop();
    }
    // Nothing this test started is left running.
    for (const c of children) expect(isAlive(c.pid!)).toBe(false);
  }, 240_000);
});

