import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, createTestRuntime, type TestDatabase, runCanon } from '@canon/testing';
import { addConnectorInstance, createRuntime, loadConfig, runConnectorInstance, type Principal, type Runtime } from '@canon/runtime';

let db: TestDatabase;
let home: string;
let dir: string;
let env: NodeJS.ProcessEnv;
let runtime: Runtime;
let owner: Principal;

const canon = (...args: string[]) => runCanon(env, ...args);
const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
};

beforeAll(async () => {
  db = await createTestDatabase();
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-cli-sync-'));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-cli-scan-'));
  runtime = await createRuntime(loadConfig({}, { databaseUrl: db.url }), { queue: false, migrate: false });
  const { key } = await runtime.createKey({ workspace: 'default', role: 'owner' });
  owner = await runtime.authenticate(key);
  // A debounce of an hour: no worker could have compiled anything by the time the command returns.
  env = { ...process.env, DATABASE_URL: db.url, CANON_HOME: home, CANON_API_KEY: key, CANON_COMPILE_DEBOUNCE_SECONDS: '3600' };
  write('.gitignore', 'dist/\n');
  write('tsconfig.json', '{\n  // strict by default\n  "compilerOptions": { "strict": true, "target": "es2023" }\n}\n');
  write('docs/options.md', '# Queue\n\n## Options\n\n### retryLimit\n\nDefault: 2\n\n### retentionDays\n\nKeeps jobs; defaults to 14 days.\n');
  write('docs/drafts/idea.md', '## Idea\n\n- Owner: nobody yet\n');
  write('src/start.ts', '// start in 5 minutes\nexport const port = 8080;\n');
  write('dist/out.md', '- Built: yes\n');
});
afterAll(async () => {
  await runtime?.close();
  await db?.drop();
  fs.rmSync(home, { recursive: true, force: true });
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('canon sync workspace', () => {
  it('queues the compile of what it wrote, compiles it before returning, and honours --include and --exclude', async () => {
    const out = await canon('sync', 'workspace', dir, '--id', 'demo', '--include', 'docs/**', '--include', '*.json', '--include', 'src/**', '--exclude', 'docs/drafts/**', '--json');
    expect(out.code, out.stderr).toBe(0);
    const summary = JSON.parse(out.stdout) as { created: number; skipped: Record<string, number>; statements: Record<string, number>; compiled: { subjects: number; episodes_processed: number; conflicts_opened: number } };
    // tsconfig.json, docs/options.md and src/start.ts; the drafts folder and .gitignore are left out, dist/ is gitignored.
    expect(summary.created).toBe(3);
    expect(summary.skipped).toMatchObject({ ignored: 2, not_included: 1 });
    expect(summary.statements).toEqual({});
    // No worker here: the command's own compile read every episode the run created.
    expect(summary.compiled).toMatchObject({ subjects: 3, episodes_processed: 3, conflicts_opened: 0 });

    // Memory is current when the command returns: nothing pending, the facts in force.
    const { rows: pending } = await runtime.pool.query(`SELECT count(*)::int AS n FROM pending`);
    expect(pending[0]!.n).toBe(0);
    const values = async (subject: string) =>
      Object.fromEntries(
        (await runtime.memories(owner, subject)).memories
          .filter((m) => m.predicate !== 'file_hash')
          .map((m) => [[m.predicate, ...Object.values(m.qualifiers)].join(' / '), m.current[0]?.value]),
      );
    expect(await values('workspace:demo:tsconfig.json')).toEqual({ 'compilerOptions.strict': true, 'compilerOptions.target': 'es2023' });
    expect(await values('workspace:demo:docs/options.md')).toEqual({ 'default / Options / retryLimit': '2', 'default / Options / retentionDays': '14 days' });
    expect(await values('workspace:demo:src/start.ts')).toEqual({});

    // And every subject written has its compile queued, for a server's workers.
    const { rows: jobs } = await runtime.pool.query<{ subject: string }>(`SELECT data->>'subject' AS subject FROM pgboss.job WHERE name = 'compile' ORDER BY 1`);
    expect(jobs.map((j) => j.subject)).toEqual(['workspace:demo:docs/options.md', 'workspace:demo:src/start.ts', 'workspace:demo:tsconfig.json']);
  });

  it('says how many statements of a version it leaves out as ambiguous', async () => {
    write('docs/options.md', '# Queue\n\n## Options\n\n- Default: 2\n- Default: 3\n');
    const out = await canon('sync', 'workspace', dir, '--id', 'demo', '--include', 'docs/**', '--include', '*.json', '--include', 'src/**', '--exclude', 'docs/drafts/**');
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/created 1, .*2 ambiguous statements left out/);
    expect(out.stdout).toMatch(/compiled 1 subject: .*conflicts opened 0/);
    const memories = (await runtime.memories(owner, 'workspace:demo:docs/options.md')).memories;
    expect(memories.filter((m) => m.status === 'conflicted')).toEqual([]);
    expect(memories.filter((m) => m.predicate !== 'file_hash' && m.current.length > 0)).toEqual([]);
  });

  it('a scheduled run (the way a server\'s worker runs it) queues the compile of what it wrote, in its transaction', async () => {
    const server = await createTestRuntime(loadConfig({ CANON_COMPILE_DEBOUNCE_SECONDS: '3600' }, { databaseUrl: db.url }), { queue: true, workers: false, migrate: false });
    try {
      const notes = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-cli-sched-'));
      fs.writeFileSync(path.join(notes, 'owners.md'), '# Owners\n\n## Billing\n\n- Owner: payments-team\n');
      await addConnectorInstance(server, { workspace: 'sched', connector: 'workspace', config: { path: notes, id: 'sched' } });
      const run = await runConnectorInstance(server, { workspace: 'sched', instanceId: 'workspace:sched' });
      expect(run).toMatchObject({ created: 1 });
      expect(run.compiled).toBeUndefined();
      const { rows } = await runtime.pool.query(`SELECT data->>'subject' AS subject, state FROM pgboss.job WHERE name = 'compile' AND data->>'workspace_id' = 'sched'`);
      expect(rows).toEqual([{ subject: 'workspace:sched:owners.md', state: 'created' }]);
      fs.rmSync(notes, { recursive: true, force: true });
    } finally {
      await server.close();
    }
  });
});

describe('canon sync interrupted', () => {
  it('stops after the batch in flight on Ctrl-C and exits 130, what was committed kept', async () => {
    const big = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-cli-big-'));
    try {
      for (let i = 0; i < 4000; i++) fs.writeFileSync(path.join(big, `note-${i}.md`), `The service s${i} runs on Tuesday.\n`);
      const child = spawn(process.execPath, [path.resolve('packages/cli/bin/canon.js'), 'sync', 'workspace', big, '--id', 'big'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      // Interrupted once its first batch is committed, with more to read.
      let stored = 0;
      for (let i = 0; i < 600 && stored === 0; i++) {
        stored = (await runtime.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM episodes WHERE subject LIKE 'workspace:big:%'")).rows[0]!.n;
        if (stored === 0) await new Promise((r) => setTimeout(r, 25));
      }
      expect(stored).toBeGreaterThan(0);
      child.kill('SIGINT');
      expect(await closed).toBe(130);
      expect(stderr).not.toContain('aborted');
      const kept = (await runtime.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM episodes WHERE subject LIKE 'workspace:big:%'")).rows[0]!.n;
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThan(4000);
    } finally {
      fs.rmSync(big, { recursive: true, force: true });
    }
  });
});
