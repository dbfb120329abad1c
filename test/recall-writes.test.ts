import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { Role } from '@canon/core';
import { actorName, deploymentStory, freezeResolution, startTestCanon, storyActors, type StoryStep, type TestCanon } from '@canon/testing';

let canon: TestCanon;
const keys = new Map<string, string>();
const SUBJECT = 'service:billing';
const enc = encodeURIComponent;

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  for (const role of ['agent', 'member', 'maintainer', 'owner', 'reader'] as const) keys.set(role, (await canon.key(role)).key);
  for (const a of storyActors([...deploymentStory(), freezeResolution()])) keys.set(actorName(a), (await canon.key(a.role, { user: a.user })).key);
});
afterAll(() => canon.close());

async function post(step: StoryStep) {
  if (!keys.has(actorName(step))) keys.set(actorName(step), (await canon.key(step.role, { user: step.user })).key);
  const res = await canon.request('/v1/episodes?compile=wait', { key: keys.get(actorName(step))!, json: step.episode });
  expect(res.status).toBe(200);
  return res.json();
}

type Summary = { id: string; predicate: string; qualifiers: Record<string, string>; status: string; revision: number; etag: string; current: Array<{ value: unknown; conditions: string[] }> };

async function memories(subject: string, query = '', role: Role = 'owner'): Promise<{ known_at: string | null; as_of: string; memories: Summary[] }> {
  const res = await canon.request(`/v1/subjects/${enc(subject)}/memories${query}`, { key: keys.get(role)! });
  expect(res.status).toBe(200);
  return res.json();
}
const byPredicate = (ms: Summary[], predicate: string, env?: string) => ms.find((m) => m.predicate === predicate && m.qualifiers['env'] === env);
const values = (m: Summary | undefined) => m?.current.map((v) => v.value);

/** A proposal from a role's key, or from the key given (as `{ key }`). */
async function propose(id: string, body: Record<string, unknown>, role: Role | { key: string } = 'agent', headers: Record<string, string> = {}) {
  return canon.request(`/v1/memories/${id}/proposals`, { key: typeof role === 'string' ? keys.get(role)! : role.key, json: body, headers });
}

/** Counts the rows of a table (for "nothing written" checks). */
async function count(table: string): Promise<number> {
  const { rows } = await canon.runtime.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return rows[0]!.n;
}

