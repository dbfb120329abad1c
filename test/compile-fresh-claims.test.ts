import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Principal } from '@canon/runtime';
import { startTestCanon, type TestCanon } from '@canon/testing';

// A compile folds the claims it has just extracted without reading them back from the claims
// table; a later compile of the same key reads them from the table. Both must write the same
// memory: here one workspace compiles a key's episodes in one go and another in two steps, and
// everything but the workspace must agree — reasons that spell object values, the search text
// that lists qualifiers (whose order jsonb decides), values, decisions.

let canon: TestCanon;
const writers = new Map<string, Principal>();
beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  for (const workspace of ['once', 'twice']) for (const user of ['ann', 'bob', 'cid']) writers.set(`${workspace}/${user}`, (await canon.key('member', { workspace, user })).principal);
});
afterAll(() => canon.close());

const SUBJECT = 'service:shapes';
const qualifiers = { region: 'eu', ab: 'x', b: 'y' };
const episode = (i: number, value: unknown, user: string) => ({
  idempotency_key: `shape-${i}`,
  subject: SUBJECT,
  occurred_at: new Date(Date.UTC(2025, 0, 1, i)).toISOString(),
  user,
  body: { claims: [{ predicate: 'routing table', qualifiers, value }] },
});
const first = [episode(0, { zz: 1, a: { yy: 'two', b: 3 } }, 'ann'), episode(1, { b: 1, ab: [{ zz: 0, c: 1 }] }, 'bob')];
const second = [episode(2, { zz: 1, a: { yy: 'two', b: 4 } }, 'cid'), episode(3, 'plain', 'ann')];

/** Each episode from its author's key in the workspace. */
async function ingest(workspace: string, episodes: ReadonlyArray<ReturnType<typeof episode>>) {
  for (const { user, ...e } of episodes) await canon.runtime.ingest(writers.get(`${workspace}/${user}`)!, [e]);
}

async function stored(workspace: string) {
  const { rows: memories } = await canon.runtime.pool.query<{ timeline: { values: unknown[]; decisions: unknown[]; status_hint: string } }>(
    'SELECT timeline FROM memories WHERE workspace_id = $1 AND subject = $2',
    [workspace, SUBJECT],
  );
  const { rows: values } = await canon.runtime.pool.query(
    'SELECT ord, value, search_text, status FROM memory_values WHERE workspace_id = $1 AND subject = $2 ORDER BY ord',
    [workspace, SUBJECT],
  );
  const { rows: decisions } = await canon.runtime.pool.query(
    'SELECT idempotency_key, claim_index, kind, target, reason FROM claim_decisions WHERE workspace_id = $1 ORDER BY idempotency_key, claim_index',
    [workspace],
  );
  expect(memories).toHaveLength(1);
  const t = memories[0]!.timeline;
  return { values: t.values, decisions: t.decisions, status: t.status_hint, rows: { values, decisions } };
}

it('writes the same memory whether a key is compiled in one go or in two', async () => {
  const once = writers.get('once/ann')!;
  const twice = writers.get('twice/ann')!;
  await ingest('once', [...first, ...second]);
  await canon.runtime.compile(once, { subject: SUBJECT });
  await ingest('twice', first);
  await canon.runtime.compile(twice, { subject: SUBJECT });
  await ingest('twice', second);
  await canon.runtime.compile(twice, { subject: SUBJECT });

  const a = await stored('once');
  const b = await stored('twice');
  expect(a.status).toBe('conflicted');
  expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  // The qualifiers in the fact key's order, as extracted and as the claims column (json) keeps
  // them; a jsonb column gave them back shorter first ("b y ab x region eu").
  expect(a.rows.values[0]).toMatchObject({ search_text: expect.stringContaining('ab x b y region eu') });
  expect((await canon.runtime.verify(once, SUBJECT)).ok).toBe(true);
});
