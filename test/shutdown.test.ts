import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive, runCanon, untilServing } from '@canon/testing';

// `canon start` as a user runs it: the real binary on the embedded PostgreSQL, in a folder of its
// own, stopped by the signal a terminal (SIGINT) or a supervisor (SIGTERM) sends.
const BIN = path.resolve('packages/cli/bin/canon.js');
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-shutdown-'));
  // The embedded server runs as the postgres user when we are root: it must reach the folder.
  fs.chmodSync(home, 0o755);
  env = { ...process.env, CANON_HOME: home, CANON_PORT: '0', CANON_COMPILE_DEBOUNCE_SECONDS: '0' };
  delete env['DATABASE_URL'];
  delete env['CANON_URL'];
  delete env['CANON_API_KEY'];
});

afterAll(() => {
  fs.rmSync(home, { recursive: true, force: true });
});

interface Running {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startCanon(via: 'canon start' | 'npm start'): Promise<Running> {
  // A process group of its own, like a command started from a shell: a terminal's Ctrl-C is a
  // SIGINT to every process of that group.
  const [command, args] = via === 'npm start' ? ['npm', ['start', '--silent']] : [process.execPath, [BIN, 'start']];
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const { url, stdout, stderr, exited } = await untilServing(child);
  return { child, url, stdout, stderr, exited };
}

const CASES = [
  { via: 'canon start', signal: 'SIGTERM', to: 'the process', group: false },
  { via: 'canon start', signal: 'SIGINT', to: 'the process', group: false },
  { via: 'canon start', signal: 'SIGINT', to: 'its whole process group (Ctrl-C in a terminal)', group: true },
  // A supervisor that runs the README's command signals npm, which passes the signal on.
  { via: 'npm start', signal: 'SIGTERM', to: 'npm', group: false },
  { via: 'npm start', signal: 'SIGINT', to: 'its whole process group (Ctrl-C in a terminal)', group: true },
] as const;

describe('canon start stops cleanly', () => {
  for (const { via, signal, to, group } of CASES) {
    it(`${via}, on ${signal} to ${to}: stops serving, then the queue, the pool and the embedded PostgreSQL, and exits 0`, async () => {
      const canon = await startCanon(via);
      const postmaster = Number(fs.readFileSync(path.join(home, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
      expect(isAlive(postmaster)).toBe(true);
      const key = fs.readFileSync(path.join(home, 'dev-key'), 'utf8').trim();

      // Work in flight when the signal comes: episodes whose compile jobs are queued at once.
      const posted = await fetch(`${canon.url}/v1/episodes`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          episodes: Array.from({ length: 50 }, (_, i) => ({
            idempotency_key: `${via}-${signal}-${group}-${i}`,
            subject: `service:s${i % 5}`,
            body: { claims: [{ predicate: `${via} ${signal} ${group} setting ${i}`, value: i }] },
          })),
        }),
      });
      expect(posted.status).toBe(200);
      // A follower of the change feed: its stream must end cleanly, not hold the stop for the
      // server's grace period and then be cut.
      const stream = await fetch(`${canon.url}/v1/changes`, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } });
      expect(stream.status).toBe(200);
      const reader = stream.body!.getReader();
      const drained = (async () => {
        for (;;) if ((await reader.read()).done) return 'ended';
      })();

      process.kill(group ? -canon.child.pid! : canon.child.pid!, signal);
      const { code, signal: killedBy } = await canon.exited;
      expect({ code, killedBy, stderr: canon.stderr() }).toEqual({ code: 0, killedBy: null, stderr: '' });
      expect(await drained).toBe('ended');
      expect(canon.stdout()).toContain(`${signal}: stopping`);
      expect(canon.stdout()).toContain('stopped');
      // PostgreSQL went down with it, and the record that tells the CLI a server runs is gone.
      expect(isAlive(postmaster)).toBe(false);
      expect(fs.existsSync(path.join(home, 'server.json'))).toBe(false);
      await expect(fetch(`${canon.url}/healthz`)).rejects.toThrow();
    }, 180_000);
  }

  it('keeps what was written: a command after the restarts sees every episode', async () => {
    const listed = await runCanon(env, 'compile', '--all', '--json');
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    const subjects = await runCanon(env, 'memories', 'service:s0', '--json');
    expect(subjects.code).toBe(0);
    // 10 episodes per case landed on service:s0, each a distinct setting.
    expect(JSON.parse(subjects.stdout).memories).toHaveLength(10 * CASES.length);
    // The one-shot command stopped the PostgreSQL it started, too.
    expect(fs.existsSync(path.join(home, 'pg', 'postmaster.pid'))).toBe(false);
  }, 180_000);
});

describe('the exit code of a process that loads Canon', () => {
  it('is the code the process set, not one a library chose when the event loop emptied', async () => {
    for (const wanted of [0, 1, 7]) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/exit-code.ts', String(wanted)], { stdio: 'ignore' });
      const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      expect(code).toBe(wanted);
    }
  });
});

describe('a one-shot command interrupted mid-way', () => {
  for (const { signal, code, group } of [
    { signal: 'SIGTERM', code: 143, group: false },
    { signal: 'SIGINT', code: 130, group: true },
  ] as const) {
    it(`stops the PostgreSQL it started and exits ${code} on ${signal}${group ? ' to its process group' : ''}`, async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/interrupted-command.ts', home], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
        void exited.then((c) => reject(new Error(`exited with ${c} before it was ready: ${stderr}`)));
      });
      const postmaster = Number(fs.readFileSync(path.join(home, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(group ? -child.pid! : child.pid!, signal);
      expect(await exited).toBe(code);
      expect(stderr).toBe('');
      expect(isAlive(postmaster)).toBe(false);
    }, 120_000);
  }
});
