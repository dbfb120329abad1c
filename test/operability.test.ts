import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createApp, requestId } from '@canon/api';
import { createLogger, createRuntime, isUnavailable, loadConfig } from '@canon/runtime';
import { formatLine, freePort, RepeatedErrors } from '@canon/runtime/internals';
import { isAlive, killChild, untilServing } from '@canon/testing';

// An operator's afternoon: `canon start` on its embedded PostgreSQL, as a supervisor runs it
// (stdout a pipe, so the log is JSON lines), the PostgreSQL killed under it.
const BIN = path.resolve('packages/cli/bin/canon.js');
const homes: string[] = [];
const children: ChildProcess[] = [];

interface Running {
  child: ChildProcess;
  home: string;
  url: string;
  key: string;
  marker: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startCanon(): Promise<Running> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-ops-'));
  // The embedded server runs as the postgres user when we are root: it must reach the folder.
  fs.chmodSync(home, 0o755);
  homes.push(home);
  // Every process this Canon starts (PostgreSQL's included) inherits the marker: the test finds
  // any that outlive it.
  const marker = randomUUID();
  // A test's server fires no schedule: the nightly compile at 03:00 UTC would run beside it.
  const env: NodeJS.ProcessEnv = { ...process.env, CANON_HOME: home, CANON_PORT: '0', CANON_COMPILE_DEBOUNCE_SECONDS: '0', CANON_OPS_TEST: marker, CANON_SCHEDULES: 'off' };
  delete env['DATABASE_URL'];
  delete env['CANON_URL'];
  delete env['CANON_API_KEY'];
  delete env['CANON_LOG_LEVEL'];
  const child = spawn(process.execPath, [BIN, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.push(child);
  const { url, stdout, stderr, exited } = await untilServing(child);
  const key = fs.readFileSync(path.join(home, 'dev-key'), 'utf8').trim();
  return { child, home, url, key, marker, stdout, stderr, exited };
}

const postmasterOf = (home: string) => Number(fs.readFileSync(path.join(home, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);

/** The processes whose parent is `pid` (from /proc: field 4 of each stat line). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may hold spaces: fields count from after its closing parenthesis.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** Processes still carrying the marker (a zombie's environment reads empty: it has ended). */
function marked(marker: string): number[] {
  const found: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(`CANON_OPS_TEST=${marker}`)) found.push(Number(name));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return found;
}

/**
 * fetch, sending again when the server closed a kept-alive socket before answering: an HTTP
 * client's retry of a request that never reached the server (a restart of PostgreSQL drops the
 * server's idle connections' timing, and undici may pick a socket in the moment it closes).
 */
async function fetch(url: string, init?: RequestInit): Promise<Response> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await globalThis.fetch(url, init);
    } catch (err) {
      const code = ((err as { cause?: { code?: string } }).cause ?? {}).code;
      if (attempt < 2 && code === 'UND_ERR_SOCKET') continue;
      throw err;
    }
  }
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

afterEach(async () => {
  for (const child of children.splice(0)) await killChild(child);
});

afterAll(() => {
  for (const home of homes) fs.rmSync(home, { recursive: true, force: true });
});

describe('canon start keeps its embedded PostgreSQL', () => {
  it('answers 503 (never 500) while PostgreSQL is down, restarts it, serves again with nothing lost, and logs JSON lines that hold no secret', async () => {
    const canon = await startCanon();
    const tag = randomUUID().slice(0, 8);
    const subject = `person:zanzibar-${tag}`;
    const bodyMarker = `body-marker-${tag}`;
    const headers = { authorization: `Bearer ${canon.key}`, 'content-type': 'application/json' };
    const memories = `${canon.url}/v1/subjects/${encodeURIComponent(subject)}/memories`;

    const posted = await fetch(`${canon.url}/v1/episodes?compile=wait`, {
      method: 'POST',
      headers: { ...headers, 'x-request-id': `client-${tag}` },
      body: JSON.stringify({ idempotency_key: `before-${tag}`, subject, body: { claims: [{ predicate: 'favourite colour', value: bodyMarker }] } }),
    });
    expect(posted.status).toBe(200);
    expect(posted.headers.get('x-request-id')).toBe(`client-${tag}`);
    // An id that could forge a log field is replaced, and the new one returned.
    const odd = await fetch(`${canon.url}/readyz`, { headers: { 'x-request-id': 'two words"}' } });
    expect(odd.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);

    // PostgreSQL goes down whole: the postmaster and its backends. A backend outlives a killed
    // postmaster until it next looks, and could still answer a pooled connection's query.
    const before = postmasterOf(canon.home);
    const backends = childrenOf(before);
    process.kill(before, 'SIGKILL');
    for (const pid of backends) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }

    // Every answer until it serves again is 200 or a 503 problem that says to retry.
    const seen: number[] = [];
    let readyDuringOutage: unknown = null;
    const started = Date.now();
    // When the server itself dies, say how: its last words are in its own output.
    try {
      await until('the API to serve again', 30_000, async () => {
        const res = await fetch(memories, { headers });
        seen.push(res.status);
        if (res.status === 200) return true;
        expect(res.status).toBe(503);
        expect(res.headers.get('content-type')).toBe('application/problem+json');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(((await res.json()) as { type: string }).type).toBe('urn:canon:problem:unavailable');
        if (readyDuringOutage === null) {
          const ready = await fetch(`${canon.url}/readyz`);
          readyDuringOutage = { status: ready.status, body: await ready.json() };
          // Liveness holds: the process is healing itself.
          expect((await fetch(`${canon.url}/healthz`)).status).toBe(200);
        }
        return undefined;
      });
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- canon stderr:\n${canon.stderr().slice(-2000)}\n--- canon stdout:\n${canon.stdout().slice(-3000)}`, { cause: err });
    }
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(seen).toContain(503);
    expect(seen).not.toContain(500);
    expect(readyDuringOutage).toMatchObject({ status: 503, body: { ok: false, database: false, missing: expect.arrayContaining(['database']) } });

    // A new postmaster on the same folder; what was written before is there.
    const after = postmasterOf(canon.home);
    expect(after).not.toBe(before);
    expect(isAlive(after)).toBe(true);
    const recalled = (await (await fetch(memories, { headers })).json()) as { memories: Array<{ predicate: string; value: unknown }> };
    expect(JSON.stringify(recalled.memories)).toContain(bodyMarker);
    // Writes, the queue and its workers work again: a compile job queued now completes.
    const again = await fetch(`${canon.url}/v1/episodes`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ idempotency_key: `after-${tag}`, subject, body: { claims: [{ predicate: 'favourite food', value: `${bodyMarker}-2` }] } }),
    });
    expect(again.status).toBe(200);
    await until('the queued compile', 30_000, async () => {
      const r = (await (await fetch(memories, { headers })).json()) as { memories: unknown[] };
      return r.memories.length === 2 ? true : undefined;
    });
    expect(await until('readiness', 10_000, async () => ((await fetch(`${canon.url}/readyz`)).status === 200 ? true : undefined))).toBe(true);

    process.kill(canon.child.pid!, 'SIGTERM');
    expect(await canon.exited).toEqual({ code: 0, signal: null });
    expect(canon.stderr()).toBe('');
    expect(isAlive(after)).toBe(false);
    // The killed postmaster's backends ended too: nothing this Canon started is left.
    await until('every process to end', 10_000, () => (marked(canon.marker).length === 0 ? true : undefined));

    // The log: JSON lines only, the client's request id on its request's line, route templates,
    // one line per compile and per job, the outage told once — and no key, subject or body.
    const lines = canon.stdout().trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.find((l) => l['event'] === 'serving')).toMatchObject({ schedules: 'off' });
    expect(lines.find((l) => l['request_id'] === `client-${tag}`)).toMatchObject({ event: 'request', method: 'POST', route: '/v1/episodes', status: 200, workspace_id: 'default' });
    expect(lines.some((l) => l['event'] === 'request' && l['route'] === '/v1/subjects/{subject}/memories' && l['status'] === 503)).toBe(true);
    expect(lines.some((l) => l['event'] === 'compile' && typeof l['subject'] === 'string' && typeof l['duration_ms'] === 'number')).toBe(true);
    expect(lines.some((l) => l['event'] === 'job' && l['queue'] === 'compile' && l['outcome'] === 'completed')).toBe(true);
    expect(lines.filter((l) => l['event'] === 'database_exited')).toHaveLength(1);
    expect(lines.filter((l) => l['event'] === 'database_restarted')).toHaveLength(1);
    // pg-boss's pollers fail many times a second during the outage; the log says so a few times:
    // once per kind of failure (refused, terminated, starting up …) and per quiet spell, however
    // long the outage lasts on a loaded machine — not once per poll.
    const queueErrors = lines.filter((l) => l['msg'] === 'queue error');
    expect(queueErrors.every((l) => l['event'] === 'queue_error')).toBe(true);
    expect(queueErrors.length, JSON.stringify(queueErrors.map((l) => (l['err'] as { message?: string } | undefined)?.message))).toBeLessThanOrEqual(15);
    const text = canon.stdout();
    for (const secret of [canon.key, canon.key.slice(6), subject, `zanzibar-${tag}`, bodyMarker]) expect(text).not.toContain(secret);
  }, 180_000);

  it('exits non-zero with one line on stderr when PostgreSQL cannot be brought back after five tries', async () => {
    const canon = await startCanon();
    const postmaster = postmasterOf(canon.home);
    // The data folder gone: no restart can succeed.
    process.kill(postmaster, 'SIGKILL');
    fs.renameSync(path.join(canon.home, 'pg'), path.join(canon.home, 'pg-gone'));
    const { code } = await canon.exited;
    expect(code).toBe(1);
    const stderr = canon.stderr().trim().split('\n');
    expect(stderr).toHaveLength(1);
    expect(stderr[0]).toMatch(/^canon: the embedded PostgreSQL exited and could not be restarted/);
    const lines = canon.stdout().trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((l) => l['event'] === 'database_restart_failed')).toHaveLength(5);
    expect(lines.some((l) => l['event'] === 'database_gave_up' && l['level'] === 'fatal')).toBe(true);
    await until('every process to end', 10_000, () => (marked(canon.marker).length === 0 ? true : undefined));
  }, 120_000);
});

describe('with DATABASE_URL, a database out of reach', () => {
  it('is a 503 unavailable problem with Retry-After on the API, a /readyz that names it, and a live /healthz', async () => {
    // A real pool, pointed at a port where nothing listens: every connection is refused.
    const port = await freePort();
    const runtime = await createRuntime(loadConfig({}, { databaseUrl: `postgres://canon:canon@127.0.0.1:${port}/canon` }), { migrate: false, queue: false });
    const lines: string[] = [];
    const app = createApp(runtime, { logger: createLogger({ level: 'info', destination: { write: (l: string) => void lines.push(l) } }) });
    try {
      const res = await app.request('/v1/subjects', { headers: { authorization: 'Bearer canon_notakeyatallxxxxxxxxxxxxxxxx', 'x-request-id': 'outage-1' } });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('2');
      expect(res.headers.get('x-request-id')).toBe('outage-1');
      expect(await res.json()).toMatchObject({ type: 'urn:canon:problem:unavailable', status: 503 });
      const ready = await app.request('/readyz');
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ ok: false, database: false, queue: false, missing: ['database', 'queue'] });
      expect((await app.request('/healthz')).status).toBe(200);
      const request = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['request_id'] === 'outage-1');
      expect(request).toMatchObject({ route: '/v1/subjects', status: 503, level: 'info' });
      expect(lines.join('')).not.toContain('canon_notakeyatall');
    } finally {
      await runtime.close();
    }
  });

  it('is told apart from other errors: refused, reset, admin shutdown, cannot connect now, pool timeouts', () => {
    const coded = (code: string) => Object.assign(new Error('x'), { code });
    for (const err of [coded('ECONNREFUSED'), coded('ECONNRESET'), coded('57P01'), coded('57P03'), new Error('timeout exceeded when trying to connect'), new Error('Connection terminated unexpectedly'), new AggregateError([coded('ECONNREFUSED')])]) {
      expect(isUnavailable(err)).toBe(true);
    }
    for (const err of [coded('23505'), coded('40001'), new Error('boom'), null, 'ECONNREFUSED']) expect(isUnavailable(err)).toBe(false);
  });
});

