import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, serveOnLoopback, type Served } from '@canon/api';
import { createRuntime, loadConfig, type Principal, type Runtime } from '@canon/runtime';
import { createTestDatabase, runCanon, type TestDatabase } from '@canon/testing';


let db: TestDatabase;
let home: string;
let env: NodeJS.ProcessEnv;
let runtime: Runtime;
let owner: Principal;
let server: Served;
let url: string;

const canon = (extraEnv: NodeJS.ProcessEnv, ...args: string[]) => runCanon({ ...env, ...extraEnv }, ...args);

const ep = (key: string, at: string, value: string, source = 'api') => ({
  source,
  idempotency_key: key,
  subject: 'service:cli-recall',
  occurred_at: at,
  kind: 'claim',
  body: { claims: [{ predicate: 'release freeze day', value }] },
});

beforeAll(async () => {
  db = await createTestDatabase();
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-cli-recall-'));
  runtime = await createRuntime(loadConfig({}, { databaseUrl: db.url }), { queue: false });
  const created = await runtime.createKey({ workspace: 'default', role: 'owner' });
  owner = await runtime.authenticate(created.key);
  // Two owners disagree: neither is the author of the other's value, so it is an open conflict.
  const ana = await runtime.authenticate((await runtime.createKey({ workspace: 'default', role: 'owner', user: 'ana' })).key);
  const bo = await runtime.authenticate((await runtime.createKey({ workspace: 'default', role: 'owner', user: 'bo' })).key);
  await runtime.ingest(ana, [ep('c-1', '2024-05-01T09:00:00Z', 'Wednesday')], { compile: 'wait' });
  await runtime.ingest(bo, [ep('c-2', '2024-05-02T09:00:00Z', 'Friday', 'mcp')], { compile: 'wait' });
  env = { ...process.env, DATABASE_URL: db.url, CANON_HOME: home, CANON_API_KEY: created.key, CANON_COMPILE_DEBOUNCE_SECONDS: '3600' };
  server = await serveOnLoopback(createApp(runtime));
  url = server.url;
});
afterAll(async () => {
  await server.close();
  await runtime.close();
  await db.drop();
  fs.rmSync(home, { recursive: true, force: true });
});

