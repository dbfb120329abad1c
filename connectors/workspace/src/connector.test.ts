import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { subjectFault } from '@canon/core';
import { ConnectorAbortedError, runConnector } from '@canon/connector-kit';
import { MemorySink } from '@canon/connector-kit/testing';
import { createWorkspaceConnector, forgetWorkspaceSubjects, workspaceKey, workspaceToEpisodes, type WorkspaceItem } from './connector.js';

let root: string;
let sink: MemorySink;

const write = (path: string, content: string | Buffer) => {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), content);
};
const scan = (config: Record<string, unknown> = {}) =>
  runConnector(createWorkspaceConnector({ path: root, id: 'notes', batchSize: 2, ...config }), sink);

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'canon-ws-'));
  sink = new MemorySink();
  write('README.md', 'Canon compiles memory.\nThe API listens on port 8080.\n');
  write('docs/deploy.md', 'Deploys happen on Tuesday.\n');
  write('docs/notes.txt', 'Billing runs nightly.\n');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('workspace connector', () => {
  it('scans text files into snapshot episodes; a rescan creates nothing', async () => {
    expect(await scan()).toMatchObject({ fetched: 3, created: 3, duplicates: 0, batches: 2 });
    const readme = sink.episodes.find((e) => e.source_ref === 'README.md');
    expect(readme).toMatchObject({
      source: 'workspace',
      subject: 'workspace:notes:README.md',
      lineage: 'workspace:notes:README.md',
      kind: 'document',
      snapshot: true,
      body: { text: 'Canon compiles memory.\nThe API listens on port 8080.\n', path: 'README.md' },
    });
    expect(readme?.occurred_at).toBeUndefined();
    expect(readme?.body.claims).toEqual([
      { predicate: 'file_hash', value: expect.stringMatching(/^[0-9a-f]{64}$/), qualifiers: { path: 'README.md' }, op: 'assert' },
    ]);
    expect(await scan()).toMatchObject({ fetched: 3, created: 0, submitted: 0 });
  });

  it('gives one new episode for an edited sentence', async () => {
    await scan();
    write('README.md', 'Canon compiles memory.\nThe API listens on port 9090.\n');
    expect(await scan()).toMatchObject({ created: 1 });
    expect(sink.episodes.at(-1)?.body.text).toContain('9090');
  });

  it('counts A → B → A as three events, and A → B → A → B as four', async () => {
    const a = 'Deploys happen on Tuesday.\n';
    const b = 'Deploys happen on Thursday.\n';
    await scan(); // A
    write('docs/deploy.md', b);
    await scan();
    write('docs/deploy.md', a);
    await scan();
    write('docs/deploy.md', b);
    await scan();
    const versions = sink.episodes.filter((e) => e.source_ref === 'docs/deploy.md');
    expect(versions.map((e) => e.body.text)).toEqual([a, b, a, b]);
    expect(new Set(versions.map((e) => e.idempotency_key)).size).toBe(4);
  });

  it('retracts a deleted file, and a re-created file is a new event', async () => {
    await scan();
    rmSync(join(root, 'docs/notes.txt'));
    const summary = await scan();
    expect(summary).toMatchObject({ created: 1, retractions: 1 });
    const retraction = sink.episodes.at(-1);
    expect(retraction).toMatchObject({
      subject: 'workspace:notes:docs/notes.txt',
      lineage: 'workspace:notes:docs/notes.txt',
      kind: 'retraction',
      snapshot: true,
      body: { text: '', retract_lineage: true, claims: [{ predicate: 'file_hash', op: 'retract', qualifiers: { path: 'docs/notes.txt' } }] },
    });
    expect(await scan()).toMatchObject({ created: 0 });
    write('docs/notes.txt', 'Billing runs nightly.\n');
    expect(await scan()).toMatchObject({ created: 1, retractions: 0 });
  });

  it('forgets an erased file: passed over while unchanged, not retracted when deleted, new when edited; the cursor names it nowhere', async () => {
    await scan();
    const before = sink.episodes.length;
    const erased = forgetWorkspaceSubjects(sink.cursor, ['workspace:notes:docs/deploy.md', 'workspace:other-root:README.md'], 'workspace:notes');
    expect(JSON.stringify(erased)).not.toContain('deploy.md');
    expect(JSON.stringify(erased)).toContain('README.md');
    // Nothing of another root, nothing unknown: the cursor is left as it is.
    expect(forgetWorkspaceSubjects(erased, ['workspace:notes:nowhere.md'], 'workspace:notes')).toBeUndefined();
    sink.cursor = erased as typeof sink.cursor;
    // Unchanged: passed over.
    let summary = await scan();
    expect(sink.episodes.length).toBe(before);
    expect(summary.skipped).toMatchObject({ erased: 1 });
    // Deleted: no retraction of what is no longer there.
    rmSync(join(root, 'docs/deploy.md'));
    summary = await scan();
    expect(sink.episodes.length).toBe(before);
    expect(JSON.stringify(sink.cursor)).not.toMatch(/deploy|erased/);
    // Written again later: a new file.
    write('docs/deploy.md', 'Deploys happen on Friday.\n');
    await scan();
    expect(sink.episodes.slice(before).map((e) => e.source_ref)).toEqual(['docs/deploy.md']);
  });

  it('takes an erased file\'s edit after the erasure as new', async () => {
    await scan();
    const before = sink.episodes.length;
    sink.cursor = forgetWorkspaceSubjects(sink.cursor, ['workspace:notes:docs/deploy.md'], 'workspace:notes') as typeof sink.cursor;
    write('docs/deploy.md', 'Deploys happen on Monday.\n');
    await scan();
    expect(sink.episodes.slice(before).map((e) => [e.source_ref, e.kind])).toEqual([['docs/deploy.md', 'document']]);
  });

  it('skips ignored, binary and oversized files with their reasons', async () => {
    write('.gitignore', 'node_modules/\n*.log\n');
    write('node_modules/x/index.js', 'module.exports = 1;\n');
    write('debug.log', 'noise\n');
    write('docs/.gitignore', 'drafts/\n!keep.log\n');
    write('docs/drafts/a.md', 'draft\n');
    write('docs/keep.log', 'kept by a nested negation\n');
    write('logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    write('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    write('big.txt', 'x'.repeat(2_000));
    mkdirSync(join(root, '.git'));
    writeFileSync(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    const summary = await scan({ maxFileBytes: 1_000 });
    expect(summary.skipped).toEqual({ ignored: 3, binary: 2, too_large: 1 });
    expect(sink.episodes.map((e) => e.source_ref).sort()).toEqual([
      '.gitignore',
      'README.md',
      'docs/.gitignore',
      'docs/deploy.md',
      'docs/keep.log',
      'docs/notes.txt',
    ]);
  });

  it('reads what git reads above the root: the repository\'s info/exclude and the .gitignore of each folder from its top', async () => {
    write('.git/HEAD', 'ref: refs/heads/main\n');
    write('.git/info/exclude', 'scratch.md\n');
    write('.gitignore', 'node_modules/\ndist/\n');
    write('packages/.gitignore', '*.generated.md\n');
    write('packages/app/.gitignore', '!keep.generated.md\n');
    write('packages/app/README.md', 'The app listens on port 3000.\n');
    write('packages/app/scratch.md', 'a note kept out of git\n');
    write('packages/app/api.generated.md', 'generated\n');
    write('packages/app/keep.generated.md', 'kept by the folder\'s own negation\n');
    write('packages/app/node_modules/dep/README.md', 'a dependency\n');
    write('packages/app/dist/index.md', 'built\n');
    const summary = await runConnector(createWorkspaceConnector({ path: join(root, 'packages', 'app'), id: 'app', batchSize: 2 }), sink);
    expect(sink.episodes.map((e) => e.source_ref).sort()).toEqual(['.gitignore', 'README.md', 'keep.generated.md']);
    expect(summary.skipped).toMatchObject({ ignored: 4 });
  });

  it('reads the repository\'s info/exclude at its top, and a folder named by a .gitignore above when it is the one asked for', async () => {
    write('.git/HEAD', 'ref: refs/heads/main\n');
    write('.git/info/exclude', 'docs/notes.txt\n');
    write('.gitignore', 'node_modules/\n');
    write('node_modules/dep/README.md', 'The dependency parses YAML.\n');
    await scan();
    expect(sink.episodes.map((e) => e.source_ref).sort()).toEqual(['.gitignore', 'README.md', 'docs/deploy.md']);
    const dep = new MemorySink();
    await runConnector(createWorkspaceConnector({ path: join(root, 'node_modules', 'dep'), id: 'dep', batchSize: 2 }), dep);
    expect(dep.episodes.map((e) => e.source_ref)).toEqual(['README.md']);
  });

  it('skips a path whose subject is longer than a name may be in bytes, as the door measures it', async () => {
    const accented = ['é'.repeat(100), 'é'.repeat(100), 'é'.repeat(100), 'a.md'].join('/');
    const plain = ['a'.repeat(100), 'b'.repeat(100), 'c'.repeat(100), 'a.md'].join('/');
    write(accented, 'The accented path holds a fact.\n');
    write(plain, 'The plain path holds a fact.\n');
    const summary = await scan();
    expect(summary.skipped).toMatchObject({ path_too_long: 1 });
    expect(sink.episodes.map((e) => e.source_ref)).toContain(plain);
    expect(sink.episodes.map((e) => e.source_ref)).not.toContain(accented);
    for (const e of sink.episodes) expect(Buffer.byteLength(e.subject, 'utf8')).toBeLessThanOrEqual(512);
  });

  it('passes over a file whose name holds a character no reader sees, or ends in a space, and reads the rest', async () => {
    for (const name of ['deploy\u200b.md', 'run\u202egpj.md', 'notes.md ', 'line\nbreak.md', ' leading.md', 'dir /inner.md']) write(name, 'A file with a name that passes for another.\n');
    write('two words.md', 'A space inside a name is a name.\n');
    write('می\u200cخواهم.md', 'A Persian name holds a zero-width non-joiner.\n');
    const summary = await scan();
    expect(summary.skipped).toMatchObject({ unsafe_name: 6 });
    expect(sink.episodes.map((e) => e.source_ref).filter((p) => p !== undefined && p !== '.gitignore' && !p.startsWith('docs/') && p !== 'README.md').sort()).toEqual(['two words.md', 'می\u200cخواهم.md'].sort());
    for (const e of sink.episodes) expect(subjectFault(e.subject), e.subject).toBeNull();
  });

  it('passes over secret files unread by default, reads .env.example, and lets the list be changed', async () => {
    const secretFiles = [
      '.env',
      '.env.production',
      'config/.env.local',
      'certs/server.pem',
      'certs/server.key',
      'home/.ssh/id_rsa',
      'home/.ssh/id_ed25519',
      'store.p12',
      'store.pfx',
      'app.jks',
      'release.keystore',
      '.npmrc',
      '.pypirc',
      '.netrc',
      '.git-credentials',
      'gcp/credentials.json',
      'home/.aws/credentials',
      'kubeconfig',
      'home/.kube/config',
      'infra/terraform.tfstate',
      'home/.pgpass',
      'home/.docker/config.json',
      '.streamlit/secrets.toml',
      'config/secrets.yml',
      'web/.htpasswd',
    ];
    for (const path of secretFiles) write(path, 'SECRET=1\n');
    write('.env.example', 'DATABASE_URL=postgres://localhost/dev\n');
    write('home/.ssh/id_rsa.pub', 'ssh-rsa AAAA ada@laptop\n');
    const summary = await scan();
    expect(summary.skipped).toMatchObject({ secret_file: secretFiles.length });
    const read = sink.episodes.map((e) => e.source_ref).sort();
    expect(read).toEqual(['.env.example', 'README.md', 'docs/deploy.md', 'docs/notes.txt', 'home/.ssh/id_rsa.pub']);

    // Extend the list, take a default back: notes.txt now skipped (and retracted), .npmrc read.
    await scan({ secretFiles: ['docs/notes.txt', '!.npmrc'] });
    expect(sink.episodes.filter((e) => e.kind === 'retraction').map((e) => e.source_ref)).toEqual(['docs/notes.txt']);
    expect(sink.episodes.some((e) => e.source_ref === '.npmrc' && e.kind === 'document')).toBe(true);

    // Everything, on request.
    const all = await scan({ includeSecretFiles: true });
    expect(all.skipped['secret_file'] ?? 0).toBe(0);
    expect(sink.episodes.some((e) => e.source_ref === 'home/.ssh/id_rsa')).toBe(true);
  });

  it('retracts a tracked file that becomes ignored', async () => {
    await scan();
    write('.gitignore', 'docs/notes.txt\n');
    const summary = await scan();
    expect(summary).toMatchObject({ created: 2, retractions: 1 });
  });

  it('reads only what `include` names, on top of .gitignore and `ignore`; a file no longer included is retracted', async () => {
    write('.gitignore', 'docs/secret-plan.md\n');
    write('docs/secret-plan.md', 'Plans.\n');
    write('src/app.ts', 'export const x = 1;\n');
    const summary = await scan({ include: ['docs/**', '*.md'], ignore: ['docs/notes.txt'] });
    expect(summary.skipped).toEqual({ ignored: 2, not_included: 2 });
    expect(sink.episodes.map((e) => e.source_ref).sort()).toEqual(['README.md', 'docs/deploy.md']);
    expect(await scan({ include: ['docs/**'], ignore: ['docs/notes.txt'] })).toMatchObject({ created: 1, retractions: 1 });
    expect(sink.episodes.at(-1)).toMatchObject({ source_ref: 'README.md', kind: 'retraction' });
  });

  it('says how many statements of the versions it read will give no fact', async () => {
    write('docs/options.md', '# Q\n\n## Options\n\n- Default: 2\n- Default: 3\n- Owner: a\n');
    write('broken.json', '{"a": ');
    const summary = await scan();
    expect(summary.statements).toEqual({ ambiguous: 2, unparsed: 1 });
    expect(await scan()).toMatchObject({ created: 0, statements: {} });
  });

  it('resumes a scan interrupted between batches without losing or repeating events', async () => {
    const controller = new AbortController();
    let batches = 0;
    const interrupted = runConnector(createWorkspaceConnector({ path: root, id: 'notes', batchSize: 1 }), sink, {
      signal: controller.signal,
      onProgress: () => {
        batches += 1;
        if (batches === 1) controller.abort();
      },
    });
    // It stops because it was aborted, not for any other reason.
    await expect(interrupted).rejects.toBeInstanceOf(ConnectorAbortedError);
    expect(sink.episodes).toHaveLength(1);
    expect(await scan()).toMatchObject({ created: 2, duplicates: 0 });
  });
});

describe('workspace key recipe', () => {
  const item: WorkspaceItem = { change: 'version', rootId: 'notes', path: 'a.md', n: 1, previousHash: 'h0', hash: 'h1', text: 'x' };

  it('gives the same key for the same item, another for any changed identity part', () => {
    expect(workspaceKey(item)).toBe(workspaceKey({ ...item }));
    const variants: WorkspaceItem[] = [
      { ...item, rootId: 'other' },
      { ...item, path: 'b.md' },
      { ...item, n: 2 },
      { ...item, previousHash: 'hx' },
      { ...item, previousHash: null },
      { ...item, hash: 'h2' },
      { change: 'vanished', rootId: 'notes', path: 'a.md', n: 1, previousHash: 'h0' },
    ];
    const keys = new Set(variants.map(workspaceKey));
    expect(keys.size).toBe(variants.length);
    expect(keys.has(workspaceKey(item))).toBe(false);
  });

  it('does not depend on the clock or the text beyond its hash', async () => {
    const before = workspaceToEpisodes(item);
    await new Promise((r) => setTimeout(r, 5));
    expect(workspaceToEpisodes(item)).toEqual(before);
    expect(workspaceKey({ ...item, text: 'other' })).toBe(workspaceKey(item));
  });
});
