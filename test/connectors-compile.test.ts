import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';
import { syncConnector, type CompileResult, type Principal } from '@canon/runtime';
import { loadRecordings, startReplayServer, type ReplayServer } from '@canon/connector-github/testing';
import { createTestRepo, type TestRepo } from '@canon/connector-git/testing';

let canon: TestCanon;
let reader: Principal;

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  reader = (await canon.key('owner')).principal;
});
afterAll(() => canon?.close());

async function compile(subject: string): Promise<CompileResult> {
  const response = await canon.runtime.compile(reader, { subject });
  if (response.async || !('state_hash' in response.result)) throw new Error('expected one subject compiled synchronously');
  return response.result;
}

/** The values in force of a subject's memories of one predicate, keyed by `qualifier=value,…`. */
async function current(subject: string, predicate: string, as_of?: string): Promise<Record<string, unknown>> {
  const { memories } = await canon.runtime.memories(reader, subject, { as_of });
  const out: Record<string, unknown> = {};
  for (const m of memories.filter((m) => m.predicate === predicate && m.current.length > 0)) {
    const name = Object.entries(m.qualifiers)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    out[name] = m.current.length === 1 ? m.current[0]!.value : m.current.map((c) => c.value).sort();
  }
  return out;
}

type Manifest = { name: string; version: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> };

/** The dependency memories a package.json should give, in the shape `current` returns. */
function expectedDeps(pkg: Manifest): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const section of ['dependencies', 'devDependencies'] as const) {
    for (const [name, range] of Object.entries(pkg[section] ?? {})) out[`manager=npm,name=${name},section=${section}`] = range;
  }
  return out;
}

describe('git history compiled', () => {
  let repo: TestRepo;
  const history: Array<{ when: string; pkg: Manifest }> = [
    { when: '2024-01-01T10:00:00Z', pkg: { name: 'demo', version: '1.0.0', dependencies: { a: '^1.0.0', b: '~2.0.0' } } },
    { when: '2024-01-02T10:00:00Z', pkg: { name: 'demo', version: '1.1.0', dependencies: { a: '^1.1.0', b: '~2.0.0' }, devDependencies: { c: '3.0.0' } } },
    // Two commits in the same second: the first-parent sequence decides which holds.
    { when: '2024-01-03T10:00:00Z', pkg: { name: 'demo', version: '1.1.0', dependencies: { a: '^1.1.0' }, devDependencies: { c: '3.0.0' } } },
    { when: '2024-01-03T10:00:00Z', pkg: { name: 'demo', version: '1.2.0', dependencies: { a: '^1.1.0', d: '0.1.0' }, devDependencies: { c: '3.1.0' } } },
  ];
  const sync = () => syncConnector(canon.runtime, { workspace: 'default', connector: 'git', config: { path: repo.dir, id: 'demo' } });

  beforeAll(() => {
    repo = createTestRepo();
    for (const [i, step] of history.entries()) repo.commit(step.when, { 'package.json': step.pkg }, `step ${i}`);
  });
  afterAll(() => repo?.remove());

  it('gives dependency memories equal to the last package.json, and to each commit as of its time', async () => {
    expect(await sync()).toMatchObject({ created: 4 });
    const result = await compile('repo:demo');
    expect(result).toMatchObject({ episodes_processed: 4, conflicts_opened: 0 });

    const last = history.at(-1)!.pkg;
    expect(await current('repo:demo', 'dependency')).toEqual(expectedDeps(last));
    expect(await current('repo:demo', 'package_version')).toEqual({ '': '1.2.0' });
    expect(await current('repo:demo', 'package_name')).toEqual({ '': 'demo' });

    // As of each commit's time: that commit's package.json (for the pair in one second, the later).
    expect(await current('repo:demo', 'dependency', '2024-01-01T10:00:00.000Z')).toEqual(expectedDeps(history[0]!.pkg));
    expect(await current('repo:demo', 'dependency', '2024-01-02T10:00:00.000Z')).toEqual(expectedDeps(history[1]!.pkg));
    expect(await current('repo:demo', 'dependency', '2024-01-02T23:59:59.000Z')).toEqual(expectedDeps(history[1]!.pkg));
    expect(await current('repo:demo', 'dependency', '2024-01-03T10:00:00.000Z')).toEqual(expectedDeps(last));
    expect(await current('repo:demo', 'dependency', '2023-12-31T00:00:00.000Z')).toEqual({});

    expect(await compile('repo:demo')).toMatchObject({ episodes_processed: 0, memories_created: 0, memories_updated: 0, state_hash: result.state_hash });
  });

  it('re-syncs to nothing, and one more commit is one episode and the new state', async () => {
    expect(await sync()).toMatchObject({ created: 0 });
    const next: Manifest = { name: 'demo', version: '2.0.0', dependencies: { a: '^2.0.0' } };
    repo.commit('2024-01-04T10:00:00Z', { 'package.json': next }, 'drop d and c');
    expect(await sync()).toMatchObject({ created: 1, retractions: 1 });
    expect(await compile('repo:demo')).toMatchObject({ episodes_processed: 1 });
    expect(await current('repo:demo', 'dependency')).toEqual(expectedDeps(next));
    expect(await current('repo:demo', 'dependency', '2024-01-03T12:00:00.000Z')).toEqual(expectedDeps(history.at(-1)!.pkg));
  });
});

