import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '@canon/core';
import { actorName, deploymentStory, freezeResolution, startTestCanon, storyActors, type StoryStep, type TestCanon } from '@canon/testing';

let canon: TestCanon;
const keys = new Map<string, string>();
beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  for (const role of ['agent', 'member', 'maintainer', 'owner'] as const) keys.set(role, (await canon.key(role)).key);
  for (const a of storyActors([...deploymentStory(), freezeResolution()])) keys.set(actorName(a), (await canon.key(a.role, { user: a.user })).key);
});
afterAll(() => canon.close());

async function post(step: StoryStep) {
  const res = await canon.request('/v1/episodes?compile=wait', { key: keys.get(actorName(step))!, json: step.episode });
  expect(res.status).toBe(200);
  return res.json();
}

async function memories(asOf: string) {
  const res = await canon.request(`/v1/subjects/service%3Abilling/memories?as_of=${asOf}`, { key: keys.get('owner')! });
  expect(res.status).toBe(200);
  const body = await res.json();
  const by = (predicate: string, env?: string) =>
    body.memories.find((m: { predicate: string; qualifiers: Record<string, string> }) => m.predicate === predicate && m.qualifiers['env'] === env);
  return { body, by };
}

describe('the deployment-window story through the HTTP API', () => {
  beforeAll(async () => {
    for (const step of deploymentStory()) await post(step);
  });

  it('keeps the same schedule from two agents as one value with its evidence and the member’s condition', async () => {
    const { by } = await memories('2024-05-04T00:00:00Z');
    const staging = by('deploy day', 'staging');
    expect(staging.status).toBe('current');
    expect(staging.current).toHaveLength(1);
    expect(staging.current[0]).toMatchObject({ value: 'Tuesday', conditions: ['only after the integration tests pass'] });
    expect(staging.current[0].evidence_count).toBeGreaterThanOrEqual(4);
  });

  it('shows Thursday as scheduled before its date and current after, Tuesday superseded by change', async () => {
    const before = (await memories('2024-05-07T00:00:00Z')).by('deploy day', 'staging');
    expect(before.current.map((v: { value: string }) => v.value)).toEqual(['Tuesday']);
    expect(before.scheduled).toEqual([{ value: 'Thursday', effective_from: '2024-05-13T00:00:00.000Z', conditions: [] }]);
    const after = (await memories('2024-05-14T00:00:00Z')).by('deploy day', 'staging');
    expect(after.current.map((v: { value: string }) => v.value)).toEqual(['Thursday']);
    const detail = await (await canon.request(`/v1/memories/${after.id}`, { key: keys.get('owner')! })).json();
    expect(detail.timeline.values.map((v: { value: string; status: string; superseded_by: string | null }) => [v.value, v.status, v.superseded_by])).toEqual([
      ['Tuesday', 'superseded', 'change'],
      ['Thursday', 'in_force', null],
    ]);
  });

  it('files the late, explicitly dated transcript in history without reversing the change', async () => {
    const early = (await memories('2024-04-25T00:00:00Z')).by('deploy day', 'staging');
    expect(early.current.map((v: { value: string }) => v.value)).toEqual(['Tuesday']);
    const late = (await memories('2024-05-20T00:00:00Z')).by('deploy day', 'staging');
    expect(late.current.map((v: { value: string }) => v.value)).toEqual(['Thursday']);
  });

  it('keeps production as its own fact key', async () => {
    const { by } = await memories('2024-05-20T00:00:00Z');
    expect(by('deploy day', 'production').current.map((v: { value: string }) => v.value)).toEqual(['Friday']);
    expect(by('deploy day', 'production').id).not.toBe(by('deploy day', 'staging').id);
  });

  it('keeps an agent’s guess against a maintainer’s value as overruled evidence', async () => {
    const team = (await memories('2024-05-20T00:00:00Z')).by('owning team');
    expect(team.current.map((v: { value: string }) => v.value)).toEqual(['payments']);
    const detail = await (await canon.request(`/v1/memories/${team.id}`, { key: keys.get('owner')! })).json();
    expect(detail.timeline.values.map((v: { value: string; status: string }) => [v.value, v.status])).toEqual([
      ['payments', 'in_force'],
      ['billing-core', 'overruled'],
    ]);
    expect(detail.timeline.decisions.find((d: { claim: { idempotency_key: string } }) => d.claim.idempotency_key === 'o2').kind).toBe('overruled');
  });

  it('shows the agents’ disagreement once with both sides, then a maintainer’s resolution ends it', async () => {
    const conflicted = (await memories('2024-05-03T00:00:00Z')).by('release freeze day');
    expect(conflicted.status).toBe('conflicted');
    expect(conflicted.needs_verification).toBe(true);
    expect(conflicted.conflict.map((s: { value: string; sources: Array<{ source: string }> }) => [s.value, s.sources[0]!.source])).toEqual([
      ['Wednesday', 'api'],
      ['Friday', 'mcp'],
    ]);
    const subjects = await (await canon.request('/v1/subjects', { key: keys.get('owner')! })).json();
    expect(subjects.subjects).toEqual([{ subject: 'service:billing', episodes: 11, memories: 4, pending: 0, open_conflicts: 1 }]);

    const resolved = await post(freezeResolution());
    expect(resolved.compiled[0].memories_updated).toBe(1);
    const after = (await memories('2024-05-03T00:00:00Z')).by('release freeze day');
    expect(after.status).toBe('current');
    expect(after.current.map((v: { value: string }) => v.value)).toEqual(['Friday']);
    const subjectsAfter = await (await canon.request('/v1/subjects', { key: keys.get('owner')! })).json();
    expect(subjectsAfter.subjects[0].open_conflicts).toBe(0);
  });

  it('returns zeros and the same state hash when compiled again, and rebuild agrees', async () => {
    const owner = keys.get('owner')!;
    const once = await (await canon.request('/v1/compile', { key: owner, json: { subject: 'service:billing' } })).json();
    expect(once).toMatchObject({ episodes_processed: 0, memories_created: 0, memories_updated: 0, memories_superseded: 0, conflicts_opened: 0, tombstoned: 0 });
    const rebuilt = await (await canon.request('/v1/rebuild', { key: owner, json: { subject: 'service:billing' } })).json();
    expect(rebuilt.state_hash).toBe(once.state_hash);
    expect(rebuilt.memories_created).toBe(4);
    const again = await (await canon.request('/v1/compile', { key: owner, json: { subject: 'service:billing' } })).json();
    expect(again).toMatchObject({ episodes_processed: 0, memories_created: 0, state_hash: once.state_hash });
  });

  it('sends an ETag with a memory and 404 for an unknown one', async () => {
    const { by } = await memories('2024-05-20T00:00:00Z');
    const res = await canon.request(`/v1/memories/${by('owning team').id}`, { key: keys.get('agent')! });
    expect(res.headers.get('etag')).toBe(`"${by('owning team').etag}"`);
    const missing = await canon.request('/v1/memories/nope', { key: keys.get('agent')! });
    expect(missing.status).toBe(404);
    expect((await missing.json()).type).toBe('urn:canon:problem:not_found');
    expect((await canon.request('/v1/subjects/service%3Abilling/memories?as_of=tuesday', { key: keys.get('agent')! })).status).toBe(400);
  });
});

