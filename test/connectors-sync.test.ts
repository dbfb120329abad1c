import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgBoss } from 'pg-boss';
import { startTestCanon, type TestCanon } from '@canon/testing';
import { addConnectorInstance, listConnectorInstances, registerConnectorWorkers, removeConnectorInstance, resetConnectorCursor, runConnectorInstance, syncConnector, type ConnectorRuntime } from '@canon/runtime';
import { CONNECTOR_RUN_QUEUE, connectorScheduleKey } from '@canon/runtime/internals';
import { loadRecordings, startReplayServer, type ReplayServer } from '@canon/connector-github/testing';
import { createTestRepo, type TestRepo } from '@canon/connector-git/testing';

let canon: TestCanon;
let repo: TestRepo;
let server: ReplayServer;
const shas: string[] = [];

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  repo = createTestRepo();
  shas.push(
    repo.commit('2024-01-01T10:00:00Z', { 'package.json': { name: 'demo', version: '1.0.0', dependencies: { a: '^1.0.0' } } }, 'init'),
    repo.commit(
      '2024-01-02T10:00:00Z',
      { 'package.json': { name: 'demo', version: '1.0.0', dependencies: { a: '^1.1.0', b: '~2.0.0' } } },
      'bump a, add b',
    ),
    // Two commits in the same second: only the first-parent sequence orders them.
    repo.commit(
      '2024-01-03T10:00:00Z',
      { 'package.json': { name: 'demo', version: '1.1.0', dependencies: { a: '^1.1.0' }, devDependencies: { c: '3.0.0' } } },
      'remove b, add c',
    ),
    repo.commit('2024-01-03T10:00:00Z', { 'README.md': 'Demo.\n' }, 'readme'),
  );
  server = await startReplayServer(loadRecordings('paginate-issues.json'));
});

afterAll(async () => {
  await server?.close();
  repo?.remove();
  await canon?.close();
});

const rows = async <T extends Record<string, unknown>>(text: string, values: unknown[] = []) =>
  (await canon.runtime.pool.query<T>(text, values)).rows;

const cursorOf = async (instanceId: string, workspace = 'default') =>
  (await rows<{ cursor: unknown }>('SELECT cursor FROM connector_cursors WHERE workspace_id = $1 AND instance_id = $2', [workspace, instanceId]))[0]
    ?.cursor;

const countEpisodes = async (source: string, subject?: string) =>
  (
    await rows<{ n: number }>('SELECT count(*)::int AS n FROM episodes WHERE source = $1 AND ($2::text IS NULL OR subject = $2)', [
      source,
      subject ?? null,
    ])
  )[0]!.n;

