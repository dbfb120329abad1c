import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimInput } from '@canon/core';
import { runConnector } from '@canon/connector-kit';
import { MemorySink } from '@canon/connector-kit/testing';
import { commitToEpisodes, createGitConnector, GitHistoryRewrittenError, type GitCommitItem } from './connector.js';
import { ownerNameFromRemote } from './history.js';
import { createTestRepo, type TestRepo } from './testing.js';
import { DEPENDENCY_SECTIONS, parsePackageJson } from './package-diff.js';

let repo: TestRepo;
let dir: string;
const run = (args: string[], env: Record<string, string> = {}) => repo.git(args, env);
const commit = (when: string, files: Record<string, object | string | null>, message: string) => repo.commit(when, files, message);

beforeAll(() => {
  repo = createTestRepo();
  dir = repo.dir;
  run(['remote', 'add', 'origin', 'git@github.com:acme/demo.git']);
  commit('2024-01-01T10:00:00Z', { 'package.json': { name: 'demo', version: '1.0.0', dependencies: { a: '^1.0.0' } } }, 'init');
  commit(
    '2024-01-02T10:00:00Z',
    { 'package.json': { name: 'demo', version: '1.0.0', dependencies: { a: '^1.0.0', b: '~2.0.0' }, devDependencies: { vitest: '4.0.0' } } },
    'add b and vitest',
  );
  // Two commits in the same second: only `sequence` orders them.
  commit(
    '2024-01-03T10:00:00Z',
    { 'package.json': { name: 'demo', version: '1.0.0', dependencies: { a: '^1.1.0', b: '~2.0.0' }, devDependencies: { vitest: '4.0.0' } } },
    'bump a',
  );
  commit(
    '2024-01-03T10:00:00Z',
    {
      'package.json': { name: 'demo', version: '1.0.0', dependencies: { a: '^1.2.0', b: '~2.0.0' }, devDependencies: { vitest: '4.0.0' } },
      'packages/x/package.json': { name: '@demo/x', version: '0.1.0', dependencies: { c: '3.0.0' } },
    },
    'bump a again, add package x',
  );
  commit('2024-01-04T10:00:00Z', { 'README.md': 'hello\n' }, 'docs');
  commit(
    '2024-01-05T10:00:00Z',
    {
      'package.json': { name: 'demo', version: '1.1.0', dependencies: { a: '^1.2.0' }, devDependencies: { vitest: '4.1.0' } },
      'packages/x/package.json': { name: '@demo/x', version: '0.1.0', dependencies: { c: '3.1.0', d: '1.0.0' } },
    },
    'remove b, bump vitest, version 1.1.0',
  );
  commit('2024-01-06T10:00:00Z', { 'packages/x/package.json': null }, 'drop package x');
});

afterAll(() => repo.remove());

/** What package.json files at a commit say, as the replayed claims should: fact key → value. */
function expectedState(sha: string): Map<string, unknown> {
  const state = new Map<string, unknown>();
  const files = run(['ls-tree', '-r', '--name-only', sha]).split('\n').filter((p) => p.endsWith('package.json'));
  for (const path of files) {
    const facts = parsePackageJson(run(['show', `${sha}:${path}`]));
    if (!facts) continue;
    const where: Record<string, string> = path === 'package.json' ? {} : { path };
    if (facts.name) state.set(factKey('package_name', where), facts.name);
    if (facts.version) state.set(factKey('package_version', where), facts.version);
    for (const section of DEPENDENCY_SECTIONS) {
      for (const [name, range] of Object.entries(facts.dependencies[section] ?? {})) {
        state.set(factKey('dependency', { manager: 'npm', section, name, ...where }), range);
      }
    }
  }
  return state;
}

function factKey(predicate: string, qualifiers: Record<string, string> = {}): string {
  return JSON.stringify([predicate, Object.entries(qualifiers).sort()]);
}