describe('time travel on the deployment-window story', () => {
  const ingestedAt: string[] = [];
  beforeAll(async () => {
    for (const step of deploymentStory()) {
      await post(step);
      const { rows } = await canon.runtime.pool.query<{ t: string }>(
        `SELECT ingested_at AS t FROM episodes WHERE idempotency_key = $1`,
        [step.episode['idempotency_key']],
      );
      ingestedAt.push(rows[0]!.t);
      // Distinct transaction times, so "known at" can fall between two steps.
      await new Promise((r) => setTimeout(r, 15));
    }
  });

  it('as_of views the timeline: Tuesday before the change, Thursday scheduled, then current', async () => {
    const before = await memories(SUBJECT, '?as_of=2024-05-07T00:00:00Z');
    expect(values(byPredicate(before.memories, 'deploy day', 'staging'))).toEqual(['Tuesday']);
    const after = await memories(SUBJECT, '?as_of=2024-05-20T00:00:00Z');
    expect(values(byPredicate(after.memories, 'deploy day', 'staging'))).toEqual(['Thursday']);
    expect(after.known_at).toBeNull();
  });

  it('known_at refolds what was ingested by then: before the maintainer’s change, Tuesday holds even on May 20', async () => {
    // Steps 0..3 are the three Tuesday statements and the condition; step 4 is the maintainer's change.
    const beforeChange = new Date(Date.parse(ingestedAt[4]!) - 1).toISOString();
    const then = await memories(SUBJECT, `?as_of=2024-05-20T00:00:00Z&known_at=${enc(beforeChange)}`);
    expect(then.known_at).toBe(beforeChange);
    const staging = byPredicate(then.memories, 'deploy day', 'staging')!;
    expect(values(staging)).toEqual(['Tuesday']);
    expect(staging.current[0]!.conditions).toEqual(['only after the integration tests pass']);
    expect(staging.revision).toBe(4);
    // Keys first stated later did not exist yet.
    expect(byPredicate(then.memories, 'deploy day', 'production')).toBeUndefined();
    expect(byPredicate(then.memories, 'owning team')).toBeUndefined();

    const now = await memories(SUBJECT, `?as_of=2024-05-20T00:00:00Z&known_at=${enc(new Date().toISOString())}`);
    const current = await memories(SUBJECT, '?as_of=2024-05-20T00:00:00Z');
    expect(now.memories).toEqual(current.memories);
  });

  it('known_at alone reads the belief at that time about that time; the freeze-day conflict shows both sides', async () => {
    const afterFreeze = ingestedAt[8]!;
    const then = await memories(SUBJECT, `?known_at=${enc(afterFreeze)}`);
    expect(then.as_of).toBe(afterFreeze);
    const freeze = byPredicate(then.memories, 'release freeze day') as Summary & { conflict: Array<{ value: string }>; needs_verification: boolean };
    expect(freeze.status).toBe('conflicted');
    expect(freeze.needs_verification).toBe(true);
    expect(freeze.conflict.map((s) => s.value)).toEqual(['Wednesday', 'Friday']);
  });

  it('GET /v1/memories/{id}?known_at= refolds one memory; 404 before it was known; ETag on every read', async () => {
    const staging = byPredicate((await memories(SUBJECT)).memories, 'deploy day', 'staging')!;
    const early = new Date(Date.parse(ingestedAt[2]!) + 1).toISOString();
    const res = await canon.request(`/v1/memories/${staging.id}?known_at=${enc(early)}&as_of=2024-05-20T00:00:00Z`, { key: keys.get('agent')! });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.revision).toBe(3);
    expect(body.timeline.values.map((v: { value: string }) => v.value)).toEqual(['Tuesday']);
    expect(res.headers.get('etag')).toBe(`"${body.etag}"`);
    const tooEarly = await canon.request(`/v1/memories/${staging.id}?known_at=2000-01-01T00:00:00Z`, { key: keys.get('agent')! });
    expect(tooEarly.status).toBe(404);
    expect(tooEarly.headers.get('content-type')).toContain('application/problem+json');
    for (const bad of ['known_at=yesterday', 'known_at=2024-13-01T00:00:00Z', 'as_of=2024-05-01', `known_at=${'9'.repeat(70)}`]) {
      const r = await canon.request(`/v1/subjects/${enc(SUBJECT)}/memories?${bad}`, { key: keys.get('agent')! });
      expect(r.status, bad).toBe(400);
      expect((await r.json()).type).toBe('urn:canon:problem:validation');
    }
  });
});