describe('github issues compiled', () => {
  let server: ReplayServer;
  const repo = 'octokit-fixture-org/paginate-issues';
  const subject = `github:${repo}#1`;
  const labels = loadRecordings('add-labels-to-issue.json')[1]?.response as Array<{ name: string }>;
  const sync = () =>
    syncConnector(canon.runtime, { workspace: 'default', connector: 'github', config: { repo, token: 't', baseUrl: server.baseUrl, retries: 0 } });
  /** Rewrites issue #1 in every listed page. */
  const editIssueOne = (edit: (issue: { number: number; labels: unknown; updated_at: string }) => void) => {
    server.mutate = (body) => {
      for (const issue of body as Array<{ number: number; labels: unknown; updated_at: string }>) if (issue.number === 1) edit(issue);
      return body;
    };
  };

  beforeAll(async () => {
    server = await startReplayServer(loadRecordings('paginate-issues.json'));
  });
  afterAll(() => server?.close());

  it('turns added then removed labels into a labels history', async () => {
    expect(await sync()).toMatchObject({ created: 13 });
    await compile(subject);
    expect(await current(subject, 'labels')).toEqual({});

    // The recordings share one updated_at for every issue: this test sets later ones itself.
    editIssueOne((issue) => {
      issue.labels = labels;
      issue.updated_at = '2017-10-11T09:00:00Z';
    });
    expect(await sync()).toMatchObject({ created: 1 });
    await compile(subject);
    const all = labels.map((l) => l.name).sort();
    expect(Object.values(await current(subject, 'labels')).flat().sort()).toEqual(all);

    editIssueOne((issue) => {
      issue.labels = labels.filter((l) => l.name !== 'bAr');
      issue.updated_at = '2017-10-12T09:00:00Z';
    });
    expect(await sync()).toMatchObject({ created: 1 });
    expect(await compile(subject)).toMatchObject({ conflicts_opened: 0 });
    expect(Object.values(await current(subject, 'labels')).flat().sort()).toEqual(all.filter((n) => n !== 'bAr'));
    // History is kept: as of the second version, all three.
    expect(Object.values(await current(subject, 'labels', '2017-10-11T12:00:00.000Z')).flat().sort()).toEqual(all);
    expect(await current(subject, 'labels', '2017-10-10T17:00:00.000Z')).toEqual({});
  });
});