function apply(state: Map<string, unknown>, claim: ClaimInput): void {
  const k = factKey(claim.predicate, claim.qualifiers);
  if (claim.op === 'retract') {
    expect(state.get(k)).toEqual(claim.value);
    state.delete(k);
  } else {
    state.set(k, claim.value);
  }
}

const connector = () => createGitConnector({ path: dir, batchSize: 3 });

describe('git connector', () => {
  it('emits one episode per first-parent commit whose claims replay to each commit’s package.json', async () => {
    const sink = new MemorySink();
    const summary = await runConnector(connector(), sink);
    expect(summary).toMatchObject({ fetched: 7, created: 7, duplicates: 0, batches: 3 });
    // "remove b" and "drop package x" retract dependencies.
    expect(summary.retractions).toBe(2);

    const shas = run(['log', '--first-parent', '--reverse', '--format=%H']).trim().split('\n');
    const ordered = [...sink.episodes].sort(
      (a, b) => (a.occurred_at ?? '').localeCompare(b.occurred_at ?? '') || (a.sequence ?? 0) - (b.sequence ?? 0),
    );
    expect(ordered.map((e) => e.source_ref)).toEqual(shas);
    const state = new Map<string, unknown>();
    ordered.forEach((episode, i) => {
      expect(episode).toMatchObject({ source: 'git', subject: 'repo:acme/demo', kind: 'commit', sequence: i, lineage: 'git:acme/demo' });
      for (const claim of episode.body.claims ?? []) {
        expect(claim.effective_from).toBe(episode.occurred_at);
        apply(state, claim);
      }
      expect(state).toEqual(expectedState(shas[i] ?? ''));
    });
    const same = ordered.filter((e) => e.occurred_at === '2024-01-03T10:00:00.000Z');
    expect(same.map((e) => e.sequence)).toEqual([2, 3]);
  });

  it('creates nothing on a re-sync from the cursor, one episode for one more commit', async () => {
    const sink = new MemorySink();
    await runConnector(connector(), sink);
    expect(await runConnector(connector(), sink)).toMatchObject({ fetched: 0, created: 0 });
    const sha = commit('2024-01-07T10:00:00Z', { 'package.json': { name: 'demo', version: '1.2.0', dependencies: { a: '^2.0.0' } } }, 'a 2');
    const summary = await runConnector(connector(), sink);
    expect(summary).toMatchObject({ fetched: 1, created: 1 });
    expect(sink.cursor).toEqual({ sha, sequence: 7 });
    const last = sink.episodes.at(-1);
    expect(last?.body.claims?.map((c) => [c.predicate, c.op, c.value])).toEqual([
      ['package_version', 'assert', '1.2.0'],
      ['dependency', 'assert', '^2.0.0'],
      ['dependency', 'retract', '4.1.0'],
    ]);
    // A re-read from the very beginning gives the same keys: duplicates only.
    sink.cursor = null;
    expect(await runConnector(connector(), sink)).toMatchObject({ created: 0, duplicates: 8 });
  });

  it('reports a rewritten history instead of guessing', async () => {
    const sink = new MemorySink();
    await runConnector(connector(), sink);
    run(['reset', '-q', '--hard', 'HEAD~1']);
    commit('2024-01-08T10:00:00Z', { 'README.md': 'rewritten\n' }, 'rewrite');
    const error = await runConnector(connector(), sink).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHistoryRewrittenError);
    expect((error as Error).message).toMatch(/history was rewritten: the last synced commit [0-9a-f]{12} is no longer on the first-parent history of HEAD/);
    sink.cursor = { sha: 'f'.repeat(40), sequence: 3 };
    await expect(runConnector(connector(), sink)).rejects.toThrow(/no longer exists in the repository/);
  });

  it('checks the repository', async () => {
    expect(await connector().check()).toMatchObject({ ok: true });
    expect(await createGitConnector({ path: tmpdir() }).check()).toMatchObject({ ok: false });
  });
});

