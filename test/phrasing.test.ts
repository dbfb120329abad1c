import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';

// Free text as agents write it, through POST /v1/episodes, read back as recall shows it: the
// phrasings an outside review found giving a wrong value, a silent contradiction or two facts
// merged into one.

let canon: TestCanon;
let alice: string;
let bob: string;
let owner: string;

interface Memory {
  id: string;
  predicate: string;
  status: string;
  current: Array<{ value: unknown }>;
  candidates: Array<{ kind: string; memory_id: string }>;
}

async function say(key: string, subject: string, id: string, at: string, text: string): Promise<void> {
  const res = await canon.request('/v1/episodes?compile=wait', { key, json: { idempotency_key: `${subject}:${id}`, subject, occurred_at: at, body: { text } } });
  expect(res.status, await res.clone().text()).toBe(200);
}

async function memories(subject: string): Promise<Memory[]> {
  const res = await canon.request(`/v1/subjects/${encodeURIComponent(subject)}/memories`, { key: owner });
  expect(res.status).toBe(200);
  return (await res.json()).memories;
}

const T1 = '2026-11-01T10:00:00Z';
const T3 = '2026-11-03T10:00:00Z';

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  owner = (await canon.key('owner')).key;
  alice = (await canon.key('agent', { user: 'alice' })).key;
  bob = (await canon.key('agent', { user: 'bob' })).key;
}, 60_000);
afterAll(() => canon?.close());

