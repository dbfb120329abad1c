import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';

// Standing first (design §4) holds for candidates too: an agent's wording of a fact an owner
// stated, with another value, cannot put the owner's fact in doubt. Had a link made them one
// memory, the agent's value would be overruled; so the owner's memory reads it as a candidate
// only, and the agent's as the possible contradiction it is.

let canon: TestCanon;
const keys: Record<string, string> = {};

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  keys['owner'] = (await canon.key('owner')).key;
  keys['agent'] = (await canon.key('agent')).key;
  keys['ann'] = (await canon.key('member', { user: 'ann' })).key;
  keys['bob'] = (await canon.key('member', { user: 'bob' })).key;
});
afterAll(() => canon.close());

async function say(who: string, subject: string, key: string, text: string) {
  const res = await canon.request('/v1/episodes?compile=wait', { key: keys[who]!, json: { idempotency_key: key, subject, body: { text } } });
  expect(res.status, await res.clone().text()).toBe(200);
}

type Memory = { id: string; predicate: string; needs_verification: boolean; current: Array<{ value: unknown; standing: number }>; candidates: Array<{ memory_id: string; kind: string }> };
async function memories(subject: string): Promise<Memory[]> {
  const res = await canon.request(`/v1/subjects/${encodeURIComponent(subject)}/memories`, { key: keys['owner']! });
  expect(res.status).toBe(200);
  return (await res.json()).memories;
}

describe('a candidate of lower standing', () => {
  it("leaves the owner's fact a fact: a candidate on its side, a possible contradiction on the agent's, and no POSSIBLE CONTRADICTION in the bundle", async () => {
    const subject = 'service:staging';
    await say('owner', subject, 'o-1', 'The staging deploy runs on Tuesday.');
    await say('agent', subject, 'a-1', 'Staging deploys now happen on Thursday.');
    const all = await memories(subject);
    expect(all).toHaveLength(2);
    const owners = all.find((m) => m.current[0]!.value === 'Tuesday')!;
    const agents = all.find((m) => m.current[0]!.value === 'Thursday')!;
    expect(owners.current[0]!.standing).toBeGreaterThan(agents.current[0]!.standing);
    expect(owners.candidates.map((c) => [c.memory_id, c.kind])).toEqual([[agents.id, 'candidate']]);
    expect(owners.needs_verification).toBe(false);
    expect(agents.candidates.map((c) => [c.memory_id, c.kind])).toEqual([[owners.id, 'possible_contradiction']]);
    expect(agents.needs_verification).toBe(true);
    // The memory's own page says the same.
    const detail = await (await canon.request(`/v1/memories/${owners.id}`, { key: keys['owner']! })).json();
    expect(detail.view.needs_verification).toBe(false);

    const bundle = await (await canon.request('/v1/context', { key: keys['agent']!, json: { subject, task: 'when does the staging deploy run', max_tokens: 2000 } })).json();
    expect(bundle.possible_contradictions).toEqual([]);
    expect(bundle.text).not.toContain('POSSIBLE CONTRADICTION');
    const lines = bundle.text.split('\n') as string[];
    expect(lines.some((l) => l.includes('"Tuesday"') && !l.includes('Thursday'))).toBe(true);
    const agentLine = lines.find((l) => l.includes('"Thursday"'))!;
    expect(agentLine).toContain('"Tuesday"');
    expect(agentLine).toMatch(/higher standing.*overruled/);
  });

  it('between equals is still a possible contradiction on both sides, stated as one', async () => {
    const subject = 'service:staging-equals';
    await say('ann', subject, 'e-1', 'The staging deploy runs on Tuesday.');
    await say('bob', subject, 'e-2', 'Staging deploys now happen on Thursday.');
    const all = await memories(subject);
    expect(all.map((m) => [m.needs_verification, m.candidates.map((c) => c.kind)])).toEqual([
      [true, ['possible_contradiction']],
      [true, ['possible_contradiction']],
    ]);
    const bundle = await (await canon.request('/v1/context', { key: keys['ann']!, json: { subject, task: 'when does the staging deploy run', max_tokens: 2000 } })).json();
    expect(bundle.possible_contradictions).toHaveLength(1);
    expect(bundle.text).toContain('POSSIBLE CONTRADICTION');
  });
});
