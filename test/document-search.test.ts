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
