import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, serveOnLoopback, type Served } from '@canon/api';
import { createRuntime, loadConfig, syncConnector, type Principal, type Runtime } from '@canon/runtime';
import { createTestDatabase, PLANTED_SECRETS, type CliOutcome, type TestDatabase } from '@canon/testing';

// `canon sync` on a laptop or a CI runner feeding the team's server: nothing of the run may land
// in a database of the machine it runs on.

const exec = promisify(execFile);
const BIN = path.resolve('packages/cli/bin/canon.js');

let db: TestDatabase;
let runtime: Runtime;
let owner: Principal;
let server: Served;
let url: string;
let connectorKey: string;
let connectorKeyId: string;
let readerKey: string;
let ownerKey: string;
let source: string;
let home: string;
let cwd: string;

/** The CLI with only CANON_URL, CANON_API_KEY and an empty CANON_HOME, from an empty folder. */
async function canon(extra: NodeJS.ProcessEnv, ...args: string[]): Promise<CliOutcome> {
  const { DATABASE_URL: _d, CANON_URL: _u, CANON_API_KEY: _k, ...rest } = process.env;
  const env = { ...rest, CANON_HOME: home, CANON_URL: url, CANON_API_KEY: connectorKey, ...extra };
  try {
    const { stdout, stderr } = await exec(process.execPath, [BIN, ...args], { env, cwd, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(source, file)), { recursive: true });
  fs.writeFileSync(path.join(source, file), text);
};

const api = (method: string, route: string, key: string, body?: unknown) =>
  fetch(`${url}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
  });

const count = async (sql: string) => (await runtime.pool.query<{ n: number }>(sql)).rows[0]!.n;

beforeAll(async () => {
  db = await createTestDatabase();
  // No queue: what is compiled when the command returns was compiled because it asked.
  runtime = await createRuntime(loadConfig({}, { databaseUrl: db.url }), { queue: false });
  ownerKey = (await runtime.createKey({ workspace: 'default', role: 'owner' })).key;
  owner = await runtime.authenticate(ownerKey);
  const created = await runtime.createKey({ workspace: 'default', role: 'connector', user: 'ci', sources: ['workspace'] });
  connectorKey = created.key;
  connectorKeyId = created.record.id;
  readerKey = (await runtime.createKey({ workspace: 'default', role: 'reader' })).key;
  server = await serveOnLoopback(createApp(runtime));
  url = server.url;
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-sync-server-home-'));
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-sync-server-cwd-'));
  source = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-sync-server-src-'));
  write('tsconfig.json', '{ "compilerOptions": { "strict": true, "target": "es2023" } }\n');
  write('docs/options.md', '# Queue\n\n## Options\n\n### retryLimit\n\nDefault: 2\n');
});
afterAll(async () => {
  await server?.close();
  await runtime?.close();
  await db?.drop();
  for (const dir of [home, cwd, source]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('canon sync with CANON_URL', () => {
  it('writes to the server, as the key, with the server keeping the cursor, and memory is current when it returns', async () => {
    const out = await canon({}, 'sync', 'workspace', source, '--id', 'demo', '--json');
    expect(out.code, out.stderr).toBe(0);
    const summary = JSON.parse(out.stdout) as { created: number; workspace_id: string; instance_id: string; compiled: { subjects: number; failed: number } };
    expect(summary).toMatchObject({ created: 2, workspace_id: 'default', instance_id: 'workspace:demo', compiled: { subjects: 2, failed: 0 } });

    // In the server's database, written by the key (its role, its id) as the instance, like an
    // in-process run of it.
    const { rows } = await runtime.pool.query<{ actor_role: string; actor_user: string; actor_key: string }>(
      `SELECT DISTINCT actor_role, actor_user, actor_key FROM episodes WHERE source = 'workspace'`,
    );
    expect(rows).toEqual([{ actor_role: 'connector', actor_user: 'connector:workspace:demo', actor_key: connectorKeyId }]);
    expect(await count(`SELECT count(*)::int AS n FROM connector_cursors WHERE instance_id = 'workspace:demo'`)).toBe(1);
    expect(await count(`SELECT count(*)::int AS n FROM pending`)).toBe(0);
    const memories = (await runtime.memories(owner, 'workspace:demo:tsconfig.json')).memories;
    expect(Object.fromEntries(memories.filter((m) => m.predicate !== 'file_hash').map((m) => [m.predicate, m.current[0]?.value]))).toEqual({
      'compilerOptions.strict': true,
      'compilerOptions.target': 'es2023',
    });

    // Nothing on this machine: no embedded database, no data folder.
    expect(fs.readdirSync(home)).toEqual([]);
    expect(fs.readdirSync(cwd)).toEqual([]);

    // The server's cursor: the next run sends nothing new, and a dry run reads the same cursor.
    const again = await canon({}, 'sync', 'workspace', source, '--id', 'demo', '--json');
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ created: 0 });
    write('docs/options.md', '# Queue\n\n## Options\n\n### retryLimit\n\nDefault: 3\n');
    const dry = await canon({}, 'sync', 'workspace', source, '--id', 'demo', '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/workspace:demo \(dry run: nothing written\): .*would submit 1,/);
    expect(await count(`SELECT count(*)::int AS n FROM episodes WHERE source = 'workspace'`)).toBe(2);

    // The same episodes an in-process run of the instance writes: one re-reading from the start
    // what the server took finds duplicates, not key conflicts (and the one changed file).
    await runtime.pool.query(`DELETE FROM connector_cursors WHERE instance_id = 'workspace:demo'`);
    const local = await syncConnector(runtime, { workspace: 'default', connector: 'workspace', config: { path: source, id: 'demo' } });
    expect(local).toMatchObject({ created: 1, duplicates: 1, key_conflicts: [] });

  });

  it('refuses a batch whose expected cursor is stale (409 cursor_moved) and stores nothing', async () => {
    const instance = encodeURIComponent('workspace:demo');
    const current = (await (await api('GET', `/v1/connectors/${instance}/cursor`, connectorKey)).json()) as { cursor: unknown };
    expect(current.cursor).not.toBeNull();
    const episode = { source: 'workspace', idempotency_key: 'stale-1', subject: 'workspace:demo:stale.md', kind: 'note', body: { text: 'late' } };
    const res = await api('POST', `/v1/connectors/${instance}/batches`, connectorKey, { episodes: [episode], cursor: { moved: true }, expected: null });
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(((await res.json()) as { type: string }).type).toBe('urn:canon:problem:cursor_moved');
    expect(await count(`SELECT count(*)::int AS n FROM episodes WHERE idempotency_key = 'stale-1'`)).toBe(0);
    const after = (await (await api('GET', `/v1/connectors/${instance}/cursor`, connectorKey)).json()) as { cursor: unknown };
    expect(after.cursor).toEqual(current.cursor);

    // With the cursor it read, the same batch goes in, and the cursor with it.
    const ok = await api('POST', `/v1/connectors/${instance}/batches`, connectorKey, { episodes: [episode], cursor: current.cursor, expected: current.cursor });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ created: 1, subjects: ['workspace:demo:stale.md'] });
  });

  it('hands a reader a cursor with its secrets replaced, and the connector the cursor as it wrote it', async () => {
    // A scanned file named for a token: its episodes are filed redacted; the cursor keeps the name
    // (a run compares it with the disk), and any role may read a cursor.
    const token = PLANTED_SECRETS.github;
    const instance = encodeURIComponent('workspace:pathsec');
    // A member named for a password holds one, though nothing in the string says so.
    const cursor = { files: { [`notes-${token}.md`]: 'h1' }, note: `seen ${token}`, password: 'Zx9kq2LmP0abcd' };
    const saved = await api('POST', `/v1/connectors/${instance}/batches`, connectorKey, { episodes: [], cursor, expected: null });
    expect(saved.status, await saved.clone().text()).toBe(200);
    const asConnector = (await (await api('GET', `/v1/connectors/${instance}/cursor`, connectorKey)).json()) as { cursor: unknown };
    expect(asConnector.cursor).toEqual(cursor);
    const asOwner = (await (await api('GET', `/v1/connectors/${instance}/cursor`, ownerKey)).json()) as { cursor: unknown };
    expect(asOwner.cursor).toEqual(cursor);
    const asReader = await (await api('GET', `/v1/connectors/${instance}/cursor`, readerKey)).text();
    expect(asReader).not.toContain(token.slice(4));
    expect(asReader).toContain('[redacted:github:');
    expect(asReader).not.toContain('Zx9kq2LmP0abcd');
    expect(asReader).toContain('"password":"[redacted:structured-credential:');
  });

  it('keeps one cursor per instance id, slashes included, per workspace', async () => {
    const res = await api('GET', `/v1/connectors/${encodeURIComponent('github:acme/api')}/cursor`, connectorKey);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ workspace_id: 'default', instance_id: 'github:acme/api', cursor: null });
    const bad = await api('GET', `/v1/connectors/${encodeURIComponent('has space')}/cursor`, connectorKey);
    expect(bad.status).toBe(400);
  });

  it('sends an instance’s batches and moves its cursor only with a key bound to its connector, its own episodes only', async () => {
    const member = (await runtime.createKey({ workspace: 'default', role: 'member', user: 'mallory' })).key;
    const agent = (await runtime.createKey({ workspace: 'default', role: 'agent' })).key;
    const github = (await runtime.createKey({ workspace: 'default', role: 'connector', sources: ['github'] })).key;
    const instance = encodeURIComponent('workspace:demo');
    const before = (await (await api('GET', `/v1/connectors/${instance}/cursor`, connectorKey)).json()) as { cursor: unknown };
    const taken = { idempotency_key: 'taken-1', subject: 'workspace:demo:README.md', body: { claims: [{ predicate: 'default branch', value: 'evil' }] } };
    for (const [key, body] of [
      [member, { episodes: [taken], cursor: '2099', expected: before.cursor }],
      [agent, { episodes: [], cursor: '2099', expected: before.cursor }],
      [ownerKey, { episodes: [], cursor: '2099', expected: before.cursor }],
      // Bound to another connector: not this instance's key.
      [github, { episodes: [], cursor: '2099', expected: before.cursor }],
      // The instance's own key, but an episode of another source would be written as the instance.
      [connectorKey, { episodes: [taken], cursor: '2099', expected: before.cursor }],
    ] as const) {
      const res = await api('POST', `/v1/connectors/${instance}/batches`, key, body);
      expect(res.status, await res.clone().text()).toBe(403);
      expect(((await res.json()) as { type: string }).type).toBe('urn:canon:problem:forbidden');
    }
    expect(await count(`SELECT count(*)::int AS n FROM episodes WHERE idempotency_key = 'taken-1'`)).toBe(0);
    expect(((await (await api('GET', `/v1/connectors/${instance}/cursor`, readerKey)).json()) as { cursor: unknown }).cursor).toEqual(before.cursor);
    const nowhere = await api('POST', `/v1/connectors/${encodeURIComponent('nobody-knows')}/batches`, connectorKey, { episodes: [], cursor: 1, expected: null });
    expect(nowhere.status).toBe(400);
  });

  it('refuses a reader (403), a key not bound to the source (403), and says so in one line', async () => {
    const reader = await canon({ CANON_API_KEY: readerKey }, 'sync', 'workspace', source, '--id', 'reader');
    expect(reader.code).toBe(3);
    expect(reader.stderr.trim().split('\n')).toHaveLength(1);
    expect(reader.stderr).toMatch(/^canon: the reader role cannot run connectors/);
    expect((await api('POST', `/v1/connectors/x/batches`, readerKey, { episodes: [], cursor: 1, expected: null })).status).toBe(403);

    const unbound = await canon({ CANON_API_KEY: ownerKey }, 'sync', 'workspace', source, '--id', 'unbound');
    expect(unbound.code).toBe(3);
    expect(unbound.stderr).toMatch(/^canon: instance workspace:unbound is the workspace connector’s: only a key bound to it/);
    expect(await count(`SELECT count(*)::int AS n FROM episodes WHERE subject LIKE 'workspace:unbound:%'`)).toBe(0);
  });

  it('exits non-zero with one line when CANON_URL cannot be reached, or without CANON_API_KEY', async () => {
    // A port that was free a moment ago: nothing listens there.
    const closed = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as AddressInfo;
        s.close(() => resolve(port));
      });
    });
    const out = await canon({ CANON_URL: `http://127.0.0.1:${closed}` }, 'sync', 'workspace', source, '--id', 'demo');
    expect(out.code).not.toBe(0);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr).toBe(`canon: cannot reach Canon at http://127.0.0.1:${closed}: ECONNREFUSED\n`);
    const keyless = await canon({ CANON_API_KEY: '' }, 'sync', 'workspace', source, '--id', 'demo');
    expect(keyless.code).toBe(3);
    expect(keyless.stderr).toMatch(/set CANON_API_KEY/);
    const elsewhere = await canon({}, 'sync', 'workspace', source, '--id', 'demo', '--workspace', 'other');
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toBe('canon: --workspace other: the key at CANON_URL writes to workspace default\n');
    expect(fs.readdirSync(home)).toEqual([]);
    expect(fs.readdirSync(cwd)).toEqual([]);
  });

  it('runs a connector instance of this machine into the server at CANON_URL, with the server keeping the cursor', async () => {
    // With no database on this machine, there is no instance to run, and none is created to look.
    const none = await canon({}, 'connectors', 'run', 'workspace:laptop');
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^canon: no connector instance workspace:laptop on this machine/);
    expect(fs.readdirSync(home)).toEqual([]);

    // The laptop's own database holds the instance (its configuration); the server gets the episodes.
    const laptop = await createTestDatabase();
    try {
      const added = await canon({ CANON_URL: '', DATABASE_URL: laptop.url }, 'connectors', 'add', 'workspace', source, '--id', 'laptop');
      expect(added.code, added.stderr).toBe(0);
      const listed = await canon({ DATABASE_URL: laptop.url }, 'connectors', 'list');
      expect(listed.code).toBe(2);
      expect(listed.stderr).toMatch(/not on CANON_URL/);

      const run = await canon({ DATABASE_URL: laptop.url }, 'connectors', 'run', 'workspace:laptop', '--json');
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ created: 2, workspace_id: 'default', instance_id: 'workspace:laptop', compiled: { failed: 0 } });
      expect(await count(`SELECT count(*)::int AS n FROM episodes WHERE subject LIKE 'workspace:laptop:%'`)).toBe(2);
      expect(await count(`SELECT count(*)::int AS n FROM connector_cursors WHERE instance_id = 'workspace:laptop'`)).toBe(1);
      const client = new pg.Client({ connectionString: laptop.url });
      await client.connect();
      try {
        const local = await client.query<{ n: number }>(`SELECT (SELECT count(*) FROM episodes)::int + (SELECT count(*) FROM connector_cursors)::int AS n`);
        expect(local.rows[0]!.n).toBe(0);
      } finally {
        await client.end();
      }
      // The server's cursor: a second run finds nothing new.
      const again = await canon({ DATABASE_URL: laptop.url }, 'connectors', 'run', 'workspace:laptop', '--json');
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ created: 0 });
    } finally {
      await laptop.drop();
    }
  });
});