describe('the log', () => {
  it('collapses one error repeated into a line and a count', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({ level: 'info', destination: { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) } });
    const repeated = new RepeatedErrors(() => logger, 200);
    for (let i = 0; i < 50; i += 1) repeated.report('queue', Object.assign(new Error(`connect ECONNREFUSED (Worker: ${i})`), { code: 'ECONNREFUSED' }), {}, 'queue error');
    repeated.report('queue', new Error('something else'), {}, 'queue error');
    await new Promise((r) => setTimeout(r, 300));
    repeated.flushAll();
    expect(lines.map((l) => [l['event'], l['msg'], l['repeated'] ?? null])).toEqual([
      ['queue_error', 'queue error', null],
      ['queue_error', 'queue error', null],
      ['queue_error', 'queue error (repeated 49 times)', 49],
    ]);
    // A count still pending at shutdown is told with its event too.
    repeated.report('queue', new Error('late'), {}, 'queue error');
    repeated.report('queue', new Error('late'), {}, 'queue error');
    repeated.flushAll();
    expect(lines.slice(3).map((l) => [l['event'], l['repeated'] ?? null])).toEqual([
      ['queue_error', null],
      ['queue_error', 1],
    ]);
    // One line each, the error as class, code and first line: no stack over many lines.
    expect(lines[0]!['err']).toMatchObject({ type: 'Error', code: 'ECONNREFUSED', message: 'connect ECONNREFUSED (Worker: 0)' });
  });

  it('reads CANON_LOG_LEVEL once, refusing a level it does not know', () => {
    expect(loadConfig({}).logLevel).toBe('info');
    expect(loadConfig({ CANON_LOG_LEVEL: 'DEBUG' }).logLevel).toBe('debug');
    expect(() => loadConfig({ CANON_LOG_LEVEL: 'loud' })).toThrow(/CANON_LOG_LEVEL/);
  });

  it('fires the stored schedules unless CANON_SCHEDULES is off, refusing any other word', () => {
    expect(loadConfig({}).jobs.fireSchedules).toBe(true);
    expect(loadConfig({ CANON_SCHEDULES: 'OFF' }).jobs.fireSchedules).toBe(false);
    expect(loadConfig({ CANON_SCHEDULES: 'on' }).jobs.fireSchedules).toBe(true);
    expect(() => loadConfig({ CANON_SCHEDULES: 'no' })).toThrow(/CANON_SCHEDULES/);
  });

  it('keeps a sane client request id and replaces any other', () => {
    expect(requestId('abc-123_x.y:z')).toBe('abc-123_x.y:z');
    for (const bad of [undefined, '', 'two words', 'a"b', 'x'.repeat(129), 'canon_abcdef', 'é']) expect(requestId(bad)).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reads as lines on a terminal', () => {
    const line = formatLine(JSON.stringify({ level: 'info', time: '2026-01-01T12:00:01.123Z', service: 'canon', msg: 'GET /healthz 200', status: 200 }));
    expect(line).toBe('12:00:01.123 INFO  GET /healthz 200  status=200\n');
  });
});
