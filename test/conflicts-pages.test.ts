import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';

// "What is disputed" over more disputes than a page holds: GET /v1/conflicts answered the first
// 100 and nothing said there were more, nor let a client read on.

let canon: TestCanon;
let owner: string;

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  owner = (await canon.key('owner')).key;
  // Two members of equal standing disagree on 150 settings (two subjects): 150 open conflicts.
  for (const [user, value] of [['mia', 'on'], ['max', 'off']] as const) {
    const key = (await canon.key('member', { user })).key;
    const episodes = ['service:a', 'service:b'].map((subject) => ({
      idempotency_key: `${user}-${subject}`,
      subject,
      kind: 'claim',
      body: { claims: Array.from({ length: 75 }, (_, i) => ({ predicate: `feature flag ${String(i).padStart(3, '0')}`, value })) },
    }));
    const res = await canon.request('/v1/episodes?compile=wait', { key, json: { episodes } });
    expect(res.status, await res.clone().text()).toBe(200);
  }
}, 60_000);
afterAll(() => canon?.close());

it('pages through every open conflict with next, each once, in subject and key order', async () => {
  const seen: string[] = [];
  let after: string | null = null;
  let pages = 0;
  do {
    const res = await canon.request(`/v1/conflicts?limit=40${after ? `&after=${encodeURIComponent(after)}` : ''}`, { key: owner });
    expect(res.status).toBe(200);
    const page = (await res.json()) as { conflicts: Array<{ subject: string; key: string; memory_id: string }>; next: string | null };
    seen.push(...page.conflicts.map((c) => c.memory_id));
    after = page.next;
    pages += 1;
  } while (after !== null && pages < 10);
  expect(pages).toBe(4);
  expect(seen).toHaveLength(150);
  expect(new Set(seen).size).toBe(150);
  // The default page is 100 and says there is more.
  const first = await (await canon.request('/v1/conflicts', { key: owner })).json();
  expect(first.conflicts).toHaveLength(100);
  expect(first.next).toEqual(expect.any(String));
  // One subject's, on one page.
  const one = await (await canon.request('/v1/conflicts?subject=service%3Ab&limit=1000', { key: owner })).json();
  expect(one.conflicts).toHaveLength(75);
  expect(one.next).toBeNull();
});

it('refuses a cursor it did not give as a problem, not a 500', async () => {
  for (const after of ['nonsense', Buffer.from('{"a":1}').toString('base64url'), Buffer.from('[1,2]').toString('base64url')]) {
    const res = await canon.request(`/v1/conflicts?after=${after}`, { key: owner });
    expect(res.status, after).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
  }
});
