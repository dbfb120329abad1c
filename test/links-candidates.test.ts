import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';

// Issue 19: paraphrases. Similarity proposes (candidates, shown), authority disposes (links, claims
// in the log). Through the HTTP API, as an agent or a person would use it.

let canon: TestCanon;
let member: string;
let agent: string;
let owner: string;

const SUBJECT = 'service:billing';

async function say(key: string, idempotency_key: string, text: string, occurred_at: string, subject = SUBJECT) {
  const res = await canon.request('/v1/episodes?compile=wait', { key, json: { idempotency_key, subject, occurred_at, body: { text } } });
  expect(res.status, await res.clone().text()).toBe(200);
}

type Memory = {
  id: string;
  predicate: string;
  status: string;
  needs_verification: boolean;
  current: Array<{ value: unknown; evidence_count: number }>;
  candidates: Array<{ memory_id: string; kind: string; score: number; reason: string; values: unknown[]; other_values: unknown[]; proposed?: { same: boolean } }>;
  linked: string[];
};

async function memories(subject = SUBJECT, key = owner): Promise<Memory[]> {
  const res = await canon.request(`/v1/subjects/${encodeURIComponent(subject)}/memories`, { key });
  expect(res.status).toBe(200);
  return (await res.json()).memories as Memory[];
}

const byPredicate = (ms: Memory[], predicate: string) => {
  const m = ms.find((x) => x.predicate === predicate);
  expect(m, `no memory ${predicate} in ${ms.map((x) => x.predicate).join(' | ')}`).toBeDefined();
  return m!;
};

async function link(key: string, body: Record<string, unknown>) {
  return canon.request('/v1/links', { key, json: body });
}

const TUE = 'The staging deploy runs on {weekday}';
const THU1 = 'Staging deploys now happen on {weekday}';
const THU2 = 'We deploy staging every {weekday}';

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  member = (await canon.key('member')).key;
  agent = (await canon.key('agent')).key;
  owner = (await canon.key('owner')).key;
  await say(member, 'deploy-1', 'The staging deploy runs on Tuesday.', '2026-11-01T10:00:00Z');
  await say(member, 'deploy-2', 'Staging deploys now happen on Thursday.', '2026-11-05T10:00:00Z');
  await say(member, 'deploy-3', 'We deploy staging every Thursday.', '2026-11-06T10:00:00Z');
  await say(member, 'deploy-prod', 'The production deploy runs on Monday.', '2026-11-02T10:00:00Z');
});
afterAll(() => canon.close());

