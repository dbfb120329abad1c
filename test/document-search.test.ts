import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';

// A scanned file's prose states no fact, so it gives no memory (design §3), yet a user who scanned
// their docs can still find it: search answers from the text of each file's version in force.
let canon: TestCanon;
let owner: string;
let alice: string;
let bob: string;

const version = (path: string, n: number, text: string, extra: Record<string, unknown> = {}) => ({
  source: 'workspace',
  idempotency_key: `doc|${path}|${n}`,
  subject: `workspace:docs:${path}`,
  lineage: `workspace:docs:${path}`,
  snapshot: true,
  kind: 'document',
  occurred_at: `2026-11-0${n + 1}T09:00:00Z`,
  source_ref: path,
  body: { text, path },
  ...extra,
});

async function documents(query: string, key = owner) {
  const res = await canon.request(`/v1/search?${query}`, { key });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()).documents as Array<{ subject: string; source_ref: string | null; snippet: string; rank: number }>;
}

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  owner = (await canon.key('owner')).key;
  alice = (await canon.key('member', { user: 'alice' })).key;
  bob = (await canon.key('member', { user: 'bob' })).key;
  const connector = (await canon.runtime.createKey({ workspace: 'default', role: 'connector', sources: ['workspace'] })).key;
  const send = async (key: string, episodes: unknown[]) => {
    const res = await canon.request('/v1/episodes?compile=wait', { key, json: { episodes } });
    expect(res.status, await res.clone().text()).toBe(200);
  };
  await send(connector, [
    version('guide.md', 0, 'The retry loop backs off exponentially whenever the upstream answers slowly.'),
    version('notes.md', 0, 'Sharding was considered and rejected for now.'),
    version('gone.md', 0, 'This page explains the exponential backoff of the old client.'),
  ]);
  // A newer version of guide.md no longer says it; gone.md is deleted.
  await send(connector, [
    version('guide.md', 1, 'The retry loop waits a fixed second between attempts.'),
    version('gone.md', 1, '', { kind: 'retraction', body: { text: '', path: 'gone.md', retract_lineage: true } }),
  ]);
  await send(alice, [{ idempotency_key: 'diary', subject: 'person:alice', scope: 'personal', kind: 'document', body: { text: 'My exponential savings plan, private.' } }]);
});

afterAll(async () => {
  await canon?.close();
});

describe('search over the text of scanned documents', () => {
  it('finds a word of prose that gave no memory, with the fragment that matched', async () => {
    const found = await documents('q=sharding');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ subject: 'workspace:docs:notes.md', source_ref: 'notes.md' });
    expect(found[0]!.snippet).toContain('«Sharding»');
    const res = await canon.request(`/v1/subjects/${encodeURIComponent('workspace:docs:notes.md')}/memories`, { key: owner });
    expect((await res.json()).memories).toEqual([]);
  });

  it('answers from the version in force only: not an older version, not a deleted file', async () => {
    expect(await documents('q=exponentially')).toEqual([]);
    expect(await documents('q=backoff')).toEqual([]);
    expect((await documents('q=fixed+second')).map((d) => d.subject)).toEqual(['workspace:docs:guide.md']);
  });

  it('keeps a personal document to its owner, and honours subject and limit', async () => {
    expect((await documents('q=savings', alice)).map((d) => d.subject)).toEqual(['person:alice']);
    expect(await documents('q=savings', bob)).toEqual([]);
    expect(await documents('q=savings', owner)).toEqual([]);
    expect(await documents(`q=retry&subject=${encodeURIComponent('workspace:docs:notes.md')}`)).toEqual([]);
    expect((await documents('q=the&limit=1')).length).toBe(1);
  });
});

