import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';

let canon: TestCanon;
let owner: string;

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  owner = (await canon.key('owner')).key;
});
afterAll(() => canon.close());

const doc = (key: string, path: string, text: string) => ({ idempotency_key: key, subject: `docs:${path}`, kind: 'document', snapshot: true, body: { path, text } });

describe('a document posted over HTTP', () => {
  it('is read by its format; the answer says how many statements it leaves out, and no conflict opens', async () => {
    const text = '# Queue\n\n## Options\n\n- Default: 2\n- Default: 3\n\n### retryLimit\n\nDefaults to 2.\n\n| option | type |\n|---|---|\n| retryDelay | number |\n';
    const res = await canon.request('/v1/episodes?compile=wait', { key: owner, json: doc('opts-1', 'options.md', text) });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ created: 1, statements: { ambiguous: 2 }, compiled: [{ conflicts_opened: 0 }] });
    const memories = await (await canon.request('/v1/subjects/docs%3Aoptions.md/memories', { key: owner })).json();
    expect(memories.memories.map((m: { predicate: string; qualifiers: Record<string, string>; current: Array<{ value: unknown }> }) => [m.predicate, m.qualifiers, m.current[0]?.value])).toEqual(
      expect.arrayContaining([
        ['default', { h2: 'Options', h3: 'retryLimit' }, '2'],
        ['type', { h2: 'Options', h3: 'retryLimit', row: 'retryDelay' }, 'number'],
      ]),
    );
    expect(memories.memories).toHaveLength(2);
  });

  it('stores a file nested past what its parser is given, searchable, read for no fact: ingest, compile and preview answer', async () => {
    // A writer of any role sent these; each was a 500 at ingest (a parser's stack overflow), or
    // stored and then failed every compile and every preview of the workspace.
    const files: Array<[string, string]> = [
      ['deep.json', `${'['.repeat(5000)}${']'.repeat(5000)}`],
      ['objects.json', `${'{"a":'.repeat(4500)}1${'}'.repeat(4500)}`],
      ['quotes.md', `${'>'.repeat(1900)} hi`],
      ['stars.md', `${'*'.repeat(5000)}a${'*'.repeat(5000)}`],
    ];
    for (const [path, text] of files) {
      const res = await canon.request('/v1/episodes?compile=wait', { key: owner, json: doc(`deep-${path}`, path, text) });
      expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
      expect(await res.json(), path).toMatchObject({ created: 1, statements: { too_deep: 1 }, compiled: [{ episodes_processed: 1, memories_created: 0 }] });
    }
    const rebuilt = await canon.request('/v1/rebuild', { key: owner, json: { subject: 'docs:deep.json' } });
    expect(rebuilt.status).toBe(200);
    const preview = await canon.request('/v1/preview', { key: owner, json: { policies: { time_zone: 'Europe/Paris' } } });
    expect(preview.status, await preview.clone().text()).toBe(200);
    const found = await (await canon.request('/v1/search?q=hi&subject=docs%3Aquotes.md', { key: owner })).json();
    expect(found.documents.map((d: { subject: string }) => d.subject)).toEqual(['docs:quotes.md']);
  });

  it('says nothing of statements when every one gives a fact, or when it is no document', async () => {
    const settings = await (await canon.request('/v1/episodes', { key: owner, json: doc('cfg-1', 'tsconfig.json', '{ "compilerOptions": { "strict": true } }') })).json();
    expect(settings).toMatchObject({ created: 1 });
    expect(settings.statements).toBeUndefined();
    const message = await (await canon.request('/v1/episodes', { key: owner, json: { idempotency_key: 'm-1', subject: 's', body: { text: '- Default: 2\n- Default: 3' } } })).json();
    expect(message.statements).toBeUndefined();
  });

  it('compiles a JSON file that spells a NUL ("\\u0000"), and the workspace still exports', async () => {
    // iconv-lite ships such tables: stored, the escape became a NUL in a value, which PostgreSQL
    // cannot hold — a 500, a subject that never compiled again, and no export of the workspace.
    const res = await canon.request('/v1/episodes?compile=wait', { key: owner, json: doc('nul-1', 'conf.json', '{"sep": "a\\u0000b", "name": "x"}') });
    expect(res.status, await res.clone().text()).toBe(200);
    const memories = (await (await canon.request('/v1/subjects/docs%3Aconf.json/memories', { key: owner })).json()).memories as Array<{ predicate: string; current: Array<{ value: unknown }> }>;
    expect(Object.fromEntries(memories.map((m) => [m.predicate, m.current[0]?.value]))).toMatchObject({ sep: 'a\ufffdb', name: 'x' });
    const exported = await canon.request('/v1/export', { key: owner });
    expect(exported.status).toBe(200);
    expect(await exported.text()).toContain('"type":"manifest"');
  });
});