describe('candidates: similarity proposes, never applies', () => {
  it('keeps three memories and flags Tuesday vs Thursday as a possible contradiction', async () => {
    const ms = await memories();
    expect(ms.map((m) => m.predicate).sort()).toEqual(['Staging deploys now happen on {weekday}', 'The production deploy runs on {weekday}', TUE, THU2].sort());
    const tue = byPredicate(ms, TUE);
    const thu1 = byPredicate(ms, THU1);
    const thu2 = byPredicate(ms, THU2);
    expect(tue.status).toBe('current');
    expect(tue.needs_verification).toBe(true);
    const kinds = Object.fromEntries(tue.candidates.map((c) => [c.memory_id, [c.kind, c.values, c.other_values]]));
    expect(kinds[thu1.id]).toEqual(['possible_contradiction', ['Tuesday'], ['Thursday']]);
    expect(kinds[thu2.id]).toEqual(['possible_contradiction', ['Tuesday'], ['Thursday']]);
    expect(thu1.candidates.find((c) => c.memory_id === thu2.id)?.kind).toBe('possible_duplicate');
    for (const c of tue.candidates) {
      expect(c.score).toBeGreaterThanOrEqual(0.5);
      expect(c.reason).toContain('{weekday}');
    }
  });

  it('does not flag staging against production: a substituted word is another fact', async () => {
    const ms = await memories();
    const prod = byPredicate(ms, 'The production deploy runs on {weekday}');
    expect(prod.candidates).toEqual([]);
    expect(prod.needs_verification).toBe(false);
  });

  it('keeps a size and a count of cores said in one template as two facts: the unit is part of the key', async () => {
    const subject = 'service:cache-node';
    await say(member, 'cache-1', 'The cache node has 64 GB.', '2026-11-01T10:00:00Z', subject);
    await say(member, 'cache-2', 'The cache node has 16 cores.', '2026-11-02T10:00:00Z', subject);
    await say(member, 'cache-3', 'The cache node has 128 GB.', '2026-11-03T10:00:00Z', subject);
    const ms = await memories(subject);
    // The cores replace nothing; the later size changes the size (the same author, later).
    expect(ms.map((m) => [m.predicate, m.status, m.current.map((c) => c.value)]).sort()).toEqual([
      ['The cache node has {quantity}', 'current', ['128 GB']],
      ['The cache node has {quantity}', 'current', ['16 cores']],
    ]);
    for (const m of ms) expect(m.candidates).toEqual([]);
  });

  it('states a possible contradiction in the context bundle, never two facts side by side', async () => {
    const res = await canon.request('/v1/context', { key: owner, json: { subject: SUBJECT, task: 'when is the staging deploy?', max_tokens: 2000 } });
    expect(res.status).toBe(200);
    const bundle = await res.json();
    expect(bundle.possible_contradictions).toHaveLength(1);
    expect(bundle.text).toMatch(/POSSIBLE CONTRADICTION .*"Tuesday".* vs .*"Thursday"/);
    const lines = (bundle.text as string).split('\n');
    expect(lines.filter((l) => l.includes('"Tuesday"'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('"Thursday"'))).toHaveLength(1);
    expect(bundle.memory_ids).toHaveLength(4);
  });

  it('states a possible contradiction with a disputed memory as one line too, the dispute among its sides', async () => {
    const subject = 'service:disputed-side';
    const bob = (await canon.key('member', { user: 'bob-ctx' })).key;
    await say(member, 'ds-1', 'The staging deploy runs on Tuesday.', '2026-01-01T00:00:00Z', subject);
    await say(bob, 'ds-2', 'Staging deploys now happen on Thursday.', '2026-01-05T00:00:00Z', subject);
    // Another member states a third day in the first wording: that memory is now in dispute.
    await say(bob, 'ds-3', 'The staging deploy runs on Monday.', '2026-01-08T00:00:00Z', subject);
    const res = await canon.request('/v1/context', { key: owner, json: { subject, task: 'when does the staging deploy run', max_tokens: 2000 } });
    const bundle = await res.json();
    const lines = (bundle.text as string).split('\n');
    // Thursday is never stated as a plain fact beside the dispute.
    expect(lines.filter((l) => l.includes('"Thursday"'))).toEqual([expect.stringMatching(/^- POSSIBLE CONTRADICTION .*DISPUTED "Tuesday" vs "Monday".* vs .*"Thursday"|^- POSSIBLE CONTRADICTION .*"Thursday".* vs .*DISPUTED/)]);
    expect(lines.filter((l) => l.includes('"Tuesday"'))).toHaveLength(1);
    expect(bundle.possible_contradictions).toHaveLength(1);
    expect(bundle.conflicts).toHaveLength(1);
    expect(bundle.conflicts[0].sides.map((x: { value: string }) => x.value).sort()).toEqual(['Monday', 'Tuesday']);
  });

  it('shows them in the inspectors: the candidates section and each memory’s page', async () => {
    const principal = await canon.runtime.authenticate(owner);
    const sections = await canon.runtime.inspectSubject(principal, SUBJECT);
    const tue = sections.candidates.find((c) => c.predicate === TUE)!;
    expect(tue.candidates.map((c) => c.kind)).toEqual(['possible_contradiction', 'possible_contradiction']);
    const page = await canon.request(`/inspect/subjects/${encodeURIComponent(SUBJECT)}`, { key: owner });
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).toContain('Possible contradiction:');
    expect(body).toContain(`canon link ${tue.memory_id} `);
  });

  it('shows a change its loose pair only while no nearer fact is said, compile after compile, as a rebuild does', async () => {
    const subject = 'team:ledger';
    const principal = await canon.runtime.authenticate(owner);
    const candidatesOf = (ms: Memory[], predicate: string) => byPredicate(ms, predicate).candidates.map((c) => ms.find((m) => m.id === c.memory_id)!.predicate).sort();
    await say(member, 'l-1', 'The payments ledger is balanced on Monday.', '2026-11-01T10:00:00Z', subject);
    await say(member, 'l-2', 'Payments moved the ledger close to Friday.', '2026-11-02T10:00:00Z', subject);
    // Alone with a fact it may restate in other words, the change shows it.
    expect(candidatesOf(await memories(subject), 'Payments moved the ledger close to {weekday}')).toEqual(['The payments ledger is balanced on {weekday}']);
    // A fact in the change's own words arrives in a later compile: it is the nearer one.
    await say(member, 'l-3', 'The payments ledger close is on Thursday.', '2026-11-03T10:00:00Z', subject);
    const after = await memories(subject);
    expect(candidatesOf(after, 'Payments moved the ledger close to {weekday}')).toEqual(['The payments ledger close is on {weekday}']);
    expect(candidatesOf(after, 'The payments ledger is balanced on {weekday}')).toEqual([]);
    expect((await canon.runtime.verify(principal, subject)).ok).toBe(true);
    await canon.runtime.rebuild(principal, subject);
    expect(await memories(subject)).toEqual(after);
  });

  it('computes a key\'s pairs again when a restatement first tells it as a change, as a rebuild does', async () => {
    const subject = 'team:demos';
    const principal = await canon.runtime.authenticate(owner);
    const candidatesOf = (ms: Memory[], predicate: string) => byPredicate(ms, predicate).candidates.map((c) => ms.find((m) => m.id === c.memory_id)!.predicate);
    await say(member, 'd-1', 'Demos happen Tuesday afternoons.', '2026-11-01T10:00:00Z', subject);
    await say(member, 'd-2', 'Sprint demos are on Tuesday.', '2026-11-02T10:00:00Z', subject);
    // Two facts sharing a word and a slot, neither told as a change: no pair.
    expect(candidatesOf(await memories(subject), 'Demos happen {weekday} afternoons')).toEqual([]);
    // The same key restated with a cue of change (no memory created): compared as a change now.
    await say(member, 'd-3', 'Going forward, demos happen Thursday afternoons.', '2026-11-03T10:00:00Z', subject);
    const after = await memories(subject);
    expect(after).toHaveLength(2);
    expect(candidatesOf(after, 'Demos happen {weekday} afternoons')).toEqual(['Sprint demos are on {weekday}']);
    expect((await canon.runtime.verify(principal, subject)).differences).toEqual([]);
    await canon.runtime.rebuild(principal, subject);
    expect(await memories(subject)).toEqual(after);
  });

  it('is held by verify to what every pair gives: a list changed by hand is a difference', async () => {
    const subject = 'team:demos';
    const principal = await canon.runtime.authenticate(owner);
    const [m] = (await memories(subject)).filter((x) => x.candidates.length > 0);
    await canon.runtime.pool.query(`UPDATE memories SET candidates = '[]' WHERE id = $1`, [m!.id]);
    const { differences } = await canon.runtime.verify(principal, subject);
    // Its list, and the sides it keeps of that list, which no longer match it.
    expect(differences.map((d) => [d.memory_id, d.what]).sort()).toEqual([[m!.id, 'candidates'], [m!.id, 'partner_sides']]);
    await canon.runtime.rebuild(principal, subject);
    expect((await canon.runtime.verify(principal, subject)).differences).toEqual([]);
  });

  it('compares a statement told as a change by a cue ("going forward") as a change, though the cue is not in its predicate', async () => {
    const principal = await canon.runtime.authenticate(owner);
    // The same two statements in two subjects, the later one told plainly in one and as a change in the other.
    for (const [subject, lead] of [['team:archive-plain', ''], ['team:archive-change', 'Going forward, ']] as const) {
      await say(member, `${subject}-1`, 'Audit records are kept for 365 days.', '2026-11-01T10:00:00Z', subject);
      await say(member, `${subject}-2`, `${lead}audit logs on the box are retained 60 days.`, '2026-11-02T10:00:00Z', subject);
    }
    const candidates = async (subject: string) => (await memories(subject)).flatMap((m) => m.candidates.map((c) => `${m.predicate}: ${c.kind}`)).sort();
    // Worded alike but told plainly: two facts, a word apart on each side.
    expect(await candidates('team:archive-plain')).toEqual([]);
    const after = await memories('team:archive-change');
    // The cue is not part of the predicate: both subjects hold the same two keys.
    expect(after.map((m) => m.predicate).sort()).toEqual(['Audit logs on the box are retained {quantity}', 'Audit records are kept for {quantity}']);
    expect(await candidates('team:archive-change')).toEqual([
      'Audit logs on the box are retained {quantity}: possible_contradiction',
      'Audit records are kept for {quantity}: possible_contradiction',
    ]);
    expect((await canon.runtime.verify(principal, 'team:archive-change')).ok).toBe(true);
    await canon.runtime.rebuild(principal, 'team:archive-change');
    expect(await memories('team:archive-change')).toEqual(after);
    // The flag is derived from the claims, and verify holds the stored one to them.
    const { rowCount } = await canon.runtime.pool.query(`UPDATE memories SET told_as_change = NOT told_as_change WHERE subject = 'team:archive-change' AND predicate LIKE 'Audit logs%'`);
    expect(rowCount).toBe(1);
    const report = await canon.runtime.verify(principal, 'team:archive-change');
    expect(report.differences.map((d) => [d.what, d.expected, d.actual])).toEqual([['told_as_change', true, false]]);
  });

  it('leaves the state hash to the timelines: verify and a rebuild agree with the incremental compile', async () => {
    const principal = await canon.runtime.authenticate(owner);
    const report = await canon.runtime.verify(principal, SUBJECT);
    expect(report.ok, JSON.stringify(report)).toBe(true);
    const before = await memories();
    await canon.runtime.rebuild(principal, SUBJECT);
    expect(await memories()).toEqual(before);
  });
});

