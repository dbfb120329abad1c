import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, loadConfig } from '@canon/runtime';
import { createTestDatabase, createTestRuntime, killChild, runCanon, untilServing, type ServingProcess, type TestDatabase } from '@canon/testing';

// Several `canon start` processes on one DATABASE_URL, as a load balancer runs them: each takes
// requests and works the queue, and nothing but PostgreSQL is shared between them.
const BIN = path.resolve('packages/cli/bin/canon.js');
const SUBJECTS = Array.from({ length: 10 }, (_, i) => `service:svc-${i}`);
const PREDICATES = ['owner', 'region', 'tier'];
const ROUNDS = 4;
const BATCH = 12;
// Canon's queues whose jobs an ingest causes; the nightly one only runs on its schedule.
const COMPILE_QUEUES = ['compile', 'compile-many', 'compile-all'];

interface Server extends ServingProcess {
  child: ChildProcess;
  home: string;
}

interface Item {
  idempotency_key: string;
  subject: string;
  body: { claims: Array<{ predicate: string; value: string }> };
}

interface IngestAnswer {
  items: Array<{ index: number; status: string; episode_id: string | null }>;
}

const running: Server[] = [];
const cleanup: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const server of running.splice(0)) await killChild(server.child);
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function startServer(db: TestDatabase): Promise<Server> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-multi-'));
  cleanup.push(() => fs.rmSync(home, { recursive: true, force: true }));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: db.url,
    CANON_HOME: home,
    CANON_PORT: '0',
    // Compiles start almost at once, so jobs of one subject from several servers overlap.
    CANON_COMPILE_DEBOUNCE_SECONDS: '0.2',
    // Three servers, each with its pool and pg-boss's, share one PostgreSQL with other tests.
    CANON_POOL_SIZE: '4',
    CANON_LOG_LEVEL: 'info',
    // No schedule fires while the test runs (the nightly compile at 03:00 UTC would join in).
    CANON_SCHEDULES: 'off',
  };
  delete env['CANON_URL'];
  delete env['CANON_API_KEY'];
  const child = spawn(process.execPath, [BIN, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const server = { child, home, ...(await untilServing(child)) };
  running.push(server);
  return server;
}

async function post(server: Server, key: string, items: Item[], query = ''): Promise<IngestAnswer> {
  const res = await fetch(`${server.url}/v1/episodes${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ episodes: items }),
  });
  if (res.status !== 200) throw new Error(`POST /v1/episodes${query} to ${server.url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as IngestAnswer;
}

const item = (key: string, n: number): Item => ({
  idempotency_key: key,
  subject: SUBJECTS[n % SUBJECTS.length]!,
  body: { claims: [{ predicate: PREDICATES[n % PREDICATES.length]!, value: `v-${n % 7}` }] },
});

async function until(what: string, ms: number, probe: () => Promise<boolean>, explain: () => Promise<string>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${await explain()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('several canon start processes on one PostgreSQL', () => {
  it('two, then three servers: ingest through all of them while their workers compile; one row per key, every episode marked once, no job lost, verify passes', async () => {
    const db = await createTestDatabase();
    cleanup.push(() => db.drop());
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    cleanup.push(() => sql.end());

    // Started together on a fresh database: they race to migrate, create the queues and mint the
    // first key; exactly one of them mints it.
    const servers = await Promise.all([startServer(db), startServer(db)]);
    const minted = servers.filter((s) => fs.existsSync(path.join(s.home, 'dev-key')));
    expect(minted).toHaveLength(1);
    const owner = fs.readFileSync(path.join(minted[0]!.home, 'dev-key'), 'utf8').trim();
    // A second workspace with the same subject names: its locks and rows are its own.
    const admin = await createRuntime(loadConfig({}, { databaseUrl: db.url, poolSize: 2 }), { queue: false, migrate: false });
    const other = (await admin.createKey({ workspace: 'other', role: 'owner' })).key;
    await admin.close();
    const keys = { default: owner, other };
    const sent = { default: new Map<string, Item>(), other: new Map<string, Item>() };
    let n = 0;

    /** Rounds of concurrent batches, one per server, and one item raced to every server. */
    const ingest = async (phase: string) => {
      const shared: Array<{ key: string; answers: IngestAnswer[] }> = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        const requests: Array<Promise<unknown>> = [];
        servers.forEach((server, s) => {
          const workspace = (round + s) % 2 === 0 ? 'default' : 'other';
          const batch = Array.from({ length: BATCH }, (_, j) => item(`${phase}-r${round}-s${s}-${j}`, n++));
          // A client's retry of an earlier item lands on another server: a duplicate.
          const earlier = [...sent[workspace].values()].at(-1 - s);
          if (earlier) batch.push(earlier);
          for (const i of batch) sent[workspace].set(i.idempotency_key, i);
          // Some writers read their writes: that request compiles in its own transaction while
          // the workers of every server compile the same subjects.
          requests.push(post(server, keys[workspace], batch, s === round % servers.length ? '?compile=wait' : ''));
        });
        const same = item(`${phase}-shared-${round}`, round);
        sent.default.set(same.idempotency_key, same);
        const answers = Promise.all(servers.map((server) => post(server, owner, [same])));
        requests.push(answers.then((a) => shared.push({ key: same.idempotency_key, answers: a })));
        await Promise.all(requests);
      }
      // Exactly one server created each raced item; every answer names the same episode.
      for (const { key, answers } of shared) {
        const statuses = answers.map((a) => a.items[0]!.status).sort();
        expect({ key, statuses }).toEqual({ key, statuses: ['created', ...Array<string>(servers.length - 1).fill('duplicate')] });
        expect(new Set(answers.map((a) => a.items[0]!.episode_id)).size).toBe(1);
      }
    };

    /** Waits until nothing is pending and no compile job waits, retries or runs, then checks every guarantee. */
    const drainedAndWhole = async () => {
      await until('the workers to drain the queue', 60_000, async () => {
        const { rows } = await sql.query<{ pending: number; live: number }>(
          `SELECT (SELECT count(*)::int FROM pending) AS pending,
                  (SELECT count(*)::int FROM pgboss.job WHERE name = ANY($1) AND state IN ('created', 'retry', 'active')) AS live`,
          [COMPILE_QUEUES],
        );
        return rows[0]!.pending === 0 && rows[0]!.live === 0;
      }, async () => {
        const { rows: pending } = await sql.query(`SELECT workspace_id, subject, count(*)::int AS n, min(created_at) AS since FROM pending GROUP BY 1, 2`);
        const { rows: jobs } = await sql.query(
          `SELECT name, singleton_key, state::text, created_on, start_after, started_on, completed_on FROM pgboss.job
           WHERE name = ANY($1) AND (state <> 'completed' OR singleton_key = ANY($2)) ORDER BY created_on DESC LIMIT 40`,
          [COMPILE_QUEUES, pending.map((p) => JSON.stringify([p['workspace_id'], p['subject']]))],
        );
        return JSON.stringify({ pending, jobs }, null, 1);
      });

      // One episode per (workspace, source, key) sent.
      const { rows: episodes } = await sql.query(`SELECT workspace_id, count(*)::int AS n FROM episodes GROUP BY 1 ORDER BY 1`);
      expect(episodes).toEqual([
        { workspace_id: 'default', n: sent.default.size },
        { workspace_id: 'other', n: sent.other.size },
      ]);
      // Every episode marked exactly once (the primary key allows no second marker), none left.
      const { rows: marks } = await sql.query(
        `SELECT (SELECT count(*)::int FROM episodes e WHERE NOT EXISTS
                   (SELECT 1 FROM episode_markers m WHERE m.workspace_id = e.workspace_id AND m.episode_id = e.id)) AS unmarked,
                (SELECT count(*)::int FROM episode_markers m WHERE NOT EXISTS
                   (SELECT 1 FROM episodes e WHERE e.workspace_id = m.workspace_id AND e.id = m.episode_id)) AS orphaned,
                (SELECT count(*)::int FROM episode_markers) AS markers,
                (SELECT count(*)::int FROM pending) AS pending`,
      );
      expect(marks[0]).toEqual({ unmarked: 0, orphaned: 0, markers: sent.default.size + sent.other.size, pending: 0 });
      // One memory per fact key: one per (subject, predicate) each workspace was sent.
      const { rows: twice } = await sql.query(`SELECT workspace_id, key, count(*)::int AS n FROM memories GROUP BY 1, 2 HAVING count(*) > 1`);
      expect(twice).toEqual([]);
      const { rows: memories } = await sql.query(`SELECT workspace_id, count(*)::int AS n FROM memories GROUP BY 1 ORDER BY 1`);
      const factKeys = (items: Iterable<Item>) => new Set([...items].map((i) => `${i.subject}|${i.body.claims[0]!.predicate}`)).size;
      expect(memories).toEqual([
        { workspace_id: 'default', n: factKeys(sent.default.values()) },
        { workspace_id: 'other', n: factKeys(sent.other.values()) },
      ]);

      // No job lost or failed: none failed or dead-lettered, and no server logged a failure (a
      // job that failed once and then succeeded on a retry leaves no trace in the job states).
      const { rows: states } = await sql.query<{ name: string; state: string; n: number }>(
        `SELECT name, state::text, count(*)::int AS n FROM pgboss.job WHERE name LIKE 'compile%' GROUP BY 1, 2 ORDER BY 1, 2`,
      );
      expect(states.filter((r) => r.state !== 'completed')).toEqual([]);
      const lines = servers.flatMap((s) =>
        s
          .stdout()
          .trim()
          .split('\n')
          .map((line): Record<string, unknown> => ({ server: s.url, ...(JSON.parse(line) as Record<string, unknown>) })),
      );
      const failures = lines.filter((l) => l['outcome'] === 'failed' || l['event'] === 'internal_error' || l['event'] === 'requeue_failed' || Number(l['level']) >= 50);
      expect(failures).toEqual([]);
      for (const s of servers) expect(s.stderr()).toBe('');
      // The work was shared: more than one server ran compile jobs.
      const compiling = new Set(lines.filter((l) => l['event'] === 'job' && l['queue'] === 'compile').map((l) => l['server']));
      expect(compiling.size).toBeGreaterThan(1);

      // Every server answers a read with the same memories (same ETags).
      for (const subject of SUBJECTS.slice(0, 3)) {
        const seen = await Promise.all(
          servers.map(async (s) => {
            const res = await fetch(`${s.url}/v1/subjects/${encodeURIComponent(subject)}/memories`, { headers: { authorization: `Bearer ${owner}` } });
            expect(res.status).toBe(200);
            const body = (await res.json()) as { memories: Array<{ id: string; etag: string }> };
            return body.memories.map((m) => `${m.id} ${m.etag}`).sort();
          }),
        );
        for (const answer of seen.slice(1)) expect(answer).toEqual(seen[0]);
      }
    };

    await ingest('two');
    await drainedAndWhole();

    // A third server joins the running two (it finds a key and mints none).
    const third = await startServer(db);
    expect(fs.existsSync(path.join(third.home, 'dev-key'))).toBe(false);
    servers.push(third);
    await ingest('three');
    await drainedAndWhole();

    // `canon verify --all` in each workspace: compile, compile again to zeros, recompute from the
    // log and compare with what the servers wrote.
    const verified = await Promise.all(
      [owner, other].map((key) => {
        const home = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-multi-verify-'));
        cleanup.push(() => fs.rmSync(home, { recursive: true, force: true }));
        const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: db.url, CANON_HOME: home, CANON_API_KEY: key, CANON_POOL_SIZE: '3' };
        delete env['CANON_URL'];
        return runCanon(env, 'verify', '--all');
      }),
    );
    for (const v of verified) expect(v, v.stdout + v.stderr).toMatchObject({ code: 0 });

    // Each server stops cleanly while the others run.
    for (const server of servers) {
      server.child.kill('SIGTERM');
      expect(await server.exited).toEqual({ code: 0, signal: null });
    }
  }, 180_000);

  it('compiles an episode whose ingest commits after another server started the compile it was queued behind', async () => {
    const db = await createTestDatabase();
    cleanup.push(() => db.drop());
    const config = loadConfig({ CANON_COMPILE_DEBOUNCE_SECONDS: '0' }, { databaseUrl: db.url, poolSize: 4 });
    // One server takes requests and has no workers; the other's workers join mid-ingest.
    const producer = await createTestRuntime(config, { workers: false, migrate: false });
    cleanup.push(() => producer.close());
    const who = await producer.authenticate((await producer.createKey({ workspace: 'default', role: 'owner' })).key);
    const ep = (key: string) => ({ idempotency_key: key, subject: 'service:late', body: { claims: [{ predicate: 'owner', value: key }] } });
    const count = async (q: string) => (await producer.pool.query<{ n: number }>(q)).rows[0]!.n;

    await producer.ingest(who, [ep('first')]);
    await producer.ingest(who, [ep('second')], {
      // The compile job of 'first' is queued, so this ingest's job was absorbed by it; that job now
      // runs to its end on the other server before this transaction commits, without 'second'.
      inTransaction: async () => {
        const worker = await createTestRuntime(config, { migrate: false });
        cleanup.push(() => worker.close());
        await until('the queued compile to finish', 30_000, async () => (await count(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'compile' AND state = 'completed'`)) > 0, async () => '');
      },
    });
    await until('the second episode to be compiled', 30_000, async () => (await count('SELECT count(*)::int AS n FROM pending')) === 0, async () =>
      JSON.stringify((await producer.pool.query(`SELECT state::text, singleton_key FROM pgboss.job WHERE name = 'compile'`)).rows),
    );
    expect(await count('SELECT count(*)::int AS n FROM episode_markers')).toBe(2);
  }, 90_000);
});
