import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { combineDigests } from '@canon/core';
import { startTestCanon, until, type TestCanon } from '@canon/testing';

// A subject two users share holds ann's personal memories beside the workspace's. Every compile,
// rebuild and verify answers a key with the counters and the state_hash of what that key may see:
// ann's personal writes must not move what bob is told — not a counter, not a hash — or a key
// could watch a shared subject to learn when, and how much, a teammate wrote privately.

let canon: TestCanon;
let ann: string;
let bob: string;
let owner: string;
const SHARED = 'service:billing';

const COUNTERS = ['episodes_processed', 'memories_created', 'memories_updated', 'memories_superseded', 'conflicts_opened', 'tombstoned'] as const;
const zeros = Object.fromEntries(COUNTERS.map((c) => [c, 0]));
const counters = (r: Record<string, unknown>) => Object.fromEntries(COUNTERS.map((c) => [c, r[c]]));

const claim = (key: string, predicate: string, value: string, scope: 'workspace' | 'personal' = 'workspace') => ({
  idempotency_key: key,
  subject: SHARED,
  kind: 'claim',
  ...(scope === 'personal' ? { scope } : {}),
  body: { claims: [{ predicate, value }] },
});

async function post(path: string, key: string, json: unknown) {
  const res = await canon.request(path, { key, json });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBeLessThan(300);
  return res.json();
}

const compile = (key: string) => post('/v1/compile', key, { subject: SHARED });

/** An asynchronous compile asked by one key, polled by another until it completes. */
async function asyncCompile(key: string, request: Record<string, unknown>, pollingKey: string) {
  const accepted = await canon.request('/v1/compile', { key, json: { ...request, async: true } });
  expect(accepted.status).toBe(202);
  const { job_id } = (await accepted.json()) as { job_id: string };
  const job = await until('the job', async () => {
    const j = await (await canon.request(`/v1/jobs/${job_id}`, { key: pollingKey })).json();
    return j.state === 'completed' ? j : null;
  });
  return { job_id, job };
}

/** The state hash of the memories a key recalls, from their digests as the database keeps them. */
async function hashOfVisible(user: string | null): Promise<string> {
  const { rows } = await canon.runtime.pool.query<{ digest: string }>(
    `SELECT digest FROM memories WHERE subject = $1 AND (scope = 'workspace' OR owner = $2)`,
    [SHARED, user],
  );
  return combineDigests(rows.map((r) => r.digest));
}

beforeAll(async () => {
  // No compile runs behind the test's back: each one here is asked for.
  canon = await startTestCanon({ queue: true }, { CANON_COMPILE_DEBOUNCE_SECONDS: '3600', CANON_COMPILE_AFTER: '1000000' });
  ann = (await canon.key('member', { user: 'ann' })).key;
  bob = (await canon.key('member', { user: 'bob' })).key;
  owner = (await canon.key('owner')).key;
  await post('/v1/episodes?compile=wait', bob, claim('b-1', 'owner team', 'payments'));
  await post('/v1/episodes?compile=wait', bob, claim('b-2', 'deploy day', 'Tuesday'));
});
afterAll(() => canon?.close());