describe('a search costs what its words can, not what a reader makes them', () => {
  let wide: TestCanon;
  let reader: string;
  const docs = (from: number, n: number, text: (i: number) => string) =>
    Array.from({ length: n }, (_, i) => ({ idempotency_key: `long-${from + i}`, subject: `repo:long-${from + i}`, kind: 'document', body: { path: `f${from + i}.txt`, text: text(from + i) } }));

  beforeAll(async () => {
    // A timeout no search of long documents can keep: every search here is stopped.
    wide = await startTestCanon({ queue: false }, { CANON_SEARCH_TIMEOUT_MS: '1' });
    const writer = (await wide.key('member', { user: 'w' })).key;
    reader = (await wide.key('reader')).key;
    for (let b = 0; b < 4; b += 1) {
      const res = await wide.request('/v1/episodes', { key: writer, json: { episodes: docs(b * 10, 10, (i) => `${'a '.repeat(4000)}file ${i} ${'alpha beta gamma '.repeat(500)}`) } });
      expect(res.status, await res.clone().text()).toBe(200);
    }
  });

  afterAll(async () => {
    await wide?.close();
  });

  it('is stopped on the server past CANON_SEARCH_TIMEOUT_MS and answered 503 busy, naming what to do', async () => {
    const res = await wide.request(`/v1/search?q=a+alpha`, { key: reader });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    const body = await res.json();
    expect(body).toMatchObject({ type: 'urn:canon:problem:busy' });
    expect(body.detail).toBe('the search was stopped after 0.001 s: search for fewer or rarer words, or within one subject');
    // Nothing of it is left running on the server.
    const { rows } = await wide.runtime.pool.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%canon_search%' AND state = 'active' AND pid <> pg_backend_pid()`);
    expect(rows[0].n).toBe(0);
  });

  it('says a word once however often it is repeated, and refuses more than 32 words', async () => {
    // 255 times one word is one word: searched (and stopped here by the timeout, not refused).
    const repeated = await wide.request(`/v1/search?q=${encodeURIComponent('a '.repeat(255).trim())}`, { key: reader });
    expect(repeated.status).toBe(503);
    const many = Array.from({ length: 33 }, (_, i) => `w${i}`).join(' ');
    const refused = await wide.request(`/v1/search?q=${encodeURIComponent(many)}`, { key: reader });
    expect(refused.status).toBe(400);
    const problem = await refused.json();
    expect(problem.issues).toEqual([{ index: 0, path: 'q', message: 'at most 32 words (this has 33): search for the ones that tell what you look for' }]);
    // 29 words, one of them said again after OR, and a phrase of two: 31 words.
    const fits = `${Array.from({ length: 29 }, (_, i) => `w${i}`).join(' ')} w0 "two words" OR w1`;
    expect((await wide.request(`/v1/search?q=${encodeURIComponent(fits)}`, { key: reader })).status).toBe(503);
  });
});

describe('with the timeout it ships with', () => {
  it('finds a word said 127 times as the word said once', async () => {
    const same = await documents(`q=${encodeURIComponent('the '.repeat(127).trim())}&limit=100`);
    expect(same).toEqual(await documents('q=the&limit=100'));
    expect(same.length).toBeGreaterThan(0);
  });

  it('shows the fragment that matched in a long document, past an excluded word, with a phrase', async () => {
    const res = await canon.request('/v1/episodes', {
      key: owner,
      json: { episodes: [{ idempotency_key: 'long-doc', subject: 'repo:long', kind: 'document', body: { path: 'long.txt', text: `${'lorem ipsum '.repeat(3000)}the zanzibar gateway retries twice. ${'dolor '.repeat(2000)}` } }] },
    });
    expect(res.status).toBe(200);
    for (const q of ['zanzibar', '-nowhere zanzibar', '"zanzibar gateway" retries', 'zanzibar OR nowhere']) {
      const [hit] = await documents(`q=${encodeURIComponent(q)}&subject=repo%3Along`);
      expect(hit?.snippet, q).toContain('«zanzibar»');
    }
    expect(await documents(`q=${encodeURIComponent('zanzibar -lorem')}&subject=repo%3Along`)).toEqual([]);
  });
});
