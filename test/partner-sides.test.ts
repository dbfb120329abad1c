import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';
import type { Principal } from '@canon/runtime';

// A page shows the candidates off it from what its own rows keep of them (`partner_sides`), so
// what a row keeps must follow every later write of a candidate: a change of its value, a new
// wording, an erasure. Read as a user reads, a page of one; held by verify after each step.

let canon: TestCanon;
let owner: Principal;
let member: Principal;
let bob: Principal;
const SUBJECT = 'service:staging';
// In key order "Staging deploys…" comes first: a page of one holds it, its candidates are off it.
const FIRST = 'Staging deploys now happen on {weekday}';

async function say(p: Principal, idempotency_key: string, text: string, occurred_at: string) {
  await canon.runtime.ingest(p, [{ idempotency_key, subject: SUBJECT, occurred_at, body: { text } }]);
  await canon.runtime.compile(owner, { subject: SUBJECT });
}
async function firstPage() {
  const page = await canon.runtime.memories(owner, SUBJECT, { limit: 1 });
  expect(page.memories[0]!.predicate).toBe(FIRST);
  return page.memories[0]!;
}
const kinds = (m: Awaited<ReturnType<typeof firstPage>>) => m.candidates.map((c) => [c.predicate, c.kind, c.other_values]);
async function verified() {
  const report = await canon.runtime.verify(owner, SUBJECT);
  expect(report.differences).toEqual([]);
}
async function kept(text: string): Promise<number> {
  const { rows } = await canon.runtime.pool.query(`SELECT count(*)::int AS n FROM memories WHERE subject = $1 AND partner_sides::text LIKE $2`, [SUBJECT, `%${text}%`]);
  return rows[0].n as number;
}

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  owner = (await canon.key('owner')).principal;
  member = (await canon.key('member', { user: 'mia' })).principal;
  bob = (await canon.key('member', { user: 'bob' })).principal;
  await say(member, 't-1', 'The staging deploy runs on Tuesday.', '2026-11-01T10:00:00Z');
  await say(member, 's-1', 'Staging deploys now happen on Tuesday.', '2026-11-02T10:00:00Z');
});
afterAll(() => canon.close());

describe('what a row keeps of its candidates', () => {
  it('follows a candidate whose value changes in a compile that writes only the candidate', async () => {
    expect(kinds(await firstPage())).toEqual([['The staging deploy runs on {weekday}', 'possible_duplicate', ['Tuesday']]]);
    await say(bob, 't-2', 'The staging deploy runs on Friday.', '2026-11-03T10:00:00Z');
    const page = await firstPage();
    // Bob's Friday disputes mia's Tuesday: both sides are what the candidate holds now.
    expect(kinds(page)).toEqual([['The staging deploy runs on {weekday}', 'possible_contradiction', ['Tuesday', 'Friday']]]);
    expect(page.needs_verification).toBe(true);
    await verified();
  });

  it('leaves the rows naming a memory alone when a compile restates it: its side is the same', async () => {
    const before = await firstPage();
    const spy = vi.spyOn(pg.Client.prototype, 'query');
    try {
      await say(member, 't-again', 'The staging deploy runs on Tuesday.', '2026-11-03T11:00:00Z');
      const sent = spy.mock.calls.map((c) => String(typeof c[0] === 'string' ? c[0] : (c[0] as { text?: string })?.text));
      expect(sent.some((t) => t.includes('INSERT INTO claims'))).toBe(true);
      expect(sent.filter((t) => t.includes('partner_sides'))).toEqual([]);
    } finally {
      spy.mockRestore();
    }
    expect((await firstPage()).candidates).toEqual(before.candidates);
    await verified();
  });

  it('gains a new wording of the fact on the page that names it', async () => {
    await say(member, 'w-1', 'We deploy staging every Tuesday.', '2026-11-04T10:00:00Z');
    const page = await firstPage();
    expect(kinds(page).map(([p]) => p).sort()).toEqual(['The staging deploy runs on {weekday}', 'We deploy staging every {weekday}']);
    expect(await canon.runtime.memories(owner, SUBJECT)).toMatchObject({ memories: expect.arrayContaining([expect.objectContaining({ predicate: FIRST, candidates: page.candidates })]) });
    await verified();
  });

  it('forgets an erased author\'s value: no row keeps it, and the page says what the log now does', async () => {
    expect(await kept('Friday')).toBeGreaterThan(0);
    await canon.runtime.erase(owner, { user: 'bob' });
    const page = await firstPage();
    expect(kinds(page)).toContainEqual(['The staging deploy runs on {weekday}', 'possible_duplicate', ['Tuesday']]);
    expect(await kept('Friday')).toBe(0);
    await verified();
  });
});
