import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';

// Recall of a subject is read a page at a time (issue 19: a subject of 1,000 memories must answer
// in milliseconds, and one answer of every memory with its candidates is megabytes). Pages must
// add up to the whole: every memory once, in key order, each with the candidates it has in the
// whole, a personal memory only for its owner, and a bad cursor or limit a 400.

let canon: TestCanon;
let owner: string;
let alice: string;
let bob: string;

const SUBJECT = 'service:pages';
const WORDS = ['amber', 'birch', 'cedar', 'delta', 'ember', 'fjord', 'grove', 'harbor', 'iris', 'juniper', 'kelp', 'lotus', 'maple', 'nectar', 'onyx', 'pine'];
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];

type Memory = { id: string; key: string; predicate: string; scope: string; candidates: Array<{ memory_id: string; kind: string; score: number }> };
type Page = { memories: Memory[]; next: string | null };

async function page(key: string, query: Record<string, string> = {}): Promise<Page> {
  const res = await canon.request(`/v1/subjects/${encodeURIComponent(SUBJECT)}/memories?${new URLSearchParams(query).toString()}`, { key });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Page;
}

async function walk(key: string, limit: number): Promise<{ pages: Page[]; memories: Memory[] }> {
  const pages: Page[] = [];
  let after: string | null = null;
  do {
    const p: Page = await page(key, { limit: String(limit), ...(after === null ? {} : { after }) });
    pages.push(p);
    after = p.next;
  } while (after !== null);
  return { pages, memories: pages.flatMap((p) => p.memories) };
}

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  owner = (await canon.key('owner')).key;
  alice = (await canon.key('member', { user: 'alice' })).key;
  bob = (await canon.key('member', { user: 'bob' })).key;
  // 128 workspace facts each worded twice (candidates, far apart in key order), plus alice's personal ones.
  const episodes = [];
  for (let i = 0; i < 256; i += 1) {
    const a = WORDS[(i - (i % 2)) % 16]!;
    const b = WORDS[Math.floor(i / 16)]!;
    const text = i % 2 === 0 ? `The ${a} ${b} sync runs on ${DAYS[i % 5]}.` : `We run the ${a} ${b} sync every ${DAYS[(i + 1) % 5]}.`;
    episodes.push({ idempotency_key: `w-${i}`, subject: SUBJECT, occurred_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(), body: { text } });
  }
  for (let i = 0; i < 256; i += 128) {
    const res = await canon.request('/v1/episodes?compile=wait', { key: owner, json: { episodes: episodes.slice(i, i + 128) } });
    expect(res.status, await res.clone().text()).toBe(200);
  }
  const personal = WORDS.slice(0, 5).map((w, i) => ({ idempotency_key: `p-${i}`, subject: SUBJECT, scope: 'personal', occurred_at: '2026-02-01T00:00:00Z', body: { text: `My ${w} reminder is on ${DAYS[i]}.` } }));
  const res = await canon.request('/v1/episodes?compile=wait', { key: alice, json: { episodes: personal } });
  expect(res.status, await res.clone().text()).toBe(200);
});
afterAll(() => canon.close());

