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
    const res = await canon.request('/v1/episodes?compile=wait', { key: member, json: { idempotency_key: k, subject: SUBJECT, occurred_at: at, body: { text } } });
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
    const proposal = await canon.request(`/v1/memories/${other}/proposals`, {
      key: owner,
      json: { expected_revision: read.revision, idempotency_key: 'through-the-linked-id', value: '99.99%', reason: 'raised' },
    });
    expect(proposal.status, await proposal.clone().text()).toBe(200);
    expect((await proposal.json()).memory).toMatchObject({ id: merged!.id, view: { current: [{ value: '99.99%' }] } });
    // The owner's own unlink is in force: the pair is two memories again.
    const undone = await canon.request('/v1/links', { key: owner, json: { ...unlink, idempotency_key: 'owner-unlink' } });
    expect(await undone.json()).toMatchObject({ outcome: 'unlinked', in_force: true });
    expect(await memories()).toHaveLength(2);
  });
});