describe('links: authority disposes', () => {
  it('refuses what is not a link of one subject and scope', async () => {
    const ms = await memories();
    const tue = byPredicate(ms, TUE);
    await say(member, 'other-1', 'The staging deploy runs on Friday.', '2026-11-01T10:00:00Z', 'service:search');
    const other = (await memories('service:search'))[0]!;
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ memories: [tue.id, other.id], same: true, idempotency_key: 'x1' }, 400],
      [{ memories: [tue.id, tue.id], same: true, idempotency_key: 'x2' }, 400],
      [{ memories: [tue.id, 'f'.repeat(32)], same: true, idempotency_key: 'x3' }, 404],
      [{ memories: [tue.id], same: true, idempotency_key: 'x4' }, 400],
      [{ memories: [tue.id, other.id], idempotency_key: 'x5' }, 400],
    ];
    for (const [body, status] of cases) {
      const res = await link(member, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    const reader = (await canon.key('reader')).key;
    expect((await link(reader, { memories: [tue.id, byPredicate(ms, THU1).id], same: true, idempotency_key: 'x6' })).status).toBe(403);
  });

  it('records an agent’s link as a proposal: shown on the pair, nothing merged', async () => {
    const ms = await memories();
    const tue = byPredicate(ms, TUE);
    const thu1 = byPredicate(ms, THU1);
    const res = await link(agent, { memories: [tue.id, thu1.id], same: true, idempotency_key: 'agent-link-1', reason: 'same schedule' });
    expect(res.status, await res.clone().text()).toBe(200);
    const out = await res.json();
    expect([out.outcome, out.in_force]).toEqual(['proposed', false]);
    const after = await memories();
    expect(after).toHaveLength(4);
    expect(byPredicate(after, TUE).candidates.find((c) => c.memory_id === thu1.id)?.proposed?.same).toBe(true);
  });

  it('merges linked keys into one memory, decided by the usual table, found by either id', async () => {
    const ms = await memories();
    const tue = byPredicate(ms, TUE);
    const thu1 = byPredicate(ms, THU1);
    const thu2 = byPredicate(ms, THU2);
    thu1Id = thu1.id;
    tueId = tue.id;
    const beforeLink = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 5));
    const res = await link(member, { memories: [tue.id, thu1.id], same: true, idempotency_key: 'link-1', reason: 'one schedule' });
    expect(res.status, await res.clone().text()).toBe(200);
    const out = await res.json();
    expect([out.outcome, out.in_force]).toEqual(['linked', true]);
    // The same author said Thursday later: a change, Tuesday superseded, not a dispute.
    expect(out.memory.view.current.map((v: { value: unknown }) => v.value)).toEqual(['Thursday']);
    expect(out.memory.timeline.values.map((v: { value: unknown; status: string }) => [v.value, v.status])).toEqual([
      ['Tuesday', 'superseded'],
      ['Thursday', 'in_force'],
    ]);
    const retried = await link(member, { memories: [tue.id, thu1.id], same: true, idempotency_key: 'link-1', reason: 'one schedule' });
    expect((await retried.json()).outcome).toBe('duplicate');
    const conflicting = await link(member, { memories: [tue.id, thu1.id], same: false, idempotency_key: 'link-1' });
    expect(conflicting.status).toBe(409);

    const after = await memories();
    expect(after).toHaveLength(3);
    const merged = after.find((m) => m.id === out.memory.id)!;
    expect(merged.linked).toHaveLength(1);
    for (const id of [tue.id, thu1.id]) {
      const one = await canon.request(`/v1/memories/${id}`, { key: owner });
      expect(one.status).toBe(200);
      expect((await one.json()).id).toBe(merged.id);
    }
    // The merged memory and the third wording now agree: a possible duplicate, not a contradiction.
    expect(merged.candidates.find((c) => c.memory_id === thu2.id)?.kind).toBe('possible_duplicate');
    expect(merged.needs_verification).toBe(false);

    // Transaction time replays links too: before the link, three keys and Tuesday current; as
    // known now, what recall answers now.
    const knownAt = async (known_at: string) => {
      const r = await canon.request(`/v1/subjects/${encodeURIComponent(SUBJECT)}/memories?known_at=${encodeURIComponent(known_at)}&as_of=${encodeURIComponent(new Date().toISOString())}`, { key: owner });
      expect(r.status).toBe(200);
      return (await r.json()).memories as Memory[];
    };
    const then = await knownAt(beforeLink);
    expect(then.filter((m) => m.predicate !== 'The production deploy runs on {weekday}').map((m) => [m.predicate, m.current.map((v) => v.value)])).toEqual(
      expect.arrayContaining([[TUE, ['Tuesday']], [THU1, ['Thursday']], [THU2, ['Thursday']]]),
    );
    expect(then).toHaveLength(4);
    const nowKnown = await knownAt(new Date().toISOString());
    expect(nowKnown.map((m) => [m.id, m.predicate, m.current, m.linked])).toEqual(after.map((m) => [m.id, m.predicate, m.current, m.linked]));
    for (const id of [tue.id, thu1.id]) {
      const one = await canon.request(`/v1/memories/${id}?known_at=${encodeURIComponent(new Date().toISOString())}`, { key: owner });
      expect(one.status).toBe(200);
      const body = await one.json();
      expect([body.id, body.view.current.map((v: { value: unknown }) => v.value)]).toEqual([merged.id, ['Thursday']]);
      const early = await canon.request(`/v1/memories/${id}?known_at=${encodeURIComponent(beforeLink)}`, { key: owner });
      expect((await early.json()).id).toBe(id);
    }

    const principal = await canon.runtime.authenticate(owner);
    const report = await canon.runtime.verify(principal, SUBJECT);
    expect(report.ok, JSON.stringify(report)).toBe(true);
    const rebuilt = await canon.runtime.rebuild(principal, SUBJECT);
    expect(rebuilt.state_hash).toBe(report.first.state_hash);
    expect(await memories()).toEqual(after);
  });

  it('unlinks with a later same: false, which also silences the candidate', async () => {
    // One of the two ids is the merged memory's, the other a key linked away: both still name their key.
    expect((await memories()).map((m) => m.id)).not.toContain(tueId);
    const res = await link(member, { memories: [tueId, thu1Id], same: false, idempotency_key: 'unlink-1' });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await res.json()).outcome).toBe('unlinked');
    const after = await memories();
    expect(after).toHaveLength(4);
    const tue = byPredicate(after, TUE);
    expect(tue.current.map((v) => v.value)).toEqual(['Tuesday']);
    expect(tue.candidates.map((c) => c.memory_id)).not.toContain(thu1Id);
    expect(tue.candidates.map((c) => c.memory_id)).toContain(byPredicate(after, THU2).id);
    const principal = await canon.runtime.authenticate(owner);
    expect((await canon.runtime.verify(principal, SUBJECT)).ok).toBe(true);
  });

  it('takes no expected_revision alone for a memory a link named: an unlink can bring a revision back, so If-Match is needed', async () => {
    const tue = byPredicate(await memories(), TUE);
    const detail = async () => (await canon.request(`/v1/memories/${tue.id}`, { key: owner })).json() as Promise<{ revision: number; etag: string }>;
    const { revision, etag } = await detail();
    const propose = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      canon.request(`/v1/memories/${tue.id}/proposals`, { key: owner, json: body, headers });
    const refused = await propose({ idempotency_key: 'p-rev', value: 'Wednesday', reason: 'moved', expected_revision: revision });
    expect(refused.status).toBe(400);
    const problem = await refused.json();
    expect(problem.detail).toMatch(/named by a link, and its revision can repeat after an unlink; send If-Match/);
    expect(problem.issues).toEqual([expect.objectContaining({ path: 'expected_revision' })]);
    // If-Match is taken (a stale one is 412, as ever), and so is expected_revision beside it.
    expect((await propose({ idempotency_key: 'p-stale', value: 'Wednesday', reason: 'moved' }, { 'if-match': '"0000"' })).status).toBe(412);
    const taken = await propose({ idempotency_key: 'p-etag', value: 'Wednesday', reason: 'moved', expected_revision: revision }, { 'if-match': `"${etag}"` });
    expect(taken.status, await taken.clone().text()).toBe(200);
    // A memory no link named takes expected_revision alone, as before.
    const other = byPredicate(await memories(), THU2);
    const plain = await canon.request(`/v1/memories/${other.id}/proposals`, { key: owner, json: { idempotency_key: 'p-plain', value: 'Friday', reason: 'moved', expected_revision: (await (await canon.request(`/v1/memories/${other.id}`, { key: owner })).json()).revision } });
    expect(plain.status, await plain.clone().text()).toBe(200);
  });
});