describe("another user's personal writes to a shared subject", () => {
  it('leave the counters and the state_hash bob is told where they were', async () => {
    const before = await compile(bob);
    expect(counters(before)).toEqual(zeros);
    expect(before.state_hash).toBe(await hashOfVisible('bob'));

    // ann's personal notes, on a key of her own and on one bob states too; bob's compile takes them.
    await post('/v1/episodes', ann, claim('a-1', 'my oncall note', 'swap with Kim', 'personal'));
    await post('/v1/episodes', ann, claim('a-2', 'deploy day', 'Thursday', 'personal'));
    const after = await compile(bob);
    expect(counters(after)).toEqual(zeros);
    expect(after.state_hash).toBe(before.state_hash);

    // They were compiled, by bob's request: ann finds them, and her hash is of what she sees.
    const own = await compile(ann);
    expect(counters(own)).toEqual(zeros);
    expect(own.state_hash).toBe(await hashOfVisible('ann'));
    expect(own.state_hash).not.toBe(before.state_hash);
    const mine = await (await canon.request(`/v1/subjects/${encodeURIComponent(SHARED)}/memories`, { key: ann })).json();
    expect(mine.memories.length).toBe(4);
  });

  it('count for their author, in her own compile, as they count in the log', async () => {
    await post('/v1/episodes', ann, claim('a-3', 'my oncall note', 'swap with Lee', 'personal'));
    const hers = await compile(ann);
    expect(counters(hers)).toEqual({ ...zeros, episodes_processed: 1, memories_updated: 1, memories_superseded: 1 });
    expect(hers.state_hash).toBe(await hashOfVisible('ann'));
    // A key of no user (the workspace's owner key) sees no personal memory: the workspace's hash.
    expect((await compile(owner)).state_hash).toBe(await hashOfVisible(null));
  });

  it("leave bob's counters while bob's own writes count, in one compile", async () => {
    await post('/v1/episodes', ann, claim('a-4', 'my oncall note', 'swap with Max', 'personal'));
    await post('/v1/episodes', bob, claim('b-3', 'deploy day', 'Wednesday'));
    const both = await compile(bob);
    expect(counters(both)).toEqual({ ...zeros, episodes_processed: 1, memories_updated: 1, memories_superseded: 1 });
    expect(both.state_hash).toBe(await hashOfVisible('bob'));
  });

  it('leave a rebuild and a verify of bob where they were', async () => {
    await post('/v1/episodes', ann, claim('a-5', 'my standup note', 'demo the refunds', 'personal'));
    const rebuilt = await post('/v1/rebuild', bob, { subject: SHARED });
    // A rebuild writes every memory anew and counts them: bob's two, never ann's.
    expect(rebuilt.memories_created).toBe(2);
    expect(rebuilt.episodes_processed).toBe(3);
    expect(rebuilt.state_hash).toBe(await hashOfVisible('bob'));

    const report = await post('/v1/verify', bob, { subject: SHARED });
    expect(report.ok).toBe(true);
    for (const h of [report.stored_state_hash, report.rebuilt_state_hash, report.incremental_state_hash, report.first.state_hash]) expect(h).toBe(rebuilt.state_hash);
    const hers = await post('/v1/verify', ann, { subject: SHARED });
    expect(hers.ok).toBe(true);
    expect(hers.rebuilt_state_hash).toBe(await hashOfVisible('ann'));
  });

  it("leave a proposal's compile, told to its writer, with only what the writer may see", async () => {
    await post('/v1/episodes', ann, claim('a-6', 'my standup note', 'demo the invoices', 'personal'));
    const page = await (await canon.request(`/v1/subjects/${encodeURIComponent(SHARED)}/memories`, { key: bob })).json();
    const day = (page.memories as Array<{ id: string; predicate: string; revision: number }>).find((m) => m.predicate === 'deploy day')!;
    const proposed = await post(`/v1/memories/${day.id}/proposals`, bob, { idempotency_key: 'b-4', value: 'Monday', expected_revision: day.revision, reason: 'moved' });
    // ann's pending note was compiled in the same transaction; bob is told of his own episode only.
    expect(proposed.compiled.episodes_processed).toBe(1);
    expect(proposed.compiled.memories_created).toBe(0);
    expect(proposed.compiled.state_hash).toBe(await hashOfVisible('bob'));
  });

  it("leave the rebuilds an erasure answers with, told as the one erasing may see them", async () => {
    const eve = (await canon.key('member', { user: 'eve' })).key;
    await post('/v1/episodes?compile=wait', eve, claim('e-1', 'pager rota', 'weekly'));
    await post('/v1/episodes', ann, claim('a-8', 'my standup note', 'demo the ledger', 'personal'));
    const erased = await post('/v1/erasures', owner, { user: 'eve' });
    const rebuilt = (erased.rebuilt as Array<Record<string, unknown>>).find((r) => r.subject === SHARED)!;
    const { rows } = await canon.runtime.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM memories WHERE subject = $1 AND scope = 'workspace'`, [SHARED]);
    expect(rebuilt.memories_created).toBe(rows[0]!.n);
    expect(rebuilt.state_hash).toBe(await hashOfVisible(null));
  });

  it('are summed once for a subject compiled before the sums were kept, and told alike', async () => {
    const bobHash = await hashOfVisible('bob');
    // A subject row as migration 0042 leaves it: no sums kept yet.
    await canon.runtime.pool.query(`UPDATE subjects SET personal_sums = NULL WHERE subject = $1`, [SHARED]);
    expect((await compile(bob)).state_hash).toBe(bobHash);
    const { rows } = await canon.runtime.pool.query<{ sums: Record<string, string> }>(`SELECT personal_sums AS sums FROM subjects WHERE subject = $1`, [SHARED]);
    expect(Object.keys(rows[0]!.sums)).toEqual(['ann']);
    expect((await compile(ann)).state_hash).toBe(await hashOfVisible('ann'));
    // And a compile that writes, on such a row, sums them from the memories it leaves.
    await canon.runtime.pool.query(`UPDATE subjects SET personal_sums = NULL WHERE subject = $1`, [SHARED]);
    await post('/v1/episodes', ann, claim('a-9', 'my standup note', 'demo the payouts', 'personal'));
    expect((await compile(bob)).state_hash).toBe(bobHash);
    expect((await post('/v1/verify', ann, { subject: SHARED })).ok).toBe(true);
  });

  it('are checked by verify: a sum the subject row keeps wrong is a difference, naming no one', async () => {
    await canon.runtime.pool.query(`UPDATE subjects SET personal_sums = jsonb_build_object('ann', repeat('0', 63) || '1') WHERE subject = $1`, [SHARED]);
    const report = await post('/v1/verify', bob, { subject: SHARED });
    expect(report.ok).toBe(false);
    expect(JSON.stringify(report.differences)).not.toContain('ann');
    expect(report.differences.map((d: { what: string }) => d.what)).toContain("owners whose personal memories' digest sums the subject row keeps wrong");
    // A rebuild sums them anew.
    await post('/v1/rebuild', owner, { subject: SHARED });
    expect((await post('/v1/verify', bob, { subject: SHARED })).ok).toBe(true);
  });

  it('count in a job ann asked for, whose result is hers: another key is told its state and not its result', async () => {
    await post('/v1/episodes', ann, claim('a-10', 'my pairing note', 'pairing with carol', 'personal'));
    const { job_id, job } = await asyncCompile(ann, { subject: SHARED }, ann);
    // Compiled as ann may see the subject: her note is counted, for her.
    expect(JSON.stringify(job.result)).toMatch(/"memories_created":1/);
    for (const other of [bob, owner]) {
      const res = await canon.request(`/v1/jobs/${job_id}`, { key: other });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({ job_id, state: 'completed', progress: { done: 1, total: 1 } });
      expect(text).not.toMatch(/memories_created|state_hash|"result"/);
    }
  });

  it("leave a job's result, which any key of the workspace may read, with no user's personal part", async () => {
    await post('/v1/episodes', ann, claim('a-7', 'my retro note', 'flaky staging', 'personal'));
    const { job } = await asyncCompile(owner, { all: true }, bob);
    expect(job.result.totals).toEqual(zeros);
    // The note is compiled: ann recalls it.
    const mine = await (await canon.request(`/v1/subjects/${encodeURIComponent(SHARED)}/memories`, { key: ann })).json();
    expect((mine.memories as Array<{ predicate: string }>).some((m) => m.predicate === 'my retro note')).toBe(true);
  });
});