describe('a package.json that does not parse in one commit', () => {
  it('is skipped, and the next commit is read against the last version that parsed: what it dropped is retracted', async () => {
    const broken = createTestRepo('canon-git-broken-');
    try {
      const pkg = (deps: Record<string, string>, version = '1.0.0') => ({ name: 'demo', version, dependencies: deps });
      broken.commit('2024-02-01T10:00:00Z', { 'package.json': pkg({ 'left-pad': '1.0.0', 'private-lib': '2.0.0', other: '3.0.0' }) }, 'init');
      broken.commit('2024-02-02T10:00:00Z', { 'package.json': pkg({ 'left-pad': '1.0.0', 'private-lib': '2.0.0', other: '3.0.0' }, '1.0.1') }, 'bump');
      broken.commit('2024-02-03T10:00:00Z', { 'package.json': '{not json' }, 'oops');
      broken.commit('2024-02-04T10:00:00Z', { 'package.json': pkg({ 'left-pad': '1.0.0' }, '1.0.2') }, 'fix');
      broken.commit('2024-02-05T10:00:00Z', { 'package.json': '{not json either' }, 'oops again');
      broken.commit('2024-02-06T10:00:00Z', { 'package.json': null }, 'drop it');
      const sink = new MemorySink();
      await runConnector(createGitConnector({ path: broken.dir, id: 'acme/broken' }), sink);
      const ordered = [...sink.episodes].sort((a, b) => (a.sequence ?? 0) - (b.sequence ?? 0));
      const state = new Map<string, unknown>();
      const after: Array<Map<string, unknown>> = [];
      for (const episode of ordered) {
        for (const claim of episode.body.claims ?? []) apply(state, claim);
        after.push(new Map(state));
      }
      const deps = (m: Map<string, unknown>) => [...m.keys()].filter((k) => k.includes('dependency')).map((k) => JSON.parse(k)[1].find(([q]: [string]) => q === 'name')[1]).sort();
      expect(deps(after[1]!)).toEqual(['left-pad', 'other', 'private-lib']);
      // The broken commit changes nothing; the one after it leaves left-pad alone.
      expect(deps(after[2]!)).toEqual(['left-pad', 'other', 'private-lib']);
      expect(deps(after[3]!)).toEqual(['left-pad']);
      // Deleted after a version that did not parse: what the last good one stated goes.
      expect(after[5]!.size).toBe(0);
    } finally {
      broken.remove();
    }
  });
});

describe('git key recipe', () => {
  const item: GitCommitItem = {
    repoId: 'acme/demo',
    sha: 'a'.repeat(40),
    parent: null,
    sequence: 0,
    committedAt: '2024-01-01T10:00:00.000Z',
    message: 'init',
    packages: [],
  };
  const keyOf = (i: GitCommitItem) => commitToEpisodes(i)[0]?.idempotency_key;

  it('names the commit: the same item gives the same key, a new repo or sha another', () => {
    expect(keyOf(item)).toBe(keyOf({ ...item }));
    expect(keyOf({ ...item, repoId: 'acme/other' })).not.toBe(keyOf(item));
    expect(keyOf({ ...item, sha: 'b'.repeat(40) })).not.toBe(keyOf(item));
  });

  it('does not depend on the clock', async () => {
    const before = commitToEpisodes(item);
    await new Promise((r) => setTimeout(r, 5));
    expect(commitToEpisodes(item)).toEqual(before);
  });
});

describe('ownerNameFromRemote', () => {
  it.each([
    ['git@github.com:acme/demo.git', 'acme/demo'],
    ['https://github.com/acme/demo', 'acme/demo'],
    ['ssh://git@host:22/acme/demo.git', 'acme/demo'],
    ['/srv/git/demo.git', null],
    ['file:///srv/git/demo.git', null],
    ['', null],
  ])('%s → %s', (url, expected) => {
    expect(ownerNameFromRemote(url)).toBe(expected);
  });
});