describe('a statement linked with its negation', () => {
  it('reads the negation as the end of the value: the memory is the statement, and the context no longer states it', async () => {
    const subject = 'service:neg';
    const alice = (await canon.key('member', { user: 'alice' })).key;
    const bob = (await canon.key('member', { user: 'bob' })).key;
    await say(alice, 'ng1', 'Deploys to neg are allowed on Fridays.', '2026-11-01T10:00:00Z', subject);
    await say(bob, 'ng2', 'We no longer allow deploys to neg on Fridays.', '2026-11-05T10:00:00Z', subject);
    const ms = await memories(subject);
    const [yes, no] = ['Deploys to neg are allowed on {weekday}', 'We no longer allow deploys to neg on {weekday}'].map((p) => byPredicate(ms, p));
    expect(yes!.candidates.find((c) => c.memory_id === no!.id)).toMatchObject({ kind: 'possible_contradiction', opposite: true });
    const res = await link(owner, { memories: [no!.id, yes!.id], same: true, idempotency_key: 'neglink' });
    expect(res.status, await res.clone().text()).toBe(200);
    const out = await res.json();
    expect(out.outcome).toBe('linked');
    // Keyed by the statement, whichever id came first; the negation ended Friday, it did not restate it.
    expect([out.memory.timeline.fact_key.predicate, out.memory.status]).toEqual(['Deploys to neg are allowed on {weekday}', 'tombstoned']);
    expect(out.memory.view.current).toEqual([]);
    expect(out.memory.timeline.values.map((v: { value: unknown; status: string }) => [v.value, v.status])).toEqual([['Friday', 'retracted']]);
    expect(out.memory.timeline.decisions.map((d: { kind: string }) => d.kind)).not.toContain('duplicate_of');
    const bundle = await (await canon.request('/v1/context', { key: owner, json: { subject, task: 'may I deploy to neg on Friday?', max_tokens: 2000 } })).json();
    // Before the link, the bundle stated the two as a possible contradiction; now neither as a fact.
    expect(bundle.text).toMatch(/service:neg/);
    expect(bundle.text).not.toMatch(/Friday/);
    const principal = await canon.runtime.authenticate(owner);
    expect((await canon.runtime.verify(principal, subject)).ok).toBe(true);
  });
});