describe('free text as agents write it', () => {
  it('keeps two tiers and two runtimes apart: a name said first is not a value', async () => {
    await say(alice, 't:tier', 'a', T1, 'Tier 1 customers get a 4 hour response time.');
    await say(bob, 't:tier', 'b', T3, 'Tier 2 customers get a 24 hour response time.');
    await say(alice, 't:eol', 'a', T1, 'Node 18 reaches end of life on 2025-04-30.');
    await say(alice, 't:eol', 'b', T3, 'Node 20 reaches end of life on 2026-04-30.');
    for (const subject of ['t:tier', 't:eol']) {
      const ms = await memories(subject);
      expect(ms, subject).toHaveLength(2);
      expect(ms.every((m) => m.status === 'current'), subject).toBe(true);
    }
    expect((await memories('t:tier')).map((m) => m.current[0]!.value).sort()).toEqual(['24 hours', '4 hours']);
  });

  it('reads a region, an address and a sum whole, and a change of one as a change', async () => {
    await say(alice, 't:reg', 'a', T1, 'Deploy region: us-east-1');
    await say(alice, 't:reg', 'b', T3, 'Deploy region: us-west-2');
    const [region] = await memories('t:reg');
    expect(region).toMatchObject({ predicate: 'Deploy region: {code}', status: 'current' });
    expect(region!.current.map((v) => v.value)).toEqual(['us-west-2']);
    await say(alice, 't:em', 'a', T1, 'The support email is support@example.com.');
    await say(alice, 't:em', 'b', T3, 'The support email is help@example.com.');
    expect((await memories('t:em')).map((m) => m.current.map((v) => v.value))).toEqual([['help@example.com']]);
    await say(alice, 't:mo', 'a', T1, 'The annual contract is worth $1.2M.');
    expect((await memories('t:mo')).map((m) => m.current.map((v) => v.value))).toEqual([['$1.2M']]);
  });

  it('never leaves a change told "from A to B" beside the fact it changes as two silent facts', async () => {
    await say(alice, 't:mv', 'a', T1, 'The staging deploy runs on Tuesday.');
    await say(bob, 't:mv', 'b', T3, 'We moved the staging deploy from Tuesday to Thursday.');
    const ms = await memories('t:mv');
    const moved = ms.find((m) => m.predicate === 'We moved the staging deploy to {weekday}')!;
    expect(moved.current.map((v) => v.value)).toEqual(['Thursday']);
    const tuesday = ms.find((m) => m.predicate === 'The staging deploy runs on {weekday}')!;
    expect(moved.candidates.map((c) => [c.memory_id, c.kind])).toEqual([[tuesday.id, 'possible_contradiction']]);
  });

  it('reads "Tuesday → Thursday" as a change of the fact it names', async () => {
    await say(alice, 't:ar', 'a', T1, 'Deploy day: Tuesday.');
    await say(alice, 't:ar', 'b', T3, 'Deploy day: Tuesday → Thursday.');
    const ms = await memories('t:ar');
    expect(ms).toHaveLength(1);
    expect(ms[0]!.current.map((v) => v.value)).toEqual(['Thursday']);
  });

  it('reads 30s and 30 seconds as one value, and a contrast naming the old value as a correction', async () => {
    await say(alice, 't:to', 'a', T1, 'The API timeout is 30 seconds.');
    await say(bob, 't:to', 'b', T3, 'The API timeout is 30s.');
    const [timeout, ...others] = await memories('t:to');
    expect(others).toEqual([]);
    expect(timeout).toMatchObject({ status: 'current' });
    expect(timeout!.current.map((v) => v.value)).toEqual(['30 seconds']);

    await say(alice, 't:ct', 'a', T1, 'The staging deploy runs on Tuesday.');
    await say(bob, 't:ct', 'b', T3, 'The staging deploy runs on Thursday, not Tuesday.');
    const [deploy] = await memories('t:ct');
    expect(deploy).toMatchObject({ status: 'current' });
    expect(deploy!.current.map((v) => v.value)).toEqual(['Thursday']);
  });

  it('reads two statements joined in one sentence as two facts, so a later change of one changes it', async () => {
    await say(alice, 't:mf', 'a', T1, 'The read timeout is 30 seconds and the write timeout is 60 seconds.');
    await say(alice, 't:mf', 'b', T3, 'The write timeout is 90 seconds.');
    const ms = await memories('t:mf');
    expect(Object.fromEntries(ms.map((m) => [m.predicate, m.current.map((v) => v.value)]))).toEqual({
      'The read timeout is {quantity}': ['30 seconds'],
      'The write timeout is {quantity}': ['90 seconds'],
    });
  });

  it('reads "weekly" then "daily" as one fact with two values, not two notes', async () => {
    await say(alice, 't:fq', 'a', T1, 'Backups run weekly.');
    await say(bob, 't:fq', 'b', T3, 'Backups run daily.');
    const ms = await memories('t:fq');
    expect(ms).toHaveLength(1);
    expect(ms[0]).toMatchObject({ predicate: 'Backups run {frequency}', status: 'conflicted' });
  });

  it('gives a word with a zero-width space in it no fact of its own', async () => {
    await say(alice, 't:zw', 'a', T1, 'The nightly backup runs on Monday.');
    await say(alice, 't:zw', 'b', T3, 'The night\u200bly backup runs on Friday.');
    const ms = await memories('t:zw');
    expect(ms).toHaveLength(1);
    expect(ms[0]!.current.map((v) => v.value)).toEqual(['Friday']);
  });

  it('lowers a hedge that holds a number, as "I think" is lowered', async () => {
    await say(owner, 't:hg', 'a', T1, 'The staging deploy runs on Tuesday.');
    await say(bob, 't:hg', 'b', T3, 'Not 100% sure but I believe the staging deploy runs on Wednesday.');
    const ms = await memories('t:hg');
    expect(ms).toHaveLength(1);
    expect(ms[0]!.current.map((v) => v.value)).toEqual(['Tuesday']);
  });

  it('makes a change said later the same day current, whether dated "today" or said with the value it replaced', async () => {
    const morning = '2026-11-05T10:00:00Z';
    const afternoon = '2026-11-05T15:00:00Z';
    for (const [subject, text] of [
      ['t:td1', 'The staging deploy runs on Thursday (changed today).'],
      ['t:td2', 'Effective today, the staging deploy runs on Thursday.'],
      ['t:td3', 'The staging deploy runs on Thursday (previously Tuesday).'],
    ] as const) {
      await say(alice, subject, 'a', morning, 'The staging deploy runs on Tuesday.');
      await say(alice, subject, 'b', afternoon, text);
      const ms = await memories(subject);
      expect(ms, text).toHaveLength(1);
      expect(ms[0]!.current.map((v) => v.value), text).toEqual(['Thursday']);
      // What was true that morning is still Tuesday.
      const then = await canon.request(`/v1/subjects/${encodeURIComponent(subject)}/memories?as_of=2026-11-05T12:00:00Z`, { key: owner });
      expect((await then.json()).memories[0].current.map((v: { value: unknown }) => v.value), text).toEqual(['Tuesday']);
    }
  });
});
