import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal, PreviewResult } from '@canon/runtime';
import { runCanon, startTestCanon, type TestCanon } from '@canon/testing';

// Preview a change before it happens (issue 17): fold the affected subjects under proposed
// policies from the log alone and say which memories would change and how — writing nothing —
// so a team can see in CI that "this policy change touches 14 memories" before making it.

let canon: TestCanon;
let owner: Principal;
let ownerKey: string;
let alice: Principal;
let bob: Principal;
let home: string;

const DEPLOY = 'service:deploy';
const OTHER = 'service:other';
// `deploy day` as state that changes: the later statement of equal standing is a change, not a dispute.
const SUPERSEDE = { predicates: { 'deploy day': { cardinality: 'one', mode: 'supersede', min_role: 'reader' } } };

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  const o = await canon.key('owner');
  owner = o.principal;
  ownerKey = o.key;
  alice = (await canon.key('maintainer', { user: 'alice' })).principal;
  bob = (await canon.key('maintainer', { user: 'bob' })).principal;
  const member = (await canon.key('member', { user: 'carol' })).principal;
  const member2 = (await canon.key('member', { user: 'dave' })).principal;
  const say = (p: Principal, key: string, subject: string, predicate: string, value: string, at: string, scope: 'workspace' | 'personal' = 'workspace') =>
    canon.runtime.ingest(p, [{ idempotency_key: key, subject, scope, occurred_at: at, body: { claims: [{ predicate, value }] } }], { compile: 'wait' });
  await say(member, 'd-1', DEPLOY, 'deploy day', 'Tuesday', '2026-11-01T10:00:00Z');
  await say(member2, 'd-2', DEPLOY, 'deploy day', 'Friday', '2026-11-05T10:00:00Z');
  await say(member, 'd-3', DEPLOY, 'region', 'eu-west-1', '2026-11-01T10:00:00Z');
  await say(member, 'o-1', OTHER, 'owner team', 'payments', '2026-11-01T10:00:00Z');
  // Alice's own note of the same predicate, and Dave's disagreeing one: a dispute of her own.
  await say(alice, 'a-1', 'note:alice', 'deploy day', 'Monday', '2026-11-01T10:00:00Z', 'personal');
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-preview-'));
});
afterAll(async () => {
  await canon.close();
  fs.rmSync(home, { recursive: true, force: true });
});

async function snapshot(p: Principal) {
  return Promise.all([DEPLOY, OTHER].map(async (s) => (await canon.runtime.memories(p, s)).memories));
}