describe('workspace scan compiled', () => {
  const page = (day: string, freeze?: string) =>
    `# Deploys\n\nHow we ship.\n\n## Staging\n\n- Deploy day: ${day}\n${freeze ? `- Release freeze: ${freeze}\n` : ''}\n## Production\n\n- Deploy day: Monday\n`;

  it('turns an edited item into a change (not a conflict), a removed one into an end, and A → B → A into A', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'canon-ws-'));
    const file = path.join(dir, 'deploy.md');
    const scan = () => syncConnector(canon.runtime, { workspace: 'default', connector: 'workspace', config: { path: dir, id: 'notes' } });
    const subject = 'workspace:notes:deploy.md';
    const deployDay = async () => {
      const { memories } = await canon.runtime.memories(reader, subject);
      return memories.filter((m) => m.predicate === 'Deploy day' && m.qualifiers['h2'] === 'Staging');
    };
    try {
      writeFileSync(file, page('Tuesday', '2024-12-20'));
      expect((await scan()).created).toBe(1);
      expect((await scan()).created).toBe(0);
      const first = await compile(subject);
      expect(first.conflicts_opened).toBe(0);
      expect((await deployDay()).map((m) => [m.status, m.current.map((c) => c.value)])).toEqual([['current', ['Tuesday']]]);
      // The same label under two headings is two facts; the prose line is none.
      const { memories: all } = await canon.runtime.memories(reader, subject);
      expect(all.map((m) => [m.predicate, m.qualifiers['h2'] ?? null]).sort()).toEqual([
        ['Deploy day', 'Production'],
        ['Deploy day', 'Staging'],
        ['Release freeze', 'Staging'],
        ['file_hash', null],
      ]);

      writeFileSync(file, page('Thursday', '2024-12-20'));
      expect((await scan()).created).toBe(1);
      const changed = await compile(subject);
      expect(changed.conflicts_opened).toBe(0);
      const [day] = await deployDay();
      expect(day).toMatchObject({ status: 'current', needs_verification: false });
      expect(day!.current.map((c) => c.value)).toEqual(['Thursday']);
      const detail = await canon.runtime.memory(reader, day!.id);
      expect(detail.timeline.values.map((v) => [v.value, v.status])).toEqual([
        ['Tuesday', 'superseded'],
        ['Thursday', 'in_force'],
      ]);

      // The freeze item is dropped: its fact ends.
      writeFileSync(file, page('Thursday'));
      await scan();
      await compile(subject);
      const { memories } = await canon.runtime.memories(reader, subject);
      const freeze = memories.find((m) => m.predicate === 'Release freeze');
      expect(freeze?.status).toBe('tombstoned');

      // A → B → A: three events, A current again.
      writeFileSync(file, page('Tuesday'));
      expect((await scan()).created).toBe(1);
      writeFileSync(file, page('Thursday'));
      expect((await scan()).created).toBe(1);
      await compile(subject);
      expect((await deployDay())[0]!.current.map((c) => c.value)).toEqual(['Thursday']);

      // The file vanishes: a retraction of its lineage; its facts end.
      rmSync(file);
      expect((await scan()).retractions).toBe(1);
      await compile(subject);
      expect((await deployDay())[0]!.status).toBe('tombstoned');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a config file gives one memory per setting, a removed setting ends, and source code gives none', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'canon-ws-'));
    const scan = () => syncConnector(canon.runtime, { workspace: 'default', connector: 'workspace', config: { path: dir, id: 'cfg' } });
    const settings = async (subject: string) => {
      const { memories } = await canon.runtime.memories(reader, subject);
      return Object.fromEntries(memories.filter((m) => m.predicate !== 'file_hash').map((m) => [m.predicate, m.status === 'tombstoned' ? 'ended' : m.current.map((c) => c.value)[0]]));
    };
    try {
      mkdirSync(path.join(dir, 'src'));
      writeFileSync(path.join(dir, 'tsconfig.json'), '{\n  // house rules\n  "compilerOptions": { "strict": true, "noEmit": true, "module": "esnext", },\n}\n');
      writeFileSync(path.join(dir, 'src', 'start.ts'), '// start in 5 minutes\nexport const port = 8080; // Default: 8080\n');
      await scan();
      const tsconfig = await compile('workspace:cfg:tsconfig.json');
      expect(tsconfig.conflicts_opened).toBe(0);
      expect(await settings('workspace:cfg:tsconfig.json')).toEqual({ 'compilerOptions.strict': true, 'compilerOptions.noEmit': true, 'compilerOptions.module': 'esnext' });
      await compile('workspace:cfg:src/start.ts');
      expect(await settings('workspace:cfg:src/start.ts')).toEqual({});

      writeFileSync(path.join(dir, 'tsconfig.json'), '{ "compilerOptions": { "strict": true, "module": "nodenext" } }\n');
      await scan();
      expect((await compile('workspace:cfg:tsconfig.json')).conflicts_opened).toBe(0);
      expect(await settings('workspace:cfg:tsconfig.json')).toEqual({ 'compilerOptions.strict': true, 'compilerOptions.noEmit': 'ended', 'compilerOptions.module': 'nodenext' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