describe('recall of a subject, page by page', () => {
  it('answers 100 memories by default, with a next cursor while more remain', async () => {
    const first = await page(owner);
    expect(first.memories).toHaveLength(100);
    expect(first.next).toBe(first.memories[99]!.key);
  });

  it('pages add up to the whole subject: each memory once, in key order, with the candidates it has in one large page', async () => {
    const whole = await page(alice, { limit: '1000' });
    expect(whole.next).toBeNull();
    expect(whole.memories).toHaveLength(256 + 5);
    const { pages, memories } = await walk(alice, 40);
    expect(pages).toHaveLength(Math.ceil(261 / 40));
    expect(pages.slice(0, -1).every((p) => p.memories.length === 40)).toBe(true);
    expect(memories.map((m) => m.id)).toEqual(whole.memories.map((m) => m.id));
    const keys = memories.map((m) => m.key);
    expect(new Set(keys).size).toBe(keys.length);
    // Bytewise key order, the order a refold at known_at sorts in too.
    expect([...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(keys);
    // A memory's candidates do not depend on which page it falls in: an off-page candidate is read by id.
    const crossing = memories.filter((m, i) => m.candidates.some((c) => Math.floor(memories.findIndex((x) => x.id === c.memory_id) / 40) !== Math.floor(i / 40)));
    expect(crossing.length).toBeGreaterThan(0);
    expect(memories).toEqual(whole.memories);
  });

  it("shows a personal memory to its owner only, and another user's pages are full pages of what they may see", async () => {
    const mine = await walk(alice, 50);
    const theirs = await walk(bob, 50);
    expect(mine.memories.filter((m) => m.scope === 'personal')).toHaveLength(5);
    expect(theirs.memories.filter((m) => m.scope === 'personal')).toHaveLength(0);
    expect(theirs.memories).toHaveLength(256);
    expect(theirs.pages.slice(0, -1).every((p) => p.memories.length === 50)).toBe(true);
  });

  it('pages a refold at known_at the same way as the compiled view', async () => {
    const now = new Date().toISOString();
    const compiled = await walk(owner, 64);
    const pages: Page[] = [];
    let after: string | null = null;
    do {
      const p: Page = await page(owner, { limit: '64', known_at: now, ...(after === null ? {} : { after }) });
      pages.push(p);
      after = p.next;
    } while (after !== null);
    expect(pages.flatMap((p) => p.memories.map((m) => m.key))).toEqual(compiled.memories.map((m) => m.key));
  });

  it('refuses a limit out of range or not a number, and a cursor holding NUL, naming the field', async () => {
    for (const query of ['limit=0', 'limit=1001', 'limit=ten', 'limit=1.5', 'after=%00', `after=${'x'.repeat(5000)}`]) {
      const res = await canon.request(`/v1/subjects/${encodeURIComponent(SUBJECT)}/memories?${query}`, { key: owner });
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(await res.text(), query).toMatch(query.startsWith('limit') ? /limit/ : /after/);
    }
  });

  it('answers an empty last page past the final key', async () => {
    const whole = await page(owner, { limit: '1000' });
    const past = await page(owner, { after: whole.memories.at(-1)!.key });
    expect(past).toMatchObject({ memories: [], next: null });
  });

  it('reads stored summaries that say what a view of each timeline says, before, at and after a scheduled change', async () => {
    const subject = 'service:summaries';
    const member = (await canon.key('member', { user: 'carol' })).key;
    const other = (await canon.key('member', { user: 'dave' })).key;
    const post = async (key: string, episodes: unknown[]) => {
      const res = await canon.request('/v1/episodes?compile=wait', { key, json: { episodes } });
      expect(res.status, await res.clone().text()).toBe(200);
    };
    const future = new Date(Date.now() + 30 * 86_400_000).toISOString();
    await post(member, [
      { idempotency_key: 's-1', subject, occurred_at: '2026-01-01T00:00:00Z', body: { claims: [{ predicate: 'deploy day', value: 'Tuesday' }] } },
      { idempotency_key: 's-2', subject, occurred_at: '2026-01-02T00:00:00Z', body: { claims: [{ predicate: 'deploy day', value: 'Thursday', effective_from: future }] } },
      { idempotency_key: 's-3', subject, occurred_at: '2026-01-01T00:00:00Z', body: { claims: [{ predicate: 'region', value: 'eu-west-1' }] } },
      { idempotency_key: 's-4', subject, occurred_at: '2026-01-01T00:00:00Z', body: { claims: [{ predicate: 'pager', value: 'ops' }] } },
      { idempotency_key: 's-5', subject, occurred_at: '2026-01-03T00:00:00Z', body: { claims: [{ predicate: 'pager', op: 'retract' }] } },
    ]);
    await post(other, [{ idempotency_key: 's-6', subject, occurred_at: '2026-01-04T00:00:00Z', body: { claims: [{ predicate: 'region', value: 'us-east-1' }] } }]);
    const read = async (query: Record<string, string>) => {
      const res = await canon.request(`/v1/subjects/${encodeURIComponent(subject)}/memories?${new URLSearchParams(query).toString()}`, { key: owner });
      expect(res.status).toBe(200);
      return ((await res.json()) as { memories: Array<Record<string, unknown>> }).memories.map(({ candidates: _c, ...m }) => m);
    };
    const now = new Date().toISOString();
    const later = new Date(Date.now() + 60 * 86_400_000).toISOString();
    for (const as_of of ['2026-01-01T12:00:00Z', now, future, later]) {
      const compiled = await read({ as_of });
      // known_at refolds the claims and views the timelines it folds: no stored summary is read.
      const refolded = await read({ as_of, known_at: later });
      expect(compiled, as_of).toEqual(refolded);
    }
    const statuses = Object.fromEntries((await read({})).map((m) => [m['predicate'], m['status']]));
    expect(statuses).toEqual({ 'deploy day': 'current', region: 'conflicted', pager: 'tombstoned' });
    const deploy = (await read({})).find((m) => m['predicate'] === 'deploy day')!;
    expect(deploy['scheduled']).toEqual([expect.objectContaining({ value: 'Thursday' })]);
    expect((await read({ as_of: later })).find((m) => m['predicate'] === 'deploy day')!['current']).toEqual([expect.objectContaining({ value: 'Thursday' })]);
  });

  it('is held to the timeline by verify: a summary that says otherwise is a difference, and rebuild repairs it', async () => {
    const ownerPrincipal = (await canon.key('owner')).principal;
    expect((await canon.runtime.verify(ownerPrincipal, SUBJECT)).ok).toBe(true);
    const { rowCount } = await canon.runtime.pool.query(
      `UPDATE memories SET summary = jsonb_set(summary::jsonb, '{memory,current,0,value}', '"Sunday"')::json WHERE subject = $1 AND predicate = 'The amber amber sync runs on {weekday}'`,
      [SUBJECT],
    );
    expect(rowCount).toBe(1);
    const tampered = (await page(owner, { limit: '1' })).memories[0]!;
    expect(JSON.stringify(tampered)).toContain('Sunday');
    const report = await canon.runtime.verify(ownerPrincipal, SUBJECT);
    expect(report.ok).toBe(false);
    expect(report.differences.find((d) => d.what === 'summary')).toMatchObject({ key: tampered.key, actual: expect.objectContaining({ predicate: 'The amber amber sync runs on {weekday}' }) });
    await canon.runtime.rebuild(ownerPrincipal, SUBJECT);
    expect((await canon.runtime.verify(ownerPrincipal, SUBJECT)).ok).toBe(true);
    expect(JSON.stringify((await page(owner, { limit: '1' })).memories[0])).not.toContain('Sunday');
  });

  it('reads a candidate off the page from the side its row keeps, which verify holds to the candidate\'s own; rows without them read the same', async () => {
    const ownerPrincipal = (await canon.key('owner')).principal;
    const at = new Date().toISOString();
    const first = await page(owner, { limit: '1', as_of: at });
    const self = first.memories[0]!;
    const candidate = self.candidates[0]!;
    expect(candidate).toBeDefined();
    const missing = await canon.runtime.pool.query(
      `SELECT count(*) FILTER (WHERE side IS NULL)::int AS sides, count(*) FILTER (WHERE partner_sides IS NULL AND candidates <> '[]'::jsonb)::int AS partners FROM memories WHERE subject = $1`,
      [SUBJECT],
    );
    expect(missing.rows[0]).toEqual({ sides: 0, partners: 0 });
    // Rows written before either column existed: the page reads the candidates by id and takes
    // their sides out of their summaries instead.
    await canon.runtime.pool.query(`UPDATE memories SET side = NULL, partner_sides = NULL WHERE subject = $1`, [SUBJECT]);
    expect(await page(owner, { limit: '1', as_of: at })).toEqual(first);
    expect((await canon.runtime.verify(ownerPrincipal, SUBJECT)).ok).toBe(true);
    await canon.runtime.rebuild(ownerPrincipal, SUBJECT);
    expect(await page(owner, { limit: '1', as_of: at })).toEqual(first);
    // What the page's row keeps of a candidate is what it shows; verify holds it to the candidate's side.
    const kept = await canon.runtime.pool.query(
      `UPDATE memories SET partner_sides = jsonb_set(partner_sides::jsonb, ARRAY[$2, 'side', 'memory', 'current', '0', 'value'], '"Sunday"')::json WHERE id = $1`,
      [self.id, candidate.memory_id],
    );
    expect(kept.rowCount).toBe(1);
    expect(JSON.stringify(await page(owner, { limit: '1', as_of: at }))).toContain('Sunday');
    let report = await canon.runtime.verify(ownerPrincipal, SUBJECT);
    expect(report.differences.map((d) => [d.what, d.memory_id])).toEqual([['partner_sides', self.id]]);
    await canon.runtime.rebuild(ownerPrincipal, SUBJECT);
    expect(await page(owner, { limit: '1', as_of: at })).toEqual(first);
    // A row that keeps none reads the candidate's side, which verify holds to its summary (and
    // every row keeping that side, to it).
    await canon.runtime.pool.query(`UPDATE memories SET partner_sides = NULL WHERE id = $1`, [self.id]);
    const { rowCount } = await canon.runtime.pool.query(`UPDATE memories SET side = jsonb_set(side, '{memory,current,0,value}', '"Sunday"') WHERE id = $1`, [candidate.memory_id]);
    expect(rowCount).toBe(1);
    expect(JSON.stringify(await page(owner, { limit: '1', as_of: at }))).toContain('Sunday');
    report = await canon.runtime.verify(ownerPrincipal, SUBJECT);
    expect(report.differences.filter((d) => d.what !== 'partner_sides').map((d) => [d.what, d.memory_id])).toEqual([['side', candidate.memory_id]]);
    expect(report.differences.filter((d) => d.what === 'partner_sides').every((d) => d.memory_id !== self.id)).toBe(true);
    await canon.runtime.rebuild(ownerPrincipal, SUBJECT);
    expect(await page(owner, { limit: '1', as_of: at })).toEqual(first);
    expect((await canon.runtime.verify(ownerPrincipal, SUBJECT)).ok).toBe(true);
  });
});
