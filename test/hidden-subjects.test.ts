import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUES } from '@canon/runtime/internals';
import { startTestCanon, until, type TestCanon } from '@canon/testing';

// Another user's personal subject, named by a key that may not see it, answers every compile,
// rebuild and verify exactly as a name no one wrote: a 404 for it and a 200 for an unknown name
// told anyone guessing names which personal subjects exist.

let canon: TestCanon;
let ann: string;
let bob: string;
const DIARY = 'diary:ann';
const NOBODY = 'diary:nobody';

beforeAll(async () => {
  canon = await startTestCanon({ queue: true }, { CANON_COMPILE_DEBOUNCE_SECONDS: '3600' });
  ann = (await canon.key('member', { user: 'ann' })).key;
  bob = (await canon.key('member', { user: 'bob' })).key;
  const res = await canon.request('/v1/episodes?compile=wait', {
    key: ann,
    json: { idempotency_key: 'mood-1', subject: DIARY, scope: 'personal', kind: 'claim', body: { claims: [{ predicate: 'mood', value: 'tired' }] } },
  });
  expect(res.status).toBe(200);
});
afterAll(() => canon?.close());

/** The answer with the subject's name taken out: what is left must not tell the two apart. */
const unnamed = (text: string, name: string) => text.replaceAll(name, '<subject>');

describe('a personal subject named by another key', () => {
  it('compiles, rebuilds and verifies as a name no one wrote, in the request', async () => {
    for (const [path, body] of [
      ['/v1/compile', (s: string) => ({ subject: s })],
      ['/v1/compile', (s: string) => ({ subjects: [s] })],
      ['/v1/rebuild', (s: string) => ({ subject: s })],
      ['/v1/verify', (s: string) => ({ subject: s })],
    ] as const) {
      const hidden = await canon.request(path, { key: bob, json: body(DIARY) });
      const unknown = await canon.request(path, { key: bob, json: body(NOBODY) });
      expect(hidden.status, path).toBe(200);
      expect(unknown.status, path).toBe(200);
      expect(unnamed(await hidden.text(), DIARY), path).toBe(unnamed(await unknown.text(), NOBODY));
    }
    // ann's own view is untouched: her subject is there, compiled, verified.
    const own = await (await canon.request('/v1/verify', { key: ann, json: { subject: DIARY } })).json();
    expect(own.ok).toBe(true);
    expect(own.rebuilt_state_hash).not.toBe('0'.repeat(64));
  });

  it('compiles as a name no one wrote in a job, and the job answers the key that asked', async () => {
    const results: string[] = [];
    for (const name of [DIARY, NOBODY]) {
      const accepted = await canon.request('/v1/compile', { key: bob, json: { subjects: [name, 'shared:x'], async: true } });
      expect(accepted.status).toBe(202);
      const { job_id } = await accepted.json();
      const job = await until('the job', async () => {
        const j = await (await canon.request(`/v1/jobs/${job_id}`, { key: bob })).json();
        return j.state === 'completed' ? j : null;
      });
      results.push(unnamed(JSON.stringify(job.result), name));
    }
    expect(results[0]).toBe(results[1]);
    expect(JSON.parse(results[0]!).totals.episodes_processed).toBe(0);
  });

  it('keeps a job that compiled ann\'s subject for ann from every other key', async () => {
    const accepted = await canon.request('/v1/compile', { key: ann, json: { subject: DIARY, async: true } });
    const { job_id } = await accepted.json();
    await until('the job', async () => ((await (await canon.request(`/v1/jobs/${job_id}`, { key: ann })).json()).state === 'completed' ? true : null));
    const seen = await canon.request(`/v1/jobs/${job_id}`, { key: bob });
    expect(seen.status).toBe(404);
    expect(await seen.text()).not.toContain(DIARY);
  });

  it('is not named in the dead letters another key lists', async () => {
    // As a many-subject job sets a failed subject aside.
    await canon.runtime.boss!.send(QUEUES.compileDead, { workspace_id: 'default', subject: DIARY, error: 'Error: boom' });
    await canon.runtime.boss!.send(QUEUES.compileDead, { workspace_id: 'default', subject: 'shared:broken', error: 'Error: boom' });
    const list = async (key: string) => ((await (await canon.request('/v1/jobs/dead', { key })).json()).jobs as Array<{ subject: string }>).map((j) => j.subject).sort();
    expect(await list(bob)).toEqual(['shared:broken']);
    expect(await list(ann)).toEqual([DIARY, 'shared:broken'].sort());
  });
});