describe('canon memories, conflicts, resolve, history, policies, erase', () => {
  let id: string;

  it('lists memories and conflicts (locally and over HTTP through the typed client)', async () => {
    const memories = await canon({}, 'memories', 'service:cli-recall', '--json');
    expect(memories.code, memories.stderr).toBe(0);
    const body = JSON.parse(memories.stdout);
    expect(body.memories.map((m: { status: string }) => m.status)).toEqual(['conflicted']);
    id = body.memories[0].id;

    const table = await canon({}, 'memories', 'service:cli-recall', '--known-at', new Date().toISOString());
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('Wednesday vs Friday');

    const remote = await canon({ CANON_URL: url }, 'conflicts', '--json');
    expect(remote.code, remote.stderr).toBe(0);
    const page = JSON.parse(remote.stdout);
    expect(page.next).toBeNull();
    expect(page.conflicts.map((c: { memory_id: string; sides: Array<{ value: string }> }) => [c.memory_id, c.sides.map((s) => s.value)])).toEqual([[id, ['Wednesday', 'Friday']]]);
    // A page cut short says how to read on.
    const paged = await canon({}, 'conflicts', '--limit', '1');
    expect(paged.code, paged.stderr).toBe(0);
    expect(paged.stdout).not.toContain('more open conflicts');
    const none = await canon({}, 'conflicts', '--subject', 'service:nothing-here');
    expect(none.stdout).toContain('no open conflicts');

    const bad = await canon({ CANON_URL: url }, 'memories', 'service:cli-recall', '--as-of', 'tuesday');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/as_of/);
  });

  it('writes a --json answer larger than a pipe holds whole before it exits', async () => {
    // A pipe takes 64 KiB at once; the rest of an answer written asynchronously was lost when the
    // command exited, and `canon memories S --json | jq` read broken JSON after exit 0.
    const claims = Array.from({ length: 600 }, (_, i) => ({ predicate: `setting number ${i} of the big service`, value: `value ${i} `.repeat(20) }));
    await runtime.ingest(owner, [{ source: 'api', idempotency_key: 'big-1', subject: 'service:cli-big', kind: 'claim', body: { claims } }], { compile: 'wait' });
    for (const target of [{}, { CANON_URL: url }]) {
      const out = await canon(target, 'memories', 'service:cli-big', '--json');
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout.length).toBeGreaterThan(200_000);
      expect(JSON.parse(out.stdout).memories).toHaveLength(600);
      const inspected = await canon(target, 'inspect', 'service:cli-big', '--json');
      expect(inspected.code, inspected.stderr).toBe(0);
      expect(() => JSON.parse(inspected.stdout)).not.toThrow();
    }
  });

  it('resolves the conflict and shows the history', async () => {
    const resolved = await canon({ CANON_URL: url }, 'resolve', id, '--value', 'Friday', '--reason', 'release calendar', '--json');
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(JSON.parse(resolved.stdout).decision.kind).toBe('settles');
    const history = await canon({}, 'history', id);
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toContain('superseded (correction)');
    expect(history.stdout).toContain('settles');
    const none = await canon({}, 'conflicts');
    expect(none.stdout).toContain('no open conflicts');
  });

  it('shows candidates under memories and links them (locally and over HTTP)', async () => {
    const say = (key: string, text: string, at: string) =>
      runtime.ingest(owner, [{ idempotency_key: key, subject: 'team:cli-links', occurred_at: at, body: { text } }], { compile: 'wait' });
    await say('l-1', 'The staging deploy runs on Tuesday.', '2026-11-01T09:00:00Z');
    await say('l-2', 'Staging deploys now happen on Thursday.', '2026-11-05T09:00:00Z');
    const table = await canon({}, 'memories', 'team:cli-links');
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/POSSIBLE CONTRADICTION: \w+ may be the same fact as \w+ \(score [\d.]+\): (Tuesday vs Thursday|Thursday vs Tuesday)/);
    const ids = JSON.parse((await canon({}, 'memories', 'team:cli-links', '--json')).stdout).memories.map((m: { id: string }) => m.id);

    const linked = await canon({ CANON_URL: url }, 'link', ids[0], ids[1], '--reason', 'one schedule', '--key', 'cli-l-1', '--json');
    expect(linked.code, linked.stderr).toBe(0);
    expect(JSON.parse(linked.stdout)).toMatchObject({ outcome: 'linked', in_force: true });
    const unlinked = await canon({}, 'link', ids[0], ids[1], '--distinct');
    expect(unlinked.code, unlinked.stderr).toBe(0);
    expect(unlinked.stdout).toMatch(/^unlinked: episode/);
    const after = await canon({}, 'memories', 'team:cli-links');
    expect(after.stdout).not.toMatch(/POSSIBLE CONTRADICTION/);
    const missing = await canon({}, 'link', ids[0], 'nope');
    expect(missing.code).not.toBe(0);
  });

  it('refuses a sync of a folder that is not there, or not a git repository, in one line with exit 2', async () => {
    for (const args of [
      ['sync', 'workspace', path.join(home, 'no-such-folder')],
      ['sync', 'git', path.join(home, 'no-such-folder')],
      ['sync', 'git', home],
    ]) {
      const out = await canon({}, ...args);
      expect(out.code, `${args.join(' ')}: ${out.stderr}`).toBe(2);
      expect(out.stderr.trim().split('\n')).toHaveLength(1);
      expect(out.stderr).toMatch(/no folder|not a git repository/);
    }
  });

  it('refuses a sync of a repository with no commits, a bare one, or a folder inside one, in one line with exit 2', async () => {
    const repos = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-git-edges-'));
    try {
      const git = (...args: string[]) => execFileSync('git', args, { cwd: repos, stdio: 'ignore' });
      git('init', '-q', 'empty');
      git('init', '-q', '--bare', 'bare.git');
      git('init', '-q', 'full');
      fs.mkdirSync(path.join(repos, 'full', 'docs'));
      fs.writeFileSync(path.join(repos, 'full', 'docs', 'a.md'), 'x\n');
      execFileSync('git', ['-C', path.join(repos, 'full'), '-c', 'user.email=a@b', '-c', 'user.name=a', 'add', '.'], { stdio: 'ignore' });
      execFileSync('git', ['-C', path.join(repos, 'full'), '-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'one'], { stdio: 'ignore' });
      for (const [folder, said] of [
        ['empty', /has no commits yet/],
        ['bare.git', /is a bare repository/],
        [path.join('full', 'docs'), /is inside the repository at .*full: sync that/],
      ] as const) {
        const out = await canon({}, 'sync', 'git', path.join(repos, folder));
        expect(out.code, `${folder}: ${out.stderr}`).toBe(2);
        expect(out.stderr.trim().split('\n')).toHaveLength(1);
        expect(out.stderr).toMatch(said);
      }
    } finally {
      fs.rmSync(repos, { recursive: true, force: true });
    }
  });

  it('says how to read on from a page of conflicts cut short, with the options it was read with', async () => {
    const ana = await runtime.authenticate((await runtime.createKey({ workspace: 'default', role: 'owner', user: 'ana' })).key);
    const bo = await runtime.authenticate((await runtime.createKey({ workspace: 'default', role: 'owner', user: 'bo' })).key);
    const say = (who: Principal, key: string, predicate: string, value: string) =>
      runtime.ingest(who, [{ idempotency_key: key, subject: 'service:cli-two', kind: 'claim', body: { claims: [{ predicate, value }] } }], { compile: 'wait' });
    for (const p of ['freeze day', 'deploy day']) {
      await say(ana, `two-a-${p}`, p, 'Monday');
      await say(bo, `two-b-${p}`, p, 'Friday');
    }
    const paged = await canon({}, 'conflicts', '--subject', 'service:cli-two', '--limit', '1');
    expect(paged.code, paged.stderr).toBe(0);
    expect(paged.stdout).toMatch(/^more open conflicts: canon conflicts --subject "service:cli-two" --limit 1 --after \S+$/m);
  });

  it('shows and sets policies, then erases the subject', async () => {
    const file = path.join(home, 'policies.json');
    fs.writeFileSync(file, JSON.stringify({ predicates: { 'release freeze day': { cardinality: 'one', mode: 'supersede', min_role: 'member' } } }));
    const set = await canon({}, 'policies', 'set', file, '--json');
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ changed: true, rebuild: { subjects: ['service:cli-recall'] } });
    const shown = await canon({}, 'policies', '--json');
    expect(JSON.parse(shown.stdout).effective.predicates['release freeze day'].mode).toBe('supersede');
    fs.writeFileSync(file, '{"predicates": ');
    expect((await canon({}, 'policies', 'set', file)).code).toBe(2);

    expect((await canon({}, 'erase')).code).toBe(2);
    const erased = await canon({}, 'erase', '--subject', 'service:cli-recall', '--json');
    expect(erased.code, erased.stderr).toBe(0);
    expect(JSON.parse(erased.stdout)).toMatchObject({ episodes: 3, subjects: ['service:cli-recall'] });
    const after = await canon({}, 'memories', 'service:cli-recall');
    expect(after.stdout).toContain('no memories');
  });
});