describe('a qualifier on one side only', () => {
  it('flags the only two facts of a kind as a possible contradiction, and no longer once a third fact of the kind comes', async () => {
    const s = 'team:design';
    await say(member, 'sync-1', 'Design sync happens on Wednesday.', '2026-11-01T10:00:00Z', s);
    await say(member, 'sync-2', 'The design team meets every Thursday for the weekly sync.', '2026-11-08T10:00:00Z', s);
    const two = await memories(s);
    expect(two).toHaveLength(2);
    const weekly = two.find((m) => m.predicate.includes('weekly'))!;
    expect(weekly.candidates.map((c) => [c.kind, c.values, c.other_values])).toEqual([['possible_contradiction', ['Thursday'], ['Wednesday']]]);
    expect(weekly.candidates[0]!.reason).toContain('the only two facts with them here');
    // Among three facts of a kind, "weekly" may be what tells one from another: no pair by it.
    await say(member, 'review-1', 'Design review is on Friday.', '2026-11-09T10:00:00Z', s);
    const plain = two.find((m) => m.id !== weekly.id)!;
    const three = await memories(s);
    expect(three).toHaveLength(3);
    expect(three.find((m) => m.id === weekly.id)!.candidates.map((c) => c.memory_id)).not.toContain(plain.id);
  });
});