describe('a correction in words that names the value it replaces', () => {
  it('"Correction: …Thursday, not Tuesday." supersedes Tuesday — not a second fact holding both days', async () => {
    const subject = 'team:deploys';
    const say = async (key: string, text: string) => {
      const res = await canon.request('/v1/episodes?compile=wait', { key: keys.get('member')!, json: { idempotency_key: key, subject, body: { text } } });
      expect(res.status, await res.clone().text()).toBe(200);
      return res.json();
    };
    await say('dp-1', 'The staging deploy runs on Tuesday.');
    const corrected = await say('dp-2', 'Correction: the staging deploy runs on Thursday, not Tuesday.');
    expect(corrected.items[0].decisions.map((d: { kind: string }) => d.kind)).toEqual(['corrects']);
    const { memories } = await (await canon.request(`/v1/subjects/${encodeURIComponent(subject)}/memories`, { key: keys.get('owner')! })).json();
    expect(memories).toHaveLength(1);
    expect(memories[0].status).toBe('current');
    expect(memories[0].current.map((v: { value: unknown }) => v.value)).toEqual(['Thursday']);
    const detail = await (await canon.request(`/v1/memories/${memories[0].id}`, { key: keys.get('owner')! })).json();
    expect(JSON.stringify(detail)).toContain('Tuesday');
  });
});
