import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase, runCanon } from '@canon/testing';
import { createRuntime, loadConfig } from '@canon/runtime';


let db: TestDatabase;
let home: string;
let env: NodeJS.ProcessEnv;
let startedAt: Date;

const canon = (...args: string[]) => runCanon(env, ...args);

beforeAll(async () => {
  db = await createTestDatabase();
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-cli-'));
  const runtime = await createRuntime(loadConfig({}, { databaseUrl: db.url }), { queue: false, migrate: false });
  // The database's clock, which stamps the queue's instances: the template's came before it.
  startedAt = (await runtime.pool.query<{ t: Date }>('SELECT now() AS t')).rows[0]!.t;
  const { key } = await runtime.createKey({ workspace: 'default', role: 'owner' });
  await runtime.close();
  env = { ...process.env, DATABASE_URL: db.url, CANON_HOME: home, CANON_API_KEY: key, CANON_COMPILE_DEBOUNCE_SECONDS: '3600' };
});
afterAll(async () => {
  await db.drop();
  fs.rmSync(home, { recursive: true, force: true });
});

describe('the canon command line', () => {
  it("refuses to write beside a server of this CANON_HOME that keeps its data in DATABASE_URL's database, when the command has no DATABASE_URL", async () => {
    // The record `canon start` leaves, of a server that is running (this process stands in for it).
    const record = path.join(home, 'server.json');
    fs.writeFileSync(record, `${JSON.stringify({ url: 'http://127.0.0.1:9', pid: process.pid, database: 'external' })}\n`);
    try {
      const { DATABASE_URL: _, ...withoutUrl } = env;
      for (const args of [['keys', 'list'], ['sync', 'workspace', home]]) {
        const res = await runCanon(withoutUrl, ...args);
        expect(res.code, args.join(' ')).toBe(2);
        expect(res.stderr, args.join(' ')).toMatch(/^canon: the server running on this CANON_HOME \(pid \d+\) keeps its data in DATABASE_URL's database: set DATABASE_URL/);
        expect(fs.existsSync(path.join(home, 'pg')), 'no embedded database was started').toBe(false);
        // Keys are managed on the database only: going through the server is no way out for them.
        if (args[0] === 'keys') expect(res.stderr).toMatch(/set DATABASE_URL for this command too \(canon keys works on the database itself, never through a server\)$/m);
        else expect(res.stderr).toMatch(/, or CANON_URL and CANON_API_KEY to go through the server$/m);
      }
      // With it, the command works on the server's database.
      expect((await canon('keys', 'list')).code).toBe(0);
      const none = await canon('keys', 'list', '--workspace', 'nobody-here');
      expect(none.stdout).toBe('no keys in workspace nobody-here (create one with `canon keys create`)\n');
    } finally {
      fs.rmSync(record, { force: true });
    }
  });

  it('stops quietly with 141 when the reader of its output goes away (`| head`), and says in one line which file or output path it cannot use', async () => {
    for (const args of [['export'], ['changes']]) {
      const child = spawn(process.execPath, [path.resolve('packages/cli/bin/canon.js'), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(stderr, args.join(' ')).toBe('');
      expect(code, args.join(' ')).toBe(141);
    }
    const wait = await canon('compile', '--all', '--wait');
    expect(wait.code).toBe(2);
    expect(wait.stderr).toContain('canon: --wait goes with --async');
    // Nothing to compile named: a usage error, told before any database is opened (here one that
    // does not exist, which it reported instead).
    const none = await runCanon({ ...env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' }, 'compile');
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('canon: give --subject S or --all (canon compile --help)\n');
    for (const args of [['ingest', home], ['import', home]]) {
      const res = await canon(...args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr).toBe(`canon: not a file: ${home} is a folder\n`);
    }
    for (const output of [path.join(home, 'no-such-dir', 'log.jsonl'), home]) {
      const res = await canon('export', '-o', output);
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toMatch(/^canon: cannot write the export to .*(ENOENT|EISDIR)/);
    }
  });

  it('ingests a JSONL file, then reports the same lines as duplicates', async () => {
    const file = path.join(home, 'episodes.jsonl');
    const lines = Array.from({ length: 5 }, (_, i) =>
      JSON.stringify({ idempotency_key: `cli-${i}`, subject: 'service:cli', occurred_at: '2024-05-01T00:00:00Z', body: { claims: [{ predicate: `p${i}`, value: i }] } }),
    );
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const first = await canon('ingest', file, '--json');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ created: 5, duplicates: 0, rejected: 0 });
    const second = await canon('ingest', file, '--json');
    expect(JSON.parse(second.stdout)).toMatchObject({ created: 0, duplicates: 5 });
  });

  it('reads a file saved with a byte order mark and CRLF; tells keys erased earlier apart from duplicates', async () => {
    const file = path.join(home, 'bom.jsonl');
    const lines = ['bom-1', 'bom-2'].map((k) => JSON.stringify({ idempotency_key: k, subject: 'service:bom', body: { claims: [{ predicate: k, value: 1 }] } }));
    fs.writeFileSync(file, `\ufeff${lines.join('\r\n')}\r\n`);
    const first = await canon('ingest', file, '--json');
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ created: 2, erased: 0 });
    expect((await canon('erase', '--subject', 'service:bom')).code).toBe(0);
    const again = await canon('ingest', file);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.trim()).toBe('created 0, duplicates 0, rejected 0; 2 erased earlier, not written');
  });

  it('answers a usage error or an invalid setting with exit code 2; help with 0', async () => {
    // A command's usage error points to that command's help, before any database is opened.
    for (const command of ['verify', 'rebuild', 'compile']) {
      const res = await runCanon({ ...env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }, command);
      expect([res.code, res.stderr.trim()], command).toEqual([2, `canon: give --subject S or --all (canon ${command} --help)`]);
    }
    const missing = await canon('memories');
    expect([missing.code, missing.stderr.split('\n')[0]]).toEqual([2, "error: missing required argument 'subject'"]);
    expect((await canon('memories', 'service:cli', '--bogus')).code).toBe(2);
    expect((await canon('--help')).code).toBe(0);
    const port = await runCanon({ ...env, CANON_PORT: 'abc' }, 'start');
    expect([port.code, port.stderr.trim()]).toEqual([2, 'canon: invalid configuration: CANON_PORT: not a number: "abc"']);
    const url = await runCanon({ ...env, CANON_URL: 'notaurl' }, 'memories', 'service:cli');
    expect([url.code, url.stderr.trim()]).toEqual([2, 'canon: CANON_URL: not an http:// or https:// URL: "notaurl"']);
  });

  it('answers a key that may not write with exit code 3, naming the line its batch starts at', async () => {
    const created = await canon('keys', 'create', '--workspace', 'default', '--role', 'reader', '--json');
    expect(created.code, created.stderr).toBe(0);
    const reader = JSON.parse(created.stdout).key as string;
    const file = path.join(home, 'reader.jsonl');
    fs.writeFileSync(file, `${JSON.stringify({ idempotency_key: 'reader-1', subject: 'service:cli', body: { text: 'x' } })}\n`);
    const denied = await runCanon({ ...env, CANON_API_KEY: reader }, 'ingest', file);
    expect([denied.code, denied.stderr.trim()]).toEqual([3, 'canon: batch starting at line 1 rejected: the reader role cannot write episodes']);
  });

  it('stops at a rejected batch and says how many episodes after it were not sent, from which line', async () => {
    const file = path.join(home, 'midway.jsonl');
    const ep = (k: string, text: string) => JSON.stringify({ idempotency_key: k, subject: 'service:midway', body: { text } });
    fs.writeFileSync(file, `${ep('mid-1', 'The batch window is 5 minutes.')}\n`);
    expect((await canon('ingest', file)).code).toBe(0);
    // Line 3 takes a key already naming another episode; a blank line sits before it.
    fs.writeFileSync(file, [ep('mid-2', 'The retry count is 3.'), '', ep('mid-1', 'Different.'), ep('mid-3', 'The lock timeout is 30 s.'), ep('mid-4', 'The pool size is 8.')].join('\n'));
    const res = await canon('ingest', file, '--batch', '1');
    expect(res.code).toBe(2);
    expect(res.stdout.trim()).toBe('created 1, duplicates 0, rejected 1, not sent 2 (line 4 on)');
    expect(res.stderr.trim()).toMatch(/^canon: batch starting at line 3 rejected: .*; it and the 2 episodes after it were not stored — fix it and run again \(what was stored comes back as duplicates\)$/);
    const json = await canon('ingest', file, '--batch', '1', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ created: 0, duplicates: 1, rejected: 1, not_sent: 2, not_sent_from_line: 4 });
    // Compiled here, so the compiles of the tests below count only what they ingest.
    expect((await canon('compile', '--subject', 'service:midway')).code).toBe(0);
  });

  it('refuses a file with a bad line before posting anything, with exit code 2 and one line', async () => {
    const file = path.join(home, 'bad.jsonl');
    fs.writeFileSync(file, `${JSON.stringify({ idempotency_key: 'fine', subject: 's' })}\n{"idempotency_key": 3}\n`);
    const out = await canon('ingest', file);
    expect(out.code).toBe(2);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr).toMatch(/bad\.jsonl:2: .*nothing was posted/);
    // And indeed nothing was: not even the good first line.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM episodes WHERE idempotency_key = 'fine'`);
      expect(rows[0]!.n).toBe(0);
    } finally {
      await client.end();
    }
  });

  it('compiles, then reports zeros on a second compile', async () => {
    const first = await canon('compile', '--subject', 'service:cli', '--json');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ episodes_processed: 5, memories_created: 5 });
    const second = JSON.parse((await canon('compile', '--all', '--json')).stdout);
    expect(second.totals).toEqual({ episodes_processed: 0, memories_created: 0, memories_updated: 0, memories_superseded: 0, conflicts_opened: 0, tombstoned: 0 });
  });

  it('runs an async compile and waits for its job', async () => {
    const out = await canon('compile', '--subject', 'service:cli', '--async', '--wait', '--json');
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ state: 'completed' });
  });

  it('verify passes, then exits 1 printing what differs after a derived row is corrupted', async () => {
    const ok = await canon('verify', '--all');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^ok +service:cli +state_hash [0-9a-f]{64}$/m);
    // A subject named that holds nothing (a typo in a CI step) is no pass.
    const typo = await canon('verify', '--subject', 'service:clj');
    expect(typo.code).toBe(1);
    expect(typo.stdout).toMatch(/^EMPTY service:clj +nothing to verify/m);
    expect(typo.stdout).not.toMatch(/verified/);
    const typoJson = JSON.parse((await canon('verify', '--subject', 'service:clj', '--json')).stdout);
    expect(typoJson).toMatchObject({ ok: false, empty: ['service:clj'] });

    const runtime = await createRuntime(loadConfig({}, { databaseUrl: db.url }), { queue: false, migrate: false });
    await runtime.pool.query(`UPDATE memories SET timeline = jsonb_set(timeline::jsonb, '{values,0,value}', '42')::json WHERE predicate = 'p3'`);
    await runtime.close();

    const bad = await canon('verify', '--subject', 'service:cli');
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/FAIL service:cli/);
    expect(bad.stdout).toMatch(/timeline on .*"p3"/);
    expect(bad.stdout).toMatch(/expected .*"value":3/);
    expect(bad.stdout).toMatch(/actual .*"value":42/);
  });

  it('works the queue while a command runs but fires no schedule: schedules fire from canon start', async () => {
    expect((await canon('compile', '--all', '--json')).code).toBe(0);
    // Every pg-boss instance started on this database since its setup is a command's (the setup's
    // runtime had no queue).
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ schedule: boolean }>('SELECT schedule FROM pgboss.instance WHERE started_on >= $1', [startedAt]);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => r.schedule === false)).toBe(true);
    } finally {
      await client.end();
    }
  });

  it('shows and sets the compile schedule', async () => {
    expect((await canon('schedule', 'show')).stdout.trim()).toBe('0 3 * * * (UTC)');
    const set = await canon('schedule', 'set', '--cron', '30 2 * * *', '--tz', 'Europe/Paris');
    expect(set.code).toBe(0);
    expect(set.stdout.trim()).toBe('compile schedule: 30 2 * * * (Europe/Paris)');
    expect((await canon('schedule', 'show')).stdout.trim()).toBe('30 2 * * * (Europe/Paris)');
    const bad = await canon('schedule', 'set', '--cron', 'every day please');
    expect(bad.code).toBe(2);
    // Without --tz the zone it had stays; an alias is a schedule.
    const kept = await canon('schedule', 'set', '--cron', '@daily');
    expect(kept.stdout.trim()).toBe('compile schedule: @daily (Europe/Paris)');
  });
});

describe('the command line on a fresh database with no key', () => {
  it('mints the owner key as canon start would, keeps it in CANON_HOME/dev-key (0600), and uses it', async () => {
    const fresh = await createTestDatabase();
    const freshHome = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-cli-fresh-'));
    try {
      const freshEnv = { ...process.env, DATABASE_URL: fresh.url, CANON_HOME: freshHome, CANON_API_KEY: '' };
      const first = await runCanon(freshEnv, 'compile', '--all', '--json');
      expect(first.code).toBe(0);
      const keyFile = path.join(freshHome, 'dev-key');
      expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
      expect(fs.readFileSync(keyFile, 'utf8')).toMatch(/^canon_\S+\n$/);
      // The next command finds the same key; no second one is minted.
      expect((await runCanon(freshEnv, 'compile', '--all', '--json')).code).toBe(0);
      const runtime = await createRuntime(loadConfig({}, { databaseUrl: fresh.url }), { queue: false, migrate: false });
      expect((await runtime.listKeys()).map((k) => [k.workspace_id, k.role])).toEqual([['default', 'owner']]);
      await runtime.close();
    } finally {
      await fresh.drop();
      fs.rmSync(freshHome, { recursive: true, force: true });
    }
  });
});