describe('conditional writes', () => {
  const subject = 'service:proposals';
  let id: string;
  beforeAll(async () => {
    await post({ role: 'agent', user: 'ava', episode: { idempotency_key: 'pr-1', subject, occurred_at: '2024-05-01T09:00:00Z', kind: 'claim', body: { claims: [{ predicate: 'deploy day', value: 'Tuesday' }] } } });
    id = (await memories(subject)).memories[0]!.id;
  });

  it('refuses a stale revision with 412 and the current memory, writing nothing', async () => {
    const before = await count('episodes');
    const res = await propose(id, { expected_revision: 99, idempotency_key: 'stale-1', conditions: ['after the freeze'], reason: 'test' });
    expect(res.status).toBe(412);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const problem = await res.json();
    expect(problem.type).toBe('urn:canon:problem:precondition_failed');
    expect(problem.current.id).toBe(id);
    expect(problem.current.revision).toBe(1);
    expect(problem.current_etag).toBe(problem.current.etag);
    // The answer carries the memory's ETag, as every answer about it does: the next If-Match.
    expect(res.headers.get('etag')).toBe(`"${problem.current_etag}"`);
    expect(await count('episodes')).toBe(before);
    const wrongEtag = await propose(id, { idempotency_key: 'stale-2', conditions: ['x'], reason: 'test' }, 'agent', { 'if-match': '"nope"' });
    expect(wrongEtag.status).toBe(412);
  });

  it('two agents racing compatible enrichments: one 412, then a recompute keeps both conditions', async () => {
    const start = (await memories(subject)).memories[0]!;
    const [a, b] = await Promise.all([
      propose(id, { expected_revision: start.revision, idempotency_key: 'race-a', conditions: ['only after the integration tests pass'], reason: 'CI gate' }),
      propose(id, { expected_revision: start.revision, idempotency_key: 'race-b', conditions: ['never during the freeze'], reason: 'freeze' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 412]);
    const [won, lost] = a.status === 200 ? [a, b] : [b, a];
    const wonBody = await won.json();
    expect(wonBody.outcome).toBe('applied');
    expect(wonBody.decision.kind).toBe('enriches');
    expect(won.headers.get('etag')).toBe(`"${wonBody.memory.etag}"`);
    const problem = await lost.json();
    // The loser recomputes from the memory the 412 carried and proposes again under the same key.
    const retryBody = lost === b
      ? { expected_revision: problem.current.revision, idempotency_key: 'race-b', conditions: ['never during the freeze'], reason: 'freeze' }
      : { expected_revision: problem.current.revision, idempotency_key: 'race-a', conditions: ['only after the integration tests pass'], reason: 'CI gate' };
    const again = await propose(id, retryBody);
    expect(again.status).toBe(200);
    const after = (await memories(subject)).memories[0]!;
    expect(after.current).toHaveLength(1);
    expect(after.current[0]!.value).toBe('Tuesday');
    expect(after.current[0]!.conditions).toEqual(['never during the freeze', 'only after the integration tests pass']);
    expect(after.revision).toBe(start.revision + 2);
  });

  it('a retried proposal after a lost response is applied once and answers the committed result', async () => {
    const m = (await memories(subject)).memories[0]!;
    const body = { expected_revision: m.revision, idempotency_key: 'retry-1', value: 'Wednesday', reason: 'moved by the release team' };
    const first = await propose(id, body, 'member');
    expect(first.status).toBe(200);
    const firstBody = await first.json();
    expect(firstBody.decision.kind).toBe('changes');
    const episodes = await count('episodes');
    const second = await propose(id, body, 'member');
    expect(second.status).toBe(200);
    const secondBody = await second.json();
    expect(secondBody.outcome).toBe('duplicate');
    expect(secondBody.episode_id).toBe(firstBody.episode_id);
    expect(secondBody.memory.revision).toBe(firstBody.memory.revision);
    expect(await count('episodes')).toBe(episodes);
    // The same key with a different proposal is a key conflict.
    const other = await propose(id, { ...body, value: 'Friday' }, 'member');
    expect(other.status).toBe(409);
    const now = (await memories(subject)).memories[0]!;
    expect(values(now)).toEqual(['Wednesday']);
  });

  it('PATCH with If-Match applies a change; an agent below the value’s standing is overruled, visible in history', async () => {
    const m = (await memories(subject)).memories[0]!;
    const res = await canon.request(`/v1/memories/${id}`, {
      method: 'PATCH',
      key: keys.get('agent')!,
      headers: { 'if-match': `"${m.etag}"` },
      json: { idempotency_key: 'patch-1', value: 'Monday', reason: 'agent guess' },
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.decision.kind).toBe('overruled');
    expect(values((await memories(subject)).memories[0])).toEqual(['Wednesday']);
    const missing = await canon.request(`/v1/memories/${id}`, { method: 'PATCH', key: keys.get('agent')!, json: { idempotency_key: 'patch-2', value: 'x', reason: 'r' } });
    expect(missing.status).toBe(400);
    // Says what to send, not the validator's "expected string, received undefined".
    expect((await missing.json()).detail).toMatch(/^if-match: required: the memory's ETag/);
    // If-Match compares strongly (RFC 9110 §13.1.1): a weak tag matches nothing, even its own.
    const now = (await memories(subject)).memories[0]!;
    const weak = await canon.request(`/v1/memories/${id}`, {
      method: 'PATCH',
      key: keys.get('agent')!,
      headers: { 'if-match': `W/"${now.etag}"` },
      json: { idempotency_key: 'patch-3', value: 'Sunday', reason: 'weak' },
    });
    expect(weak.status).toBe(412);
  });

  it('answers 503 with Retry-After when another writer holds the subject, and writes nothing', async () => {
    const m = (await memories(subject)).memories[0]!;
    const holder = new pg.Client({ connectionString: canon.db.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 7236003))', [JSON.stringify(['default', subject])]);
      const before = await count('episodes');
      const res = await propose(id, { expected_revision: m.revision, idempotency_key: 'busy-1', conditions: ['c'], reason: 'r' }, 'member');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect((await res.json()).type).toBe('urn:canon:problem:busy');
      expect(await count('episodes')).toBe(before);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
  });

  it('refuses bad input with problem+json and writes nothing', async () => {
    const m = (await memories(subject)).memories[0]!;
    const before = await count('episodes');
    const cases: Array<[string, unknown, number]> = [
      [id, { expected_revision: 'one', idempotency_key: 'b1', value: 'x', reason: 'r' }, 400],
      [id, { expected_revision: m.revision, idempotency_key: 'b2', reason: 'r' }, 400],
      [id, { expected_revision: m.revision, idempotency_key: 'b3', value: 'x', reason: 'r'.repeat(3000) }, 400],
      [id, { expected_revision: m.revision, idempotency_key: 'x'.repeat(600), value: 'x', reason: 'r' }, 400],
      [id, { expected_revision: m.revision, idempotency_key: 'b5', value: 'x', reason: 'r', effective_from: 'next week' }, 400],
      [id, { expected_revision: m.revision, idempotency_key: 'b6', value: 'x', reason: 'r', unknown: 1 }, 400],
      [id, { expected_revision: m.revision, idempotency_key: 'b7', value: 'x\u0000y', reason: 'r' }, 400],
      ['0'.repeat(32), { expected_revision: 1, idempotency_key: 'b8', value: 'x', reason: 'r' }, 404],
    ];
    for (const [target, body, status] of cases) {
      const res = await propose(target, body as Record<string, unknown>, 'member');
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    const reader = await propose(id, { expected_revision: m.revision, idempotency_key: 'b9', value: 'x', reason: 'r' }, 'reader');
    expect(reader.status).toBe(403);
    const malformed = await canon.request(`/v1/memories/${id}/proposals`, { key: keys.get('member')!, body: '{"expected_revision":', headers: { 'content-type': 'application/json' }, method: 'POST' });
    expect(malformed.status).toBe(400);
    expect(await count('episodes')).toBe(before);
  });
});

describe('conflicts', () => {
  const subject = 'service:freeze';
  let id: string;
  beforeAll(async () => {
    const ep = (key: string, at: string, value: string) => ({ idempotency_key: key, subject, occurred_at: at, kind: 'claim', body: { claims: [{ predicate: 'release freeze day', value }] } });
    await post({ role: 'member', user: 'mia', episode: ep('cf-1', '2024-05-01T09:00:00Z', 'Wednesday') });
    await post({ role: 'member', user: 'noor', episode: { ...ep('cf-2', '2024-05-02T09:00:00Z', 'Friday'), source: 'mcp' } });
    id = (await memories(subject)).memories[0]!.id;
  });

  it('lists an open conflict with both sides and their sources', async () => {
    const res = await canon.request(`/v1/conflicts?subject=${enc(subject)}`, { key: keys.get('agent')! });
    expect(res.status).toBe(200);
    const { conflicts } = await res.json();
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({ memory_id: id, subject, predicate: 'release freeze day', needs_verification: true, required_standing: 30 });
    expect(conflicts[0].sides.map((s: { value: string; sources: Array<{ source: string; idempotency_key: string; index: number }> }) => [s.value, s.sources.map((x) => [x.source, x.idempotency_key, x.index])])).toEqual([
      ['Wednesday', [['api', 'cf-1', 0]]],
      ['Friday', [['mcp', 'cf-2', 0]]],
    ]);
    const all = await (await canon.request('/v1/conflicts', { key: keys.get('agent')! })).json();
    expect(all.conflicts.map((c: { memory_id: string }) => c.memory_id)).toContain(id);
  });

  it('refuses a resolution from a role below the sides’ standing with 403, writing nothing', async () => {
    const before = await count('episodes');
    const res = await canon.request(`/v1/memories/${id}/resolution`, { key: keys.get('agent')!, json: { value: 'Friday', reason: 'I think so' } });
    expect(res.status).toBe(403);
    expect((await res.json()).type).toBe('urn:canon:problem:forbidden');
    expect(await count('episodes')).toBe(before);
    expect((await canon.request(`/v1/memories/${id}/resolution`, { key: keys.get('maintainer')!, json: { reason: 'no value' } })).status).toBe(400);
    expect((await canon.request(`/v1/memories/nope/resolution`, { key: keys.get('maintainer')!, json: { value: 'x', reason: 'r' } })).status).toBe(404);
  });

  it('takes no episode of another writer under its key for a retry: a key taken first is a 409, and the conflict stays open', async () => {
    const memory = await (await canon.request(`/v1/memories/${id}`, { key: keys.get('maintainer')! })).json();
    // An agent takes the key the maintainer will name, and the keys a resolution once made of the
    // memory and its revision.
    const squat = [`resolve:${id}:${memory.revision}`, `resolve:${id}:${memory.revision + 1}`, 'resolve-squat'].map((k) => ({ idempotency_key: k, subject: 'agent:notes', body: { text: 'Taken first.' } }));
    expect((await canon.request('/v1/episodes', { key: keys.get('agent')!, json: { episodes: squat } })).status).toBe(200);
    const taken = await canon.request(`/v1/memories/${id}/resolution`, { key: keys.get('maintainer')!, json: { value: 'Friday', reason: 'release calendar', idempotency_key: 'resolve-squat' } });
    expect(taken.status).toBe(409);
    expect((await taken.json()).type).toBe('urn:canon:problem:key_conflict');
    expect((await (await canon.request(`/v1/conflicts?subject=${enc(subject)}`, { key: keys.get('agent')! })).json()).conflicts).toHaveLength(1);
  });

  it('resolves it with a correction naming the claims it settles; the memory is current after', async () => {
    const res = await canon.request(`/v1/memories/${id}/resolution`, { key: keys.get('maintainer')!, json: { value: 'Friday', reason: 'release calendar', idempotency_key: 'resolve-freeze' } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.decision.kind).toBe('settles');
    expect(body.memory.view.status).toBe('current');
    expect(body.memory.view.current.map((v: { value: string }) => v.value)).toEqual(['Friday']);
    // Read the row itself: the log API shows it only once every older transaction of the
    // cluster (other test files' too) has ended.
    const { rows } = await canon.runtime.pool.query(`SELECT kind, body FROM episodes WHERE idempotency_key = 'resolve-freeze'`);
    const episode = rows[0] as { kind: string; body: { claims: unknown[] } };
    expect(episode.kind).toBe('correction');
    expect(episode.body.claims[0]).toMatchObject({
      predicate: 'release freeze day',
      value: 'Friday',
      correction: true,
      settles: [
        { source: 'api', idempotency_key: 'cf-1', index: 0 },
        { source: 'mcp', idempotency_key: 'cf-2', index: 0 },
      ],
    });
    expect((await (await canon.request(`/v1/conflicts?subject=${enc(subject)}`, { key: keys.get('agent')! })).json()).conflicts).toEqual([]);
    const subjects = (await (await canon.request('/v1/subjects', { key: keys.get('agent')! })).json()).subjects;
    expect(subjects.find((s: { subject: string }) => s.subject === subject).open_conflicts).toBe(0);
    // Retried after a lost response: the committed result, nothing new.
    const again = await canon.request(`/v1/memories/${id}/resolution`, { key: keys.get('maintainer')!, json: { value: 'Friday', reason: 'release calendar', idempotency_key: 'resolve-freeze' } });
    expect(again.status).toBe(200);
    expect((await again.json()).outcome).toBe('duplicate');
    const none = await canon.request(`/v1/memories/${id}/resolution`, { key: keys.get('maintainer')!, json: { value: 'Friday', reason: 'again' } });
    expect(none.status).toBe(409);
  });
});

describe('policies', () => {
  const subject = 'service:policy';
  beforeAll(async () => {
    const ep = (key: string, at: string, value: string) => ({ idempotency_key: key, subject, occurred_at: at, kind: 'claim', body: { claims: [{ predicate: 'on call team', value }] } });
    await post({ role: 'agent', user: 'ava', episode: ep('pol-1', '2024-05-01T09:00:00Z', 'payments') });
    await post({ role: 'agent', user: 'ben', episode: ep('pol-2', '2024-05-02T09:00:00Z', 'platform') });
  });

  it('a predicate switched from flag to supersede is rebuilt: the former conflict becomes a change', async () => {
    expect(byPredicate((await memories(subject)).memories, 'on call team')!.status).toBe('conflicted');
    const before = await (await canon.request('/v1/policies', { key: keys.get('agent')! })).json();
    expect(before.own).toBeNull();
    expect(before.effective.defaults).toEqual({ cardinality: 'one', mode: 'flag', min_role: 'reader' });

    const forbidden = await canon.request('/v1/policies', { method: 'PUT', key: keys.get('member')!, json: { predicates: {} } });
    expect(forbidden.status).toBe(403);

    const put = await canon.request('/v1/policies', {
      method: 'PUT',
      key: keys.get('maintainer')!,
      json: { predicates: { 'on call team': { cardinality: 'one', mode: 'supersede', min_role: 'agent' } } },
    });
    expect(put.status).toBe(200);
    const change = await put.json();
    expect(change.changed).toBe(true);
    expect(change.fingerprint).not.toBe(before.fingerprint);
    expect(change.rebuild).toMatchObject({ subjects: [subject], mode: 'compiled' });

    const after = byPredicate((await memories(subject)).memories, 'on call team')!;
    expect(after.status).toBe('current');
    expect(values(after)).toEqual(['platform']);
    const detail = await (await canon.request(`/v1/memories/${after.id}`, { key: keys.get('agent')! })).json();
    expect(detail.timeline.values.map((v: { value: string; status: string; superseded_by: string | null }) => [v.value, v.status, v.superseded_by])).toEqual([
      ['payments', 'superseded', 'change'],
      ['platform', 'in_force', null],
    ]);
    const { rows } = await canon.runtime.pool.query<{ policy_fingerprint: string }>('SELECT DISTINCT policy_fingerprint FROM episode_markers WHERE subject = $1', [subject]);
    expect(rows.map((r) => r.policy_fingerprint)).toEqual([change.fingerprint]);

    const same = await (await canon.request('/v1/policies', { method: 'PUT', key: keys.get('owner')!, json: change.own })).json();
    expect(same).toMatchObject({ changed: false, rebuild: { subjects: [], mode: 'none' } });
  });

  it('refuses invalid policies with problem+json and keeps the old ones', async () => {
    const before = await (await canon.request('/v1/policies', { key: keys.get('agent')! })).json();
    for (const body of [
      { predicates: { x: { cardinality: 'two', mode: 'flag', min_role: 'agent' } } },
      { time_zone: 'Mars/Olympus' },
      { defaults: 'flag' },
      { extra: true },
    ]) {
      const res = await canon.request('/v1/policies', { method: 'PUT', key: keys.get('owner')!, json: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    expect(await (await canon.request('/v1/policies', { key: keys.get('agent')! })).json()).toEqual(before);
  });
});

describe('personal memories', () => {
  it('are visible to their owner only, in lists, by id, at known_at, in conflicts and to proposals', async () => {
    const alice = await canon.key('member', { user: 'alice' });
    const bob = await canon.key('member', { user: 'bob' });
    const subject = 'person:notes';
    const ep = (key: string, value: string) => ({ idempotency_key: key, subject, scope: 'personal', kind: 'claim', body: { claims: [{ predicate: 'favourite editor', value }] } });
    expect((await canon.request('/v1/episodes?compile=wait', { key: alice.key, json: ep('al-1', 'vim') })).status).toBe(200);
    const mine = await (await canon.request(`/v1/subjects/${enc(subject)}/memories`, { key: alice.key })).json();
    expect(mine.memories).toHaveLength(1);
    const id = mine.memories[0].id;
    for (const path of [`/v1/subjects/${enc(subject)}/memories`, `/v1/subjects/${enc(subject)}/memories?known_at=${enc(new Date().toISOString())}`]) {
      expect((await (await canon.request(path, { key: bob.key })).json()).memories).toEqual([]);
    }
    expect((await canon.request(`/v1/memories/${id}`, { key: bob.key })).status).toBe(404);
    expect((await canon.request(`/v1/memories/${id}?known_at=${enc(new Date().toISOString())}`, { key: bob.key })).status).toBe(404);
    expect((await propose(id, { expected_revision: 1, idempotency_key: 'bob-1', value: 'emacs', reason: 'mine now' }, bob)).status).toBe(404);
    const own = await canon.request(`/v1/memories/${id}/proposals`, { key: alice.key, json: { expected_revision: 1, idempotency_key: 'al-2', value: 'helix', reason: 'switched' } });
    expect(own.status).toBe(200);
    expect((await own.json()).memory.view.current.map((v: { value: string }) => v.value)).toEqual(['helix']);
  });
});
