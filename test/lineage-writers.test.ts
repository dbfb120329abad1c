import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';

// A lineage is a name anyone can write. Found by an outside review: a second agent naming the
// first's default lineage (`api:<its idempotency key>`, in the log for any role to read) replaced
// the first agent's value as its "newer version", where another writer of equal standing disputes.

let canon: TestCanon;
let ann: string;
let bob: string;
let owner: string;

const claim = (key: string, value: string, at: string, lineage?: string) => ({
  idempotency_key: key,
  subject: 'service:db',
  occurred_at: at,
  kind: 'claim',
  ...(lineage ? { lineage } : {}),
  body: { claims: [{ predicate: 'primary host', value }] },
});

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  owner = (await canon.key('owner')).key;
  ann = (await canon.key('agent', { user: 'ann' })).key;
  bob = (await canon.key('agent', { user: 'bob' })).key;
}, 60_000);
afterAll(() => canon?.close());

async function post(key: string, body: unknown): Promise<void> {
  const res = await canon.request('/v1/episodes?compile=wait', { key, json: body });
  expect(res.status, await res.clone().text()).toBe(200);
}

it("disputes a peer's value written into another writer's lineage instead of replacing it", async () => {
  await post(ann, claim('ann-1', 'db1.internal', '2026-11-01T10:00:00Z'));
  await post(bob, claim('bob-1', 'evil.internal', '2026-11-02T10:00:00Z', 'api:ann-1'));
  const read = async () => (await (await canon.request('/v1/subjects/service%3Adb/memories', { key: owner })).json()).memories[0] as { status: string; conflict: Array<{ value: unknown }>; current: Array<{ value: unknown }> };
  const disputed = await read();
  expect(disputed.status).toBe('conflicted');
  expect(disputed.conflict.map((s) => s.value).sort()).toEqual(['db1.internal', 'evil.internal']);
  // Verify agrees with what the compile did (incremental = rebuild).
  const principal = await canon.runtime.authenticate(owner);
  expect((await canon.runtime.verify(principal, 'service:db')).ok).toBe(true);
});

it("keeps a writer's facts when a peer's snapshot version of their document states other things", async () => {
  const snapshot = (key: string, at: string, claims: Array<{ predicate: string; value: string }>) => ({
    idempotency_key: key,
    subject: 'service:queue',
    occurred_at: at,
    kind: 'claim',
    lineage: 'doc:runbook',
    snapshot: true,
    body: { claims },
  });
  await post(ann, snapshot('ann-doc-1', '2026-11-01T10:00:00Z', [{ predicate: 'primary host', value: 'mq1.internal' }]));
  // Bob names Ann's lineage: his "newer version" of her runbook no longer states her host.
  await post(bob, snapshot('bob-doc-1', '2026-11-02T10:00:00Z', [{ predicate: 'maintainer', value: 'bob' }]));
  const host = async () => {
    const body = (await (await canon.request('/v1/subjects/service%3Aqueue/memories', { key: owner })).json()) as { memories: Array<{ key: string; status: string; current: Array<{ value: unknown }> }> };
    return body.memories.find((m) => m.key.includes('primary host'));
  };
  expect(await host()).toMatchObject({ status: 'current', current: [{ value: 'mq1.internal' }] });
  const principal = await canon.runtime.authenticate(owner);
  expect((await canon.runtime.verify(principal, 'service:queue')).ok).toBe(true);
  // Her own next version that leaves it out ends it.
  await post(ann, snapshot('ann-doc-2', '2026-11-03T10:00:00Z', [{ predicate: 'maintainer', value: 'ann' }]));
  expect((await host())?.status).toBe('tombstoned');
  expect((await canon.runtime.verify(principal, 'service:queue')).ok).toBe(true);
});