describe("a document's keys and candidates", () => {
  type Memory = { id: string; predicate: string; candidates: Array<{ memory_id: string }> };
  const memoriesOf = async (subject: string) =>
    ((await (await canon.request(`/v1/subjects/${encodeURIComponent(subject)}/memories`, { key: owner })).json()).memories as Memory[]);

  it("proposes no pair between two keys of one file (devDependencies.eslint / …eslint-plugin-import, type / types), and still between two documents' wordings", async () => {
    const pkg = JSON.stringify({ name: 'app', type: 'module', types: 'dist/index.d.ts', devDependencies: { eslint: '^9.0.0', 'eslint-plugin-import': '^2.29.0', jest: '^29.0.0', '@types/jest': '^29.5.0' } });
    const version = (key: string, text: string) => ({ ...doc(key, 'package.json', text), lineage: 'app/package.json' });
    const res = await canon.request('/v1/episodes?compile=wait', { key: owner, json: version('pkg-1', pkg) });
    expect(res.status).toBe(200);
    const keys = await memoriesOf('docs:package.json');
    expect(keys.map((m) => m.predicate).sort()).toEqual(['devDependencies.@types/jest', 'devDependencies.eslint', 'devDependencies.eslint-plugin-import', 'devDependencies.jest', 'name', 'type', 'types']);
    expect(keys.flatMap((m) => m.candidates)).toEqual([]);
    // A second version of the file (its lineage) keeps it so (resumed folds keep the memory's one document).
    const next = JSON.parse(pkg) as { devDependencies: Record<string, string> };
    next.devDependencies['eslint'] = '^9.1.0';
    expect((await canon.request('/v1/episodes?compile=wait', { key: owner, json: version('pkg-2', JSON.stringify(next)) })).status).toBe(200);
    expect((await memoriesOf('docs:package.json')).flatMap((m) => m.candidates)).toEqual([]);
    const principal = await canon.runtime.authenticate(owner);
    expect((await canon.runtime.verify(principal, 'docs:package.json')).ok).toBe(true);
    // The same file sent again without its lineage (another document, as Canon reads it), and a
    // second file of the subject stating one of its keys: each key is still one this file states.
    expect((await canon.request('/v1/episodes?compile=wait', { key: owner, json: doc('pkg-again', 'package.json', pkg) })).status).toBe(200);
    const cli = { ...doc('cli-1', 'packages/cli/package.json', JSON.stringify({ devDependencies: { jest: '^29.1.0' } })), subject: 'docs:package.json', lineage: 'app/packages/cli/package.json' };
    expect((await canon.request('/v1/episodes?compile=wait', { key: owner, json: cli })).status).toBe(200);
    expect((await memoriesOf('docs:package.json')).flatMap((m) => m.candidates)).toEqual([]);
    expect((await canon.runtime.verify(principal, 'docs:package.json')).ok).toBe(true);

    // Two files of one subject, each naming the deploy day its own way: a candidate pair.
    const subject = 'service:deploys';
    const post = async (key: string, path: string, text: string) =>
      expect((await canon.request('/v1/episodes?compile=wait', { key: owner, json: { idempotency_key: key, subject, kind: 'document', snapshot: true, lineage: path, body: { path, text } } })).status).toBe(200);
    await post('ci-1', 'ci/deploy.json', JSON.stringify({ staging: { deploy_day: 'Tuesday' } }));
    await post('ops-1', 'ops/schedule.json', JSON.stringify({ deploys: { staging: { day: 'Thursday' } } }));
    const both = await memoriesOf(subject);
    expect(both).toHaveLength(2);
    expect(both.map((m) => m.candidates.map((c) => c.memory_id))).toEqual([[both[1]!.id], [both[0]!.id]]);
    expect((await canon.runtime.verify(principal, subject)).ok).toBe(true);
  });
});