describe('git through PostgreSQL', () => {
  const git = (extra: Record<string, unknown> = {}) =>
    syncConnector(canon.runtime, { workspace: 'default', connector: 'git', config: { path: repo.dir, id: 'demo', batchSize: 2, ...extra } });

  it('writes nothing in a dry run, not even the cursor', async () => {
    const summary = await syncConnector(canon.runtime, {
      workspace: 'default',
      connector: 'git',
      config: { path: repo.dir, id: 'demo' },
      dryRun: true,
    });
    expect(summary).toMatchObject({ dry_run: true, instance_id: 'git:demo', fetched: 4, submitted: 4, created: 0 });
    expect(await countEpisodes('git')).toBe(0);
    expect(await cursorOf('git:demo')).toBeUndefined();
  });

  it('creates one episode per commit with the connector role, then nothing on a re-sync, then one per new commit', async () => {
    const progress: number[] = [];
    const first = await syncConnector(canon.runtime, {
      workspace: 'default',
      connector: 'git',
      config: { path: repo.dir, id: 'demo', batchSize: 2 },
      onProgress: (p) => progress.push(p.fetched),
    });
    expect(first).toMatchObject({ instance_id: 'git:demo', workspace_id: 'default', fetched: 4, created: 4, duplicates: 0, batches: 2, retractions: 1 });
    expect(progress).toEqual([2, 4, 4]);
    expect(await cursorOf('git:demo')).toEqual({ sha: shas[3], sequence: 3 });

    const stored = await rows<{ actor_role: string; actor_user: string; subject: string; sequence: number; source_ref: string; occurred_at: string }>(
      "SELECT actor_role, actor_user, subject, sequence, source_ref, occurred_at FROM episodes WHERE source = 'git' ORDER BY sequence",
    );
    expect(stored).toEqual(
      shas.map((sha, i) => ({
        actor_role: 'connector',
        actor_user: 'connector:git:demo',
        subject: 'repo:demo',
        sequence: i,
        source_ref: sha,
        occurred_at: ['2024-01-01T10:00:00.000Z', '2024-01-02T10:00:00.000Z', '2024-01-03T10:00:00.000Z', '2024-01-03T10:00:00.000Z'][i],
      })),
    );

    expect(await git()).toMatchObject({ fetched: 0, created: 0, duplicates: 0 });

    shas.push(
      repo.commit('2024-01-04T10:00:00Z', { 'package.json': { name: 'demo', version: '1.2.0', dependencies: { a: '^2.0.0' }, devDependencies: { c: '3.0.0' } } }, 'a 2'),
    );
    expect(await git()).toMatchObject({ fetched: 1, created: 1 });
    expect(await cursorOf('git:demo')).toEqual({ sha: shas[4], sequence: 4 });
    expect(await countEpisodes('git', 'repo:demo')).toBe(5);

    // After a reset (the way out of a rewritten history) everything is read again, as duplicates.
    expect(await resetConnectorCursor(canon.runtime, { workspace: 'default', instanceId: 'git:demo' })).toEqual({ reset: true });
    expect(await git()).toMatchObject({ fetched: 5, created: 0, duplicates: 5 });
    expect(await cursorOf('git:demo')).toEqual({ sha: shas[4], sequence: 4 });
  });

  it('saves the cursor in the transaction of its batch: a batch that fails leaves the previous cursor', async () => {
    // Another repository id: other keys, another instance, the same commits.
    let batches = 0;
    const failing: ConnectorRuntime = {
      pool: canon.runtime.pool,
      ingest: (principal, items, options = {}) =>
        canon.runtime.ingest(principal, items, {
          inTransaction: async (tx) => {
            await options.inTransaction?.(tx);
            batches += 1;
            // After the episodes and the cursor are written, inside their transaction.
            if (batches === 2) throw new Error('disk full');
          },
        }),
    };
    const config = { path: repo.dir, id: 'demo-crash', batchSize: 2 };
    await expect(syncConnector(failing, { workspace: 'default', connector: 'git', config })).rejects.toThrow('disk full');
    expect(await cursorOf('git:demo-crash')).toEqual({ sha: shas[1], sequence: 1 });
    expect(await countEpisodes('git', 'repo:demo-crash')).toBe(2);

    const resumed = await syncConnector(canon.runtime, { workspace: 'default', connector: 'git', config });
    expect(resumed).toMatchObject({ fetched: 3, created: 3, duplicates: 0 });
    expect(await countEpisodes('git', 'repo:demo-crash')).toBe(5);
  });

  it('refuses to move a cursor that another run moved since it was read', async () => {
    const config = { path: repo.dir, id: 'demo-race', batchSize: 2 };
    let raced = false;
    const racing: ConnectorRuntime = {
      pool: canon.runtime.pool,
      ingest: async (principal, items, options) => {
        if (!raced) {
          raced = true;
          // A concurrent run of the same instance commits first.
          await canon.runtime.pool.query(
            "INSERT INTO connector_cursors (workspace_id, instance_id, cursor) VALUES ('default', 'git:demo-race', $1::jsonb)",
            [JSON.stringify({ sha: shas[4], sequence: 4 })],
          );
        }
        return canon.runtime.ingest(principal, items, options);
      },
    };
    await expect(syncConnector(racing, { workspace: 'default', connector: 'git', config })).rejects.toThrow(/moved by another run/);
    expect(await countEpisodes('git', 'repo:demo-race')).toBe(0);
    expect(await cursorOf('git:demo-race')).toEqual({ sha: shas[4], sequence: 4 });
  });
});

