import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';

// The standing a link needs is a workspace policy (`links.min_role`, default member): a team that
// lets its agents link paraphrases says so, and one that wants only owners to merge facts says
// that. Changing it rebuilds, and what was a proposal is applied (or what was applied becomes a
// proposal) from the same log.

let canon: TestCanon;
let owner: string;
let member: string;
let agent: string;

const SUBJECT = 'service:checkout';
const SLA = 'Checkout has an uptime SLA of {percent}';
const PROMISE = 'We promise {percent} availability for checkout';

type Memory = { id: string; predicate: string; linked: string[]; candidates: Array<{ memory_id: string; proposed?: { same: boolean } }> };

async function memories(): Promise<Memory[]> {
  const res = await canon.request(`/v1/subjects/${encodeURIComponent(SUBJECT)}/memories`, { key: owner });
  expect(res.status).toBe(200);
  return (await res.json()).memories as Memory[];
}

async function putPolicies(body: unknown, key = owner) {
  return canon.request('/v1/policies', { method: 'PUT', key, json: body });
}

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  owner = (await canon.key('owner')).key;
  member = (await canon.key('member')).key;
  agent = (await canon.key('agent')).key;
  for (const [k, text, at] of [
    ['sla-1', 'Checkout has an uptime SLA of 99.95%.', '2026-11-04T15:00:00Z'],
    ['sla-2', 'We promise 99.9% availability for checkout.', '2026-11-16T18:00:00Z'],
  ] as const) {
    // An agent's statements: a link is in force only from a writer standing as high as both keys'
    // claims, so an agent may link only what agents said, whatever the policy lets it.
    const res = await canon.request('/v1/episodes?compile=wait', { key: agent, json: { idempotency_key: k, subject: SUBJECT, occurred_at: at, body: { text } } });
    expect(res.status, await res.clone().text()).toBe(200);
  }
});
afterAll(() => canon.close());

describe('links.min_role', () => {
  it('leaves an agent’s link a proposal under the default, and applies it once agents may link', async () => {
    const ms = await memories();
    const a = ms.find((m) => m.predicate === SLA)!;
    const b = ms.find((m) => m.predicate === PROMISE)!;
    const res = await canon.request('/v1/links', { key: agent, json: { memories: [a.id, b.id], same: true, idempotency_key: 'agent-link', reason: 'one SLA' } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ outcome: 'proposed', in_force: false });
    expect(await memories()).toHaveLength(2);

    const change = await putPolicies({ links: { min_role: 'agent' } });
    expect(change.status, await change.clone().text()).toBe(200);
    const body = await change.json();
    expect(body).toMatchObject({ changed: true, effective: { links: { min_role: 'agent' } }, own: { links: { min_role: 'agent' } } });
    expect(body.rebuild.subjects).toContain(SUBJECT);
    const merged = await memories();
    expect(merged).toHaveLength(1);
    expect(merged[0]!.linked).toHaveLength(1);
    const principal = await canon.runtime.authenticate(owner);
    expect((await canon.runtime.verify(principal, SUBJECT)).ok).toBe(true);
  });

  it('turns a member’s link into a proposal when only owners may link, and back when the policy goes', async () => {
    const [merged] = await memories();
    const otherId = (await canon.request(`/v1/memories/${merged!.id}`, { key: owner }).then((r) => r.json())).timeline.linked as string[];
    expect(otherId).toHaveLength(1);
    await putPolicies({ links: { min_role: 'owner' } });
    const split = await memories();
    expect(split).toHaveLength(2);
    // The agent's link is still shown on the pair as a proposal.
    expect(split.some((m) => m.candidates.some((c) => c.proposed?.same === true))).toBe(true);
    const principal = await canon.runtime.authenticate(owner);
    expect((await canon.runtime.verify(principal, SUBJECT)).ok).toBe(true);
    // Without a links policy the default (member) applies: the agent's link is a proposal again.
    const reset = await putPolicies({});
    expect((await reset.json()).effective.links).toBeUndefined();
    expect(await memories()).toHaveLength(2);
  });

  it('refuses a role that does not exist, and a member changing it', async () => {
    const bad = await putPolicies({ links: { min_role: 'robot' } });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('links');
    const extra = await putPolicies({ links: { min_role: 'agent', mode: 'supersede' } });
    expect(extra.status).toBe(400);
    expect((await putPolicies({ links: { min_role: 'agent' } }, member)).status).toBe(403);
  });

  it('answers a member’s unlink of an owner’s link as not in force: the owner’s link still holds the pair', async () => {
    const ms = await memories();
    expect(ms).toHaveLength(2);
    const [a, b] = [ms.find((m) => m.predicate === SLA)!, ms.find((m) => m.predicate === PROMISE)!];
    const linked = await canon.request('/v1/links', { key: owner, json: { memories: [a.id, b.id], same: true, idempotency_key: 'owner-link' } });
    expect(await linked.json()).toMatchObject({ outcome: 'linked', in_force: true });
    const unlink = { memories: [a.id, b.id], same: false, idempotency_key: 'member-unlink' };
    const res = await canon.request('/v1/links', { key: member, json: unlink });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ outcome: 'unlinked', in_force: false });
    expect(await memories()).toHaveLength(1);
    // A retry answers the same.
    expect(await (await canon.request('/v1/links', { key: member, json: unlink })).json()).toMatchObject({ outcome: 'duplicate', in_force: false });
    // Either id reads the merged memory, and either writes to it.
    const [merged] = await memories();
    const other = [a.id, b.id].find((id) => id !== merged!.id)!;
    const read = await (await canon.request(`/v1/memories/${other}`, { key: owner })).json();
    expect(read.id).toBe(merged!.id);
    // A linked memory is written under its ETag (its revision can repeat after an unlink).
    const proposal = await canon.request(`/v1/memories/${other}/proposals`, {
      key: owner,
      json: { idempotency_key: 'through-the-linked-id', value: '99.99%', reason: 'raised' },
      headers: { 'if-match': `"${read.etag}"` },
    });
    expect(proposal.status, await proposal.clone().text()).toBe(200);
    expect((await proposal.json()).memory).toMatchObject({ id: merged!.id, view: { current: [{ value: '99.99%' }] } });
    // The owner's own unlink is in force: the pair is two memories again.
    const undone = await canon.request('/v1/links', { key: owner, json: { ...unlink, idempotency_key: 'owner-unlink' } });
    expect(await undone.json()).toMatchObject({ outcome: 'unlinked', in_force: true });
    expect(await memories()).toHaveLength(2);
  });
});