describe('preview', () => {
  it('says which memories a policy change would change, and how, writing nothing', async () => {
    const before = await snapshot(owner);
    const policiesBefore = await canon.runtime.policies(owner);
    const out: PreviewResult = await canon.runtime.preview(owner, { policies: SUPERSEDE });
    // Only subjects holding `deploy day` are folded; the one this key may see changes.
    expect(out.changed).toBe(1);
    expect(out.changes).toEqual([
      expect.objectContaining({
        subject: DEPLOY,
        predicate: 'deploy day',
        change: 'dispute_closed',
        before: { status: 'conflicted', values: expect.arrayContaining(['Tuesday', 'Friday']) },
        after: { status: 'current', values: ['Friday'] },
      }),
    ]);
    expect(out.fingerprint.now).toBe(policiesBefore.fingerprint);
    expect(out.fingerprint.proposed).not.toBe(out.fingerprint.now);
    // Nothing was written: the same memories, the same policies, verify still passes.
    expect(await snapshot(owner)).toEqual(before);
    expect((await canon.runtime.policies(owner)).fingerprint).toBe(policiesBefore.fingerprint);
    expect((await canon.runtime.verify(owner, DEPLOY)).ok).toBe(true);
  });

  it('is what the change then does', async () => {
    const previewed = await canon.runtime.preview(owner, { policies: SUPERSEDE });
    await canon.runtime.setPolicies(owner, SUPERSEDE);
    const deploy = (await canon.runtime.memories(owner, DEPLOY)).memories.find((m) => m.predicate === 'deploy day')!;
    expect({ status: deploy.status, values: deploy.current.map((v) => v.value) }).toEqual(previewed.changes[0]!.after);
    // Once made, the same proposal changes nothing.
    expect((await canon.runtime.preview(owner, { policies: SUPERSEDE })).changed).toBe(0);
    await canon.runtime.setPolicies(owner, {});
  });

  it('without a proposal, folds every subject under this build’s compiler: nothing, when all is compiled by it', async () => {
    const out = await canon.runtime.preview(owner);
    expect(out).toMatchObject({ changed: 0, changes: [], truncated: false });
    expect(out.subjects).toBe(2);
  });

  it("reports another user's personal memories to nobody else", async () => {
    const theirs = await canon.runtime.preview(bob, { policies: { predicates: { 'deploy day': { cardinality: 'many', mode: 'flag', min_role: 'reader' } } } });
    const hers = await canon.runtime.preview(alice, { policies: { predicates: { 'deploy day': { cardinality: 'many', mode: 'flag', min_role: 'reader' } } } });
    expect(theirs.changes.map((c) => c.subject)).toEqual([DEPLOY]);
    expect(hers.changes.map((c) => c.subject).sort()).toEqual([DEPLOY, 'note:alice'].sort());
    expect(theirs.subjects).toBe(1);
  });

  it("counts no subject for another user's personal memory of a predicate, where the subject is one the key sees", async () => {
    // Alice's personal memory of a predicate no one else uses, on a subject everyone sees: folding
    // it counted the subject, which told Bob that someone's private memories used that predicate.
    await canon.runtime.ingest(alice, [{ idempotency_key: 'a-zz', subject: DEPLOY, scope: 'personal', occurred_at: '2026-11-02T10:00:00Z', body: { claims: [{ predicate: 'zzp2', value: 'x' }] } }], { compile: 'wait' });
    const proposal = { policies: { predicates: { zzp2: { cardinality: 'many' as const, mode: 'flag' as const, min_role: 'reader' as const } } } };
    expect(await canon.runtime.preview(bob, proposal)).toMatchObject({ subjects: 0, changed: 0, changes: [] });
    const unused = { policies: { predicates: { 'never used': { cardinality: 'many' as const, mode: 'flag' as const, min_role: 'reader' as const } } } };
    expect((await canon.runtime.preview(bob, unused)).subjects).toBe(0);
    expect((await canon.runtime.preview(alice, proposal)).subjects).toBe(1);
  });

  it('refuses a reader, a member and invalid policies', async () => {
    for (const role of ['reader', 'member', 'agent'] as const) {
      const res = await canon.request('/v1/preview', { key: (await canon.key(role)).key, json: { policies: SUPERSEDE } });
      expect(res.status, role).toBe(403);
    }
    const bad = await canon.request('/v1/preview', { key: ownerKey, json: { policies: { predicates: { 'deploy day': { cardinality: 'some' } } } } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    expect(await bad.text()).toContain('policies.predicates');
    const extra = await canon.request('/v1/preview', { key: ownerKey, json: { policies: {}, write: true } });
    expect(extra.status).toBe(400);
  });

  it('exits 1 from `canon preview` when anything would change, 0 when nothing would', async () => {
    const file = path.join(home, 'policies.json');
    fs.writeFileSync(file, JSON.stringify(SUPERSEDE));
    const env = { ...process.env, DATABASE_URL: canon.db.url, CANON_HOME: home, CANON_API_KEY: ownerKey };
    const changing = await runCanon(env, 'preview', '--policies', file);
    expect(changing.code, changing.stderr).toBe(1);
    expect(changing.stdout).toContain('dispute_closed');
    expect(changing.stdout).toContain('1 memories would change');
    const json = await runCanon(env, 'preview', '--policies', file, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ changed: 1 });
    const nothing = await runCanon(env, 'preview');
    expect(nothing.code, nothing.stderr).toBe(0);
    expect(nothing.stdout).toContain('nothing would change');
  });
});