describe('workspace through PostgreSQL', () => {
  let root: string;
  const write = (path: string, content: string | Buffer) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  };
  const scan = () => syncConnector(canon.runtime, { workspace: 'default', connector: 'workspace', config: { path: root, id: 'notes' } });
  const latest = async (path: string) =>
    (
      await rows<{ kind: string; body: { text: string } }>(
        "SELECT kind, body FROM episodes WHERE source = 'workspace' AND subject = $1 ORDER BY tx_id DESC, position DESC LIMIT 1",
        [`workspace:notes:${path}`],
      )
    )[0];

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'canon-ws-'));
    write('.gitignore', '*.log\n');
    write('deploy.md', 'Deploys happen on Tuesday.\nThe API listens on port 8080.\n');
    write('team.txt', 'The team is small.\n');
    write('debug.log', 'ignored\n');
    write('logo.bin', Buffer.from([0x89, 0x50, 0x00, 0x01]));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('scans, rescans to nothing, takes an edit, and retracts a deleted file', async () => {
    const first = await scan();
    expect(first).toMatchObject({ instance_id: 'workspace:notes', created: 3, duplicates: 0, skipped: { binary: 1 } });
    expect(await countEpisodes('workspace')).toBe(3);
    expect(await rows("SELECT DISTINCT actor_role FROM episodes WHERE source = 'workspace'")).toEqual([{ actor_role: 'connector' }]);

    expect(await scan()).toMatchObject({ created: 0, submitted: 0 });

    write('deploy.md', 'Deploys happen on Thursday.\nThe API listens on port 8080.\n');
    expect(await scan()).toMatchObject({ created: 1, retractions: 0 });
    expect((await latest('deploy.md'))?.body.text).toContain('Thursday');

    rmSync(join(root, 'team.txt'));
    expect(await scan()).toMatchObject({ created: 1, retractions: 1 });
    expect((await latest('team.txt'))?.kind).toBe('retraction');
    expect(await countEpisodes('workspace')).toBe(5);
    expect(await scan()).toMatchObject({ created: 0 });
  });

  it('keeps an erased file erased: its path leaves the cursor, and neither a rescan nor its deletion writes it back', async () => {
    write('secret-plan.md', 'The launch codename is bluebird.\n');
    expect(await scan()).toMatchObject({ created: 1 });
    const owner = await canon.key('owner');
    const erased = await canon.runtime.erase(owner.principal, { subject: 'workspace:notes:secret-plan.md' });
    expect(erased.episodes).toBe(1);
    expect(JSON.stringify(await cursorOf('workspace:notes'))).not.toContain('secret-plan');
    // Unchanged: passed over. Deleted: nothing to retract. The subject stays gone.
    expect(await scan()).toMatchObject({ created: 0, skipped: { erased: 1 } });
    rmSync(join(root, 'secret-plan.md'));
    expect(await scan()).toMatchObject({ created: 0, retractions: 0 });
    expect(await rows("SELECT subject FROM episodes WHERE subject = 'workspace:notes:secret-plan.md'")).toEqual([]);
    const subjects = (await canon.runtime.subjects(owner.principal)).map((x) => x.subject);
    expect(subjects).not.toContain('workspace:notes:secret-plan.md');
    expect(JSON.stringify(await cursorOf('workspace:notes'))).not.toContain('secret-plan');
  });

  it('keeps an erased file out of the cursor when a run commits its cursor while the erasure is under way', async () => {
    write('race-plan.md', 'The merger codename is heron.\n');
    expect(await scan()).toMatchObject({ created: 1 });
    expect(JSON.stringify(await cursorOf('workspace:notes'))).toContain('race-plan');
    const owner = await canon.key('owner');
    // A run's batch transaction: it moved the cursor (still naming the file) and has not committed.
    const run = await canon.runtime.pool.connect();
    try {
      await run.query('BEGIN');
      await run.query(
        `UPDATE connector_cursors SET cursor = jsonb_set(cursor, '{files,copied.md}', cursor #> '{files,deploy.md}')
          WHERE workspace_id = 'default' AND instance_id = 'workspace:notes'`,
      );
      const erasing = canon.runtime.erase(owner.principal, { subject: 'workspace:notes:race-plan.md' });
      // The erasure read the cursor before the run's commit and now waits on its row.
      for (let i = 0; i < 200; i++) {
        const { rows: waiting } = await canon.runtime.pool.query(
          "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE connector_cursors%' AND pid <> $1",
          [(await run.query('SELECT pg_backend_pid() AS pid')).rows[0].pid],
        );
        if (waiting.length > 0) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      await run.query('COMMIT');
      expect((await erasing).episodes).toBe(1);
    } finally {
      run.release();
    }
    const cursor = JSON.stringify(await cursorOf('workspace:notes'));
    expect(cursor).toContain('"copied.md"');
    expect(cursor).not.toContain('race-plan');
  });
});