describe('a link needs the standing of what it joins', () => {
  const S = 'service:db';
  const ids = async () => {
    const res = await canon.request(`/v1/subjects/${encodeURIComponent(S)}/memories`, { key: owner });
    return ((await res.json()).memories as Array<{ id: string; qualifiers: Record<string, string>; status: string; current: Array<{ value: unknown }> }>);
  };

  it("leaves a member's link of an owner's two facts a proposal: both still hold", async () => {
    // Joined, the owner's later statement would end the earlier one (the author rule): the staging
    // host gone from recall, by a member who could not change either value.
    const claim = (k: string, env: string, value: string, at: string) => ({ idempotency_key: k, subject: S, occurred_at: at, kind: 'claim', body: { claims: [{ predicate: 'db host', qualifiers: { env }, value }] } });
    const res = await canon.request('/v1/episodes?compile=wait', { key: owner, json: { episodes: [claim('db-s', 'staging', 'db-s.internal', '2026-11-01T10:00:00Z'), claim('db-p', 'production', 'db-p.internal', '2026-11-02T10:00:00Z')] } });
    expect(res.status).toBe(200);
    const [a, b] = await ids();
    const link = await canon.request('/v1/links', { key: member, json: { memories: [a!.id, b!.id], same: true, idempotency_key: 'member-joins-owner' } });
    expect(await link.json()).toMatchObject({ outcome: 'proposed', in_force: false });
    const after = await ids();
    expect(after.map((m) => [m.qualifiers['env'], m.status, m.current.map((v) => v.value)]).sort()).toEqual([
      ['production', 'current', ['db-p.internal']],
      ['staging', 'current', ['db-s.internal']],
    ]);
    // The proposal is shown on the pair, and puts neither fact in doubt: no possible contradiction,
    // nothing to verify, and the context bundle states both as the facts they are.
    for (const m of after as unknown as Array<{ needs_verification: boolean; candidates: Array<{ kind: string; proposed?: unknown }> }>) {
      expect(m.needs_verification).toBe(false);
      expect(m.candidates).toEqual([expect.objectContaining({ kind: 'candidate', proposed: expect.objectContaining({ same: true }) })]);
    }
    const bundle = await (await canon.request('/v1/context', { key: owner, json: { subject: S, task: 'db host', max_tokens: 2000 } })).json();
    expect(bundle.text).not.toContain('POSSIBLE CONTRADICTION');
    expect(bundle.possible_contradictions).toEqual([]);
    // The same link sent as a raw episode is no stronger.
    const keys = await Promise.all([a!, b!].map(async (m) => (await (await canon.request(`/v1/memories/${m.id}`, { key: owner })).json()).timeline.fact_key));
    const raw = await canon.request('/v1/episodes?compile=wait', { key: member, json: { idempotency_key: 'raw-link', subject: S, kind: 'link', body: { link: { keys, same: true } } } });
    expect(raw.status).toBe(200);
    expect(await ids()).toHaveLength(2);
    const principal = await canon.runtime.authenticate(owner);
    expect((await canon.runtime.verify(principal, S)).ok).toBe(true);
    // A raw link the compiler could not read is refused, not stored to do nothing: another
    // subject's keys, one key twice, a body that is no link — the batch with it stores nothing.
    const before = (await canon.runtime.pool.query('SELECT count(*)::int AS n FROM episodes')).rows[0].n as number;
    for (const [k, subject, body, message] of [
      ['raw-elsewhere', 'service:other', { link: { keys, same: true } }, /its own subject \("service:other"\), not of/],
      ['raw-itself', S, { link: { keys: [keys[0], keys[0]], same: true } }, /two different keys/],
      ['raw-text', S, { text: 'these two are the same' }, /a link's body is/],
      ['raw-foreign', S, { link: { keys: keys.map((k: Record<string, unknown>) => ({ ...k, workspace_id: 'another-workspace' })), same: true } }, /its own workspace, not of "another-workspace"/],
    ] as const) {
      const res = await canon.request('/v1/episodes', { key: owner, json: { episodes: [{ idempotency_key: `${k}-ok`, subject: S, body: { text: 'A fine statement.' } }, { idempotency_key: k, subject, kind: 'link', body }] } });
      expect(res.status, k).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      const problem = await res.json();
      expect(problem.detail, k).toMatch(message);
      expect(problem.type, k).toMatch(/validation/);
      expect(problem.issues, k).toEqual([expect.objectContaining({ index: 1, path: 'body.link' })]);
    }
    expect((await canon.runtime.pool.query('SELECT count(*)::int AS n FROM episodes')).rows[0].n).toBe(before);
    // Nor one dated ahead: among links of equal standing the later wins, so a link of 2099 would
    // outlast every unlink a peer says before then.
    const ahead = await canon.request('/v1/episodes', { key: member, json: { idempotency_key: 'raw-2099', subject: S, kind: 'link', occurred_at: '2099-01-01T00:00:00Z', body: { link: { keys, same: true } } } });
    expect(ahead.status).toBe(400);
    expect((await ahead.json()).detail).toMatch(/a link holds from when it is said: occurred_at 2099-01-01T00:00:00.000Z is ahead of now/);
    const skewed = new Date(Date.now() + 60_000).toISOString();
    expect((await canon.request('/v1/episodes', { key: member, json: { idempotency_key: 'raw-skewed', subject: S, kind: 'link', occurred_at: skewed, body: { link: { keys, same: false } } } })).status).toBe(200);
  });

  it('takes a link out of force when a writer above it states one of its keys, and a rebuild agrees', async () => {
    const T = 'service:queue';
    const say = (key: string, k: string, text: string, at: string) =>
      canon.request('/v1/episodes?compile=wait', { key, json: { idempotency_key: k, subject: T, occurred_at: at, body: { text } } });
    await say(agent, 'q-1', 'The job queue holds 40 workers.', '2026-11-01T10:00:00Z');
    await say(agent, 'q-2', 'We run 40 workers on the job queue.', '2026-11-02T10:00:00Z');
    const list = async () => ((await (await canon.request(`/v1/subjects/${encodeURIComponent(T)}/memories`, { key: owner })).json()).memories as Array<{ id: string; predicate: string }>);
    const [a, b] = await list();
    const link = await canon.request('/v1/links', { key: member, json: { memories: [a!.id, b!.id], same: true, idempotency_key: 'member-joins-agents' } });
    expect(await link.json()).toMatchObject({ outcome: 'linked', in_force: true });
    expect(await list()).toHaveLength(1);
    expect((await say(owner, 'q-3', 'The job queue holds 60 workers.', '2026-11-03T10:00:00Z')).status).toBe(200);
    const split = await list();
    expect(split).toHaveLength(2);
    const principal = await canon.runtime.authenticate(owner);
    expect((await canon.runtime.verify(principal, T)).ok).toBe(true);
    const rebuilt = await canon.request('/v1/rebuild', { key: owner, json: { subject: T } });
    expect(rebuilt.status).toBe(200);
    expect((await list()).map((m) => m.id).sort()).toEqual(split.map((m) => m.id).sort());
  });
});
