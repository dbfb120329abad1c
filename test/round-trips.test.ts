import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';
import type { Principal } from '@canon/runtime';

// What a request waits on most is PostgreSQL's round trips (about half a millisecond each on a
// loaded two-core machine), so the key's lookup and the two answers clients ask for most are one round trip each: a
// compile with nothing to do (a CI's no-op recompile, a job the one before it absorbed) and a page
// of recall (its candidates off the page included: each row keeps their sides). The count is of statements sent to the real database, each a round trip: every
// query is spied on, none is replaced.

let canon: TestCanon;
let db: pg.Pool;
let owner: Principal;
let ann: Principal;
let bob: Principal;
const SUBJECT = 'service:round-trips';

const roundTrips = () => vi.spyOn(pg.Client.prototype, 'query');
/** A compile in the request, its result (the test runs without a queue: never a job). */
async function compile(principal: Principal, subject: string) {
  const out = await canon.runtime.compile(principal, { subject });
  if (out.async) throw new Error('compiled as a job');
  return out.result as { episodes_processed: number; memories_created: number; memories_updated: number; state_hash: string };
}
const text = (call: unknown[]) => String(typeof call[0] === 'string' ? call[0] : (call[0] as { text?: string })?.text);

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  db = new pg.Pool({ connectionString: canon.db.url, max: 1 });
  // Its client may still be closing when the test database is dropped (WITH FORCE) after the
  // tests: the server's "terminating connection" then reaches the pool, which must not throw it.
  db.on('error', () => undefined);
  owner = (await canon.key('owner')).principal;
  ann = (await canon.key('member', { user: 'ann' })).principal;
  bob = (await canon.key('member', { user: 'bob' })).principal;
  await canon.runtime.ingest(owner, [
    { idempotency_key: 'day', subject: SUBJECT, occurred_at: '2026-11-01T09:00:00Z', body: { text: 'The staging deploy runs on Tuesday.' } },
    { idempotency_key: 'day-2', subject: SUBJECT, occurred_at: '2026-11-05T09:00:00Z', body: { text: 'Staging deploys now happen on Thursday.' } },
  ]);
  await canon.runtime.ingest(ann, [{ idempotency_key: 'mine', subject: 'user:ann', scope: 'personal', occurred_at: '2026-11-02T09:00:00Z', body: { text: 'I review on Friday.' } }]);
  await canon.runtime.compile(owner, { subject: SUBJECT });
  await canon.runtime.compile(ann, { subject: 'user:ann' });
});

afterEach(() => vi.restoreAllMocks());
afterAll(async () => {
  await db?.end();
  await canon?.close();
});

describe('authentication', () => {
  it('is one round trip, and a revoked key is refused at once', async () => {
    const { key, principal } = await canon.key('agent');
    const spy = roundTrips();
    expect(await canon.runtime.authenticate(key)).toEqual(principal);
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
    await canon.runtime.revokeKey(principal.key_id);
    await expect(canon.runtime.authenticate(key)).rejects.toThrow(/revoked/);
  });
});

describe('a compile with nothing to do', () => {
  it('is one round trip, and says what a compile under the lock would', async () => {
    const spy = roundTrips();
    const out = await compile(owner, SUBJECT);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(out).toMatchObject({ episodes_processed: 0, memories_created: 0, memories_updated: 0 });
    const stored = (await canon.runtime.memories(owner, SUBJECT)).memories;
    expect(stored.length).toBe(2);
    const { rows } = await db.query<{ state_hash: string }>('SELECT state_hash FROM subjects WHERE subject = $1', [SUBJECT]);
    expect(out.state_hash).toBe(rows[0]!.state_hash);
  });

  it('takes the lock when an episode is pending, and compiles it', async () => {
    await canon.runtime.ingest(owner, [{ idempotency_key: 'day-3', subject: SUBJECT, occurred_at: '2026-11-06T09:00:00Z', body: { text: 'We deploy staging every Thursday.' } }]);
    const spy = roundTrips();
    const out = await compile(owner, SUBJECT);
    expect(spy.mock.calls.length).toBeGreaterThan(1);
    expect(spy.mock.calls.some((c) => text(c).includes('pg_advisory_xact_lock'))).toBe(true);
    expect(out).toMatchObject({ episodes_processed: 1 });
  });

  it('still answers another user\'s personal subject as a name no one wrote, and the owner\'s as there', async () => {
    const unwritten = await compile(bob, 'user:nobody-wrote');
    expect(await compile(bob, 'user:ann')).toEqual({ ...unwritten, subject: 'user:ann' });
    const own = await compile(ann, 'user:ann');
    expect(own).toMatchObject({ episodes_processed: 0 });
    expect(own.state_hash).not.toBe(unwritten.state_hash);
  });

  it('rebuilds under the lock a subject compiled under other policies', async () => {
    await db.query("UPDATE subjects SET policy_fingerprint = 'other' WHERE subject = $1", [SUBJECT]);
    const spy = roundTrips();
    const out = await compile(owner, SUBJECT);
    expect(spy.mock.calls.some((c) => text(c).includes('pg_advisory_xact_lock'))).toBe(true);
    expect(out).toMatchObject({ episodes_processed: 3 });
    const { rows } = await db.query<{ policy_fingerprint: string }>('SELECT policy_fingerprint FROM subjects WHERE subject = $1', [SUBJECT]);
    expect(rows[0]!.policy_fingerprint).not.toBe('other');
  });
});

describe('a page of recall', () => {
  it('is one round trip, candidates off the page included; one more for a row that keeps no sides of them', async () => {
    let spy = roundTrips();
    const whole = await canon.runtime.memories(owner, SUBJECT);
    // Every candidate is on the page: nothing more to read.
    expect(spy).toHaveBeenCalledTimes(1);
    expect(whole.memories.length).toBe(3);
    expect(whole.memories.every((m) => m.candidates.length > 0)).toBe(true);
    spy.mockRestore();
    spy = roundTrips();
    const page = await canon.runtime.memories(owner, SUBJECT, { limit: 1 });
    expect(spy).toHaveBeenCalledTimes(1);
    expect(page.memories.length).toBe(1);
    expect(page.next).not.toBeNull();
    // Its candidates are off the page, read from its own row: Tuesday against Thursday.
    expect(page.memories[0]!.candidates.map((c) => c.kind)).toContain('possible_contradiction');
    expect(page.memories[0]!.candidates).toEqual(whole.memories[0]!.candidates);
    spy.mockRestore();
    // A row from before `partner_sides` names them only: they are read by id, as they were.
    await db.query('UPDATE memories SET partner_sides = NULL WHERE subject = $1', [SUBJECT]);
    spy = roundTrips();
    const older = await canon.runtime.memories(owner, SUBJECT, { limit: 1 });
    expect(spy).toHaveBeenCalledTimes(2);
    expect([older.memories, older.next]).toEqual([page.memories, page.next]);
    spy.mockRestore();
    await canon.runtime.rebuild(owner, SUBJECT);
    const rebuilt = await canon.runtime.memories(owner, SUBJECT, { limit: 1 });
    expect([rebuilt.memories, rebuilt.next]).toEqual([page.memories, page.next]);
  });

  it('shows a personal memory to its owner only', async () => {
    expect((await canon.runtime.memories(ann, 'user:ann')).memories.length).toBe(1);
    expect((await canon.runtime.memories(bob, 'user:ann')).memories).toEqual([]);
  });
});
