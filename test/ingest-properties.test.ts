import { afterAll, beforeAll, expect, it } from 'vitest';
import fc from 'fast-check';
import { startTestCanon, type TestCanon } from '@canon/testing';
import type { Principal, Runtime } from '@canon/runtime';

let canon: TestCanon;
beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
});
afterAll(() => canon.close());

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

it('gives byte-identical content hashes whatever order the batches arrive in', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(episodeArb, { minLength: 1, maxLength: 10 }), async (items) => {
      const p = await freshWorkspace(canon.runtime);
      const forward = items.map(toEpisode);
      const backward = [...forward].reverse();
      await canon.runtime.ingest(p, forward);
      const first = await logState(canon.runtime, p);
      await canon.runtime.ingest(p, backward);
      expect(await logState(canon.runtime, p)).toEqual(first);
    }),
    { numRuns: 30 },
  );
});