describe('github through PostgreSQL', () => {
  it('follows every page into 13 issue episodes, then creates nothing', async () => {
    const config = { repo: 'octokit-fixture-org/paginate-issues', token: 'test-token', baseUrl: server.baseUrl, retries: 0 };
    const first = await syncConnector(canon.runtime, { workspace: 'default', connector: 'github', config });
    expect(first).toMatchObject({ instance_id: 'github:octokit-fixture-org/paginate-issues', fetched: 13, created: 13, batches: 5 });
    expect(await countEpisodes('github')).toBe(13);
    expect(await cursorOf('github:octokit-fixture-org/paginate-issues')).toEqual({ since: '2017-10-10T16:00:00.000Z' });
    expect(await rows("SELECT DISTINCT actor_role, actor_user FROM episodes WHERE source = 'github'")).toEqual([
      { actor_role: 'connector', actor_user: 'connector:github:octokit-fixture-org/paginate-issues' },
    ]);

    const second = await syncConnector(canon.runtime, { workspace: 'default', connector: 'github', config });
    expect(second).toMatchObject({ created: 0, duplicates: 13 });
    expect(await countEpisodes('github')).toBe(13);
  });
});

describe('connector instances on pg-boss', () => {
  // A pg-boss of its own over the test database: the runtime's queue setup belongs to the
  // compile pipeline; here only the connector queue, its schedules and its worker are exercised.
  let boss: PgBoss;
  let queued: { pool: TestCanon['runtime']['pool']; ingest: TestCanon['runtime']['ingest']; boss: PgBoss };
  beforeAll(async () => {
    boss = new PgBoss({ connectionString: canon.db.url, schema: 'pgboss', max: 2 });
    boss.on('error', () => undefined);
    await boss.start();
    queued = { pool: canon.runtime.pool, ingest: canon.runtime.ingest, boss };
    await registerConnectorWorkers(queued);
  });
  afterAll(() => boss?.stop({ graceful: true, timeout: 5000 }));

  it('schedules an instance, runs it, and unschedules it on removal', async () => {
    const wsRepo = createTestRepo('canon-sched-');
    try {
      wsRepo.commit('2024-02-01T00:00:00Z', { 'package.json': { name: 'sched', version: '0.1.0' } }, 'init');
      const instance = await addConnectorInstance(queued, {
        workspace: 'scheduled',
        connector: 'git',
        config: { path: wsRepo.dir, id: 'sched' },
        // Never due during the test: the run below is the explicit one.
        schedule: '0 0 1 1 *',
        tz: 'Europe/Paris',
      });
      expect(instance).toMatchObject({ workspace_id: 'scheduled', id: 'git:sched', connector: 'git', schedule: '0 0 1 1 *' });
      expect(instance.config).toEqual({ path: wsRepo.dir, id: 'sched' });

      const key = connectorScheduleKey('scheduled', 'git:sched');
      expect(key).toBe('scheduled/git_3Asched');
      const schedules = await boss.getSchedules(CONNECTOR_RUN_QUEUE);
      expect(schedules.map((s) => ({ key: s.key, cron: s.cron, timezone: s.timezone, data: s.data }))).toEqual([
        { key, cron: '0 0 1 1 *', timezone: 'Europe/Paris', data: { workspace_id: 'scheduled', instance_id: 'git:sched' } },
      ]);
      expect((await listConnectorInstances(canon.runtime, 'scheduled')).map((i) => i.id)).toEqual(['git:sched']);

      await expect(
        addConnectorInstance(queued, { workspace: 'scheduled', connector: 'git', config: { path: wsRepo.dir, id: 'sched' } }),
      ).rejects.toThrow(/already exists/);
      await expect(
        addConnectorInstance(queued, { workspace: 'scheduled', connector: 'git', config: { path: wsRepo.dir, id: 'bad' }, schedule: 'every hour' }),
      ).rejects.toThrow(/^--every: "every hour" is not a schedule: five fields/);
      await expect(
        addConnectorInstance(queued, { workspace: 'scheduled', connector: 'git', config: { path: wsRepo.dir, id: 'bad' }, schedule: '* * * * * *' }),
      ).rejects.toThrow(/it has 6 fields/);
      expect((await listConnectorInstances(canon.runtime, 'scheduled')).map((i) => i.id)).toEqual(['git:sched']);

      const run = await runConnectorInstance(canon.runtime, { workspace: 'scheduled', instanceId: 'git:sched' });
      expect(run).toMatchObject({ workspace_id: 'scheduled', instance_id: 'git:sched', created: 1 });
      expect(await rows("SELECT actor_role, subject FROM episodes WHERE workspace_id = 'scheduled'")).toEqual([
        { actor_role: 'connector', subject: 'repo:sched' },
      ]);

      // The worker runs a job of the queue the same way (here: nothing new).
      wsRepo.commit('2024-02-02T00:00:00Z', { 'package.json': { name: 'sched', version: '0.2.0' } }, 'bump');
      const jobId = await boss.send(CONNECTOR_RUN_QUEUE, { workspace_id: 'scheduled', instance_id: 'git:sched' });
      expect(jobId).toEqual(expect.any(String));
      const job = await waitForJob(boss, jobId!);
      expect(job).toMatchObject({ state: 'completed', output: { instance_id: 'git:sched', created: 1 } });

      const removed = await removeConnectorInstance(queued, { workspace: 'scheduled', instanceId: 'git:sched' });
      expect(removed.id).toBe('git:sched');
      expect(await boss.getSchedules(CONNECTOR_RUN_QUEUE)).toEqual([]);
      expect(await listConnectorInstances(canon.runtime, 'scheduled')).toEqual([]);
      // The cursor stays: adding the instance again resumes.
      expect(await cursorOf('git:sched', 'scheduled')).toMatchObject({ sequence: 1 });
      await expect(removeConnectorInstance(queued, { workspace: 'scheduled', instanceId: 'git:sched' })).rejects.toThrow(/no connector instance/);
    } finally {
      wsRepo.remove();
    }
  });

  it('refuses to store a token with an instance', async () => {
    await expect(
      addConnectorInstance(queued, { workspace: 'default', connector: 'github', config: { repo: 'o/r', token: 'secret' } }),
    ).rejects.toThrow(/GITHUB_TOKEN/);
    expect(await listConnectorInstances(canon.runtime, 'default')).toEqual([]);
  });
});

async function waitForJob(boss: PgBoss, id: string) {
  for (let i = 0; i < 100; i += 1) {
    const [job] = await boss.findJobs(CONNECTOR_RUN_QUEUE, { id });
    if (job && (job.state === 'completed' || job.state === 'failed')) return job;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`job ${id} did not finish`);
}
