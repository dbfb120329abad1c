import { afterAll, beforeAll, expect, it } from 'vitest';
import fc from 'fast-check';
import { startTestCanon, type TestCanon } from '@canon/testing';
import type { Principal, Runtime } from '@canon/runtime';

let canon: TestCanon;
// A second, independent database: the same workspace name in both, so the envelopes (which
// include the workspace) can be compared byte for byte across two logs.
let elsewhere: TestCanon;
beforeAll(async () => {
  [canon, elsewhere] = await Promise.all([startTestCanon({ queue: false }), startTestCanon({ queue: false })]);
});
afterAll(() => Promise.all([canon.close(), elsewhere.close()]));

const episodeArb = fc.record({
  idempotency_key: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'),
  subject: fc.constantFrom('s1', 's2'),
});
// Each key has one envelope (keys name events): the body derives from the key.
const toEpisode = (e: { idempotency_key: string; subject: string }) => ({
  idempotency_key: `${e.subject}/${e.idempotency_key}`,
  subject: e.subject,
  occurred_at: '2026-05-01T00:00:00.000Z',
  body: { text: `fact ${e.idempotency_key} about ${e.subject}` },
});

// Read the table itself: GET /v1/episodes waits for every older transaction of the cluster
// (other test files included) before showing a row, which is its contract, not this test's.
async function logState(runtime: Runtime, principal: Principal): Promise<string[]> {
  const { rows } = await runtime.pool.query<{ s: string }>(
    `SELECT subject || '|' || idempotency_key || '|' || md5(body::text) || '|' || occurred_at AS s FROM episodes WHERE workspace_id = $1`,
    [principal.workspace_id],
  );
  return rows.map((r) => r.s).sort();
}

async function freshWorkspace(runtime: Runtime): Promise<Principal> {
  const { key } = await runtime.createKey({ workspace: `ws-${Math.random().toString(36).slice(2, 10)}`, role: 'owner' });
  return runtime.authenticate(key);
}

it('leaves the same set of episodes for any sequence of batches posted any number of times in any order', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(episodeArb, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 5 }),
      fc.array(fc.nat(), { minLength: 1, maxLength: 12 }),
      async (batches, picks) => {
        const runtime = canon.runtime;
        // Each run in a workspace of its own: workspaces share nothing.
        const once = await freshWorkspace(runtime);
        for (const batch of batches) await runtime.ingest(once, batch.map(toEpisode));
        const shuffled = await freshWorkspace(runtime);
        // Every batch at least once, plus repeats, in an order chosen by the picks.
        const order = [...batches.map((_, i) => i), ...picks.map((p) => p % batches.length)].sort(
          (a, b) => ((picks[a % picks.length] ?? 0) % 7) - ((picks[b % picks.length] ?? 0) % 7),
        );
        for (const i of order) await runtime.ingest(shuffled, batches[i]!.map(toEpisode));
        const expected = [...new Set(batches.flat().map((e) => `${e.subject}/${e.idempotency_key}`))].sort();
        const a = await logState(runtime, once);
        const b = await logState(runtime, shuffled);
        expect(a.map((s) => s.split('|')[1]).sort()).toEqual(expected);
        expect(b).toEqual(a);
      },
    ),
    { numRuns: 100 },
  );
});

it('gives byte-identical content hashes whatever order the episodes arrive in', async () => {
  // Every stored episode with its content hash, read from the table itself.
  const hashes = async (runtime: Runtime, workspace: string) => {
    const { rows } = await runtime.pool.query<{ s: string }>(
      `SELECT source || '|' || idempotency_key || '|' || content_hash AS s FROM episodes WHERE workspace_id = $1`,
      [workspace],
    );
    return rows.map((r) => r.s).sort();
  };
  await fc.assert(
    fc.asyncProperty(fc.array(episodeArb, { minLength: 1, maxLength: 10 }), fc.nat(), async (items, seed) => {
      const workspace = `ws-${Math.random().toString(36).slice(2, 10)}`;
      const forward = items.map(toEpisode);
      const other = fc.sample(fc.shuffledSubarray(forward, { minLength: forward.length }), { seed, numRuns: 1 })[0]!;
      // One log gets them in one batch, in order; the other one by one, shuffled and reversed.
      await canon.runtime.ingest(await canon.runtime.authenticate((await canon.runtime.createKey({ workspace, role: 'owner' })).key), forward);
      const there = await elsewhere.runtime.authenticate((await elsewhere.runtime.createKey({ workspace, role: 'owner' })).key);
      for (const episode of other.reverse()) await elsewhere.runtime.ingest(there, [episode]);
      const here = await hashes(canon.runtime, workspace);
      expect(here).toHaveLength(new Set(forward.map((e) => e.idempotency_key)).size);
      expect(await hashes(elsewhere.runtime, workspace)).toEqual(here);
    }),
    { numRuns: 30 },
  );
});
