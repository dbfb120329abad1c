import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';

// A CI asserts that compiling again changes nothing. A policy change that no subject's memories
// depend on must keep that true: the subjects it leaves alone were stamped with the old policies'
// fingerprint, and their next compile rebuilt them and counted every memory as created.

let canon: TestCanon;
let owner: string;

const claim = (key: string, subject: string, predicate: string, value: string) => ({ idempotency_key: key, subject, kind: 'claim', body: { claims: [{ predicate, value }] } });
const compile = async (subject: string) => (await canon.request('/v1/compile', { key: owner, json: { subject } })).json();

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  owner = (await canon.key('owner')).key;
  const res = await canon.request('/v1/episodes?compile=wait', {
    key: owner,
    json: { episodes: [claim('a-1', 'service:a', 'deploy day', 'Tuesday'), claim('a-2', 'service:a', 'deploy day', 'Thursday'), claim('b-1', 'service:b', 'region', 'eu-west-1')] },
  });
  expect(res.status).toBe(200);
}, 60_000);
afterAll(() => canon?.close());

it('compiles to zeros after a policy change that touches no memory, and rebuilds the subjects one does touch', async () => {
  const zeros = { episodes_processed: 0, memories_created: 0, memories_updated: 0, memories_superseded: 0, conflicts_opened: 0, tombstoned: 0 };
  const before = { a: await compile('service:a'), b: await compile('service:b') };
  expect(before.a).toMatchObject(zeros);

  const unused = await canon.request('/v1/policies', { method: 'PUT', key: owner, json: { predicates: { 'owning team': { cardinality: 'one', mode: 'flag', min_role: 'member' } } } });
  expect(unused.status, await unused.clone().text()).toBe(200);
  expect((await unused.json()).rebuild).toMatchObject({ subjects: [], mode: 'none' });
  for (const subject of ['service:a', 'service:b'] as const) {
    expect(await compile(subject), subject).toMatchObject({ ...zeros, state_hash: before[subject === 'service:a' ? 'a' : 'b'].state_hash });
  }
  // Stamped with the new policies: verify recomputes under them and agrees.
  const verified = await canon.request('/v1/verify', { key: owner, json: { subject: 'service:a' } });
  expect((await verified.json()).ok).toBe(true);

  // A change that does reach a subject's memories still rebuilds it, and only it.
  const used = await canon.request('/v1/policies', { method: 'PUT', key: owner, json: { predicates: { 'owning team': { cardinality: 'one', mode: 'flag', min_role: 'member' }, 'deploy day': { cardinality: 'one', mode: 'flag', min_role: 'member' } } } });
  expect((await used.json()).rebuild).toMatchObject({ subjects: ['service:a'], mode: 'compiled' });
  expect(await compile('service:b')).toMatchObject({ ...zeros, state_hash: before.b.state_hash });
  expect(await compile('service:a')).toMatchObject(zeros);
});