describe('duplicates phrased differently', () => {
  it('flags two notes of one preference as a possible duplicate; linked, one memory', async () => {
    const s = 'user:ana';
    await say(member, 'pref-1', 'The user prefers dark mode.', '2026-11-01T10:00:00Z', s);
    await say(member, 'pref-2', 'The user likes dark mode.', '2026-11-02T10:00:00Z', s);
    const ms = await memories(s);
    expect(ms).toHaveLength(2);
    expect(ms[0]!.candidates.map((c) => c.kind)).toEqual(['possible_duplicate']);
    const res = await link(member, { memories: [ms[0]!.id, ms[1]!.id], same: true, idempotency_key: 'pref-link' });
    expect(res.status, await res.clone().text()).toBe(200);
    const after = await memories(s);
    expect(after).toHaveLength(1);
  });

  it('is held by verify to the words of each note: two notes about different things are no pair', async () => {
    const s = 'user:bo';
    const principal = await canon.runtime.authenticate(owner);
    await say(member, 'bo-1', 'Bo prefers green tea.', '2026-11-01T10:00:00Z', s);
    await say(member, 'bo-2', 'The office plants need watering.', '2026-11-02T10:00:00Z', s);
    const ms = await memories(s);
    expect(ms).toHaveLength(2);
    expect(ms.flatMap((m) => m.candidates)).toEqual([]);
    expect((await canon.runtime.verify(principal, s)).differences).toEqual([]);
  });
});

// THU1's id: derived from its key, the same before and after any link.
let thu1Id = '';
let tueId = '';
