// The remaining rows of design §4's table, as given/when/then cases.
import { describe, expect, it } from 'vitest';
import { fold } from './fold.js';
import type { Policy } from './policy.js';
import { DEFAULT_POLICY } from './policy.js';
import { knownAt, stateHash, timelineEtag } from './state-hash.js';
import { claim, ref, versionOf } from './test-support.js';
import { view } from './view.js';

const flag: Policy = DEFAULT_POLICY;
const supersede: Policy = { cardinality: 'one', mode: 'supersede', min_role: 'agent' };
const members: Policy = { cardinality: 'many', mode: 'supersede', min_role: 'member' };
const values = (t: ReturnType<typeof fold>) => t.values.map((v) => [v.value, v.status]);

describe('one-value keys', () => {
  it('supersede policy: a later claim of sufficient standing is a change without change phrasing', () => {
    const t = fold([
      claim({ key: 'a', value: 'green', at: '2024-05-01T00:00:00Z' }),
      claim({ key: 'b', value: 'red', at: '2024-05-02T00:00:00Z' }),
    ], supersede, []);
    expect(values(t)).toEqual([['green', 'superseded'], ['red', 'in_force']]);
    expect(t.values[0]?.valid_to).toBe('2024-05-02T00:00:00.000Z');
  });

  it("a newer version of a lineage is one writer's: a peer naming another's lineage disputes, it does not replace", () => {
    // The default lineage of every episode (`api:<key>`) is in the log for any role to read.
    const ann = claim({ key: 'a1', author: 'ann', value: 'Tuesday', at: '2024-05-01T00:00:00Z' });
    const bob = claim({ key: 'b1', author: 'bob', lineage: ann.lineage, value: 'Friday', at: '2024-05-02T00:00:00Z' });
    const peers = fold([ann, bob], flag, []);
    expect(peers.status_hint).toBe('conflicted');
    expect(values(peers)).toEqual([['Tuesday', 'disputed'], ['Friday', 'disputed']]);
    // The writer's own newer version is a change.
    const own = fold([ann, claim({ key: 'a2', author: 'ann', lineage: ann.lineage, value: 'Friday', at: '2024-05-02T00:00:00Z' })], flag, []);
    expect(values(own)).toEqual([['Tuesday', 'superseded'], ['Friday', 'in_force']]);
    expect(own.decisions.at(-1)?.reason).toContain('newer version of lineage');
    // A connector's lineage is its source's, whichever of its keys wrote the version.
    const first = claim({ key: 'g1', source: 'github', role: 'connector', author: 'key:k1', lineage: 'github:acme/api#12', value: 'open', at: '2024-05-01T00:00:00Z' });
    const rotated = claim({ key: 'g2', source: 'github', role: 'connector', author: 'key:k2', lineage: 'github:acme/api#12', value: 'closed', at: '2024-05-02T00:00:00Z' });
    expect(values(fold([first, rotated], flag, []))).toEqual([['open', 'superseded'], ['closed', 'in_force']]);
    // Rows from before keys were recorded name no author: one source's versions stay one writer's.
    const legacy = (key: string, value: string, at: string) => claim({ key, author: null, lineage: 'doc:runbook', value, at });
    expect(values(fold([legacy('l1', 'Tuesday', '2024-05-01T00:00:00Z'), legacy('l2', 'Friday', '2024-05-02T00:00:00Z')], flag, []))).toEqual([['Tuesday', 'superseded'], ['Friday', 'in_force']]);
  });

  it("what a peer's snapshot version of another writer's lineage leaves out ends none of that writer's values", () => {
    const doc = { lineage: 'doc:runbook', snapshot: true, role: 'member' as const };
    const ann = claim({ ...doc, key: 'a1', author: 'ann', value: 'Tuesday', at: '2024-05-01T00:00:00Z' });
    // Bob's version of the same lineage states another key only.
    const bob = claim({ ...doc, key: 'b1', author: 'bob', predicate: 'owner', value: 'bob', at: '2024-05-02T00:00:00Z' });
    const peer = fold([ann], flag, [versionOf(ann), versionOf(bob, [bob.key])]);
    expect(values(peer)).toEqual([['Tuesday', 'in_force']]);
    expect(peer.lineage_events).toEqual([]);
    // Ann's own newer version that no longer states it ends it.
    const own = claim({ ...doc, key: 'a2', author: 'ann', predicate: 'owner', value: 'ann', at: '2024-05-03T00:00:00Z' });
    const ended = fold([ann], flag, [versionOf(ann), versionOf(bob, [bob.key]), versionOf(own, [own.key])]);
    expect(values(ended)).toEqual([['Tuesday', 'retracted']]);
    expect(ended.lineage_events).toMatchObject([{ idempotency_key: 'a2', effect: 'ended' }]);
  });

  it("a peer's newer version of another writer's lineage does not withdraw that writer's scheduled value", () => {
    const ann = claim({ key: 'a1', author: 'ann', lineage: 'doc:plan', value: 'Thursday', at: '2024-05-01T00:00:00Z', effective: '2024-06-01T00:00:00Z' });
    const bob = claim({ key: 'b1', author: 'bob', lineage: 'doc:plan', predicate: 'owner', value: 'bob', at: '2024-05-02T00:00:00Z', snapshot: true });
    const t = fold([ann], flag, [versionOf(bob, [bob.key])]);
    expect(values(t)).toEqual([['Thursday', 'in_force']]);
    expect(t.decisions[0]?.reason ?? '').not.toContain('withdrawn');
    // Ann's own newer version before that time withdraws it.
    const own = claim({ key: 'a2', author: 'ann', lineage: 'doc:plan', predicate: 'owner', value: 'ann', at: '2024-05-02T00:00:00Z', snapshot: true });
    const withdrawn = fold([ann], flag, [versionOf(own, [own.key])]);
    expect(withdrawn.decisions[0]?.reason).toContain('withdrawn');
  });

  it('flag policy: the same later claim disputes instead', () => {
    const t = fold([
      claim({ key: 'a', value: 'green', at: '2024-05-01T00:00:00Z' }),
      claim({ key: 'b', value: 'red', at: '2024-05-02T00:00:00Z' }),
    ], flag, []);
    expect(t.status_hint).toBe('conflicted');
  });

  it('retraction ends the interval; with nothing left the memory is tombstoned', () => {
    const t = fold([
      claim({ key: 'a', value: 'green', at: '2024-05-01T00:00:00Z' }),
      claim({ key: 'b', op: 'retract', at: '2024-05-03T00:00:00Z' }),
    ], flag, []);
    expect(values(t)).toEqual([['green', 'retracted']]);
    expect(t.status_hint).toBe('tombstoned');
    expect(view(t, '2024-05-02T00:00:00Z').status).toBe('current');
    expect(view(t, '2024-05-04T00:00:00Z').status).toBe('tombstoned');
    expect(view(t, '2024-04-01T00:00:00Z').status).toBe('scheduled_only');
  });

  it('a retraction below the value’s standing is overruled', () => {
    const t = fold([
      claim({ key: 'a', role: 'owner', value: 'green', at: '2024-05-01T00:00:00Z' }),
      claim({ key: 'b', op: 'retract', at: '2024-05-03T00:00:00Z' }),
    ], flag, []);
    expect(values(t)).toEqual([['green', 'in_force']]);
    expect(t.decisions[1]?.kind).toBe('overruled');
  });

  it('a claim below the policy minimum is overruled even on an empty key', () => {
    const t = fold([claim({ key: 'a', role: 'reader', value: 'green', at: '2024-05-01T00:00:00Z' })], supersede, []);
    expect(values(t)).toEqual([['green', 'overruled']]);
    expect(view(t, '2024-06-01T00:00:00Z').status).toBe('empty');
  });

  it('a correction with conditions: [] removes the conditions', () => {
    const t = fold([
      claim({ key: 'a', role: 'member', value: 'Tuesday', conditions: ['after tests'], at: '2024-05-01T00:00:00Z' }),
      claim({ key: 'b', role: 'member', value: 'Tuesday', correction: true, at: '2024-05-02T00:00:00Z' }),
    ], flag, []);
    expect(t.values[0]?.conditions).toEqual([]);
    expect(t.decisions[1]?.kind).toBe('enriches');
  });

  it('a condition from insufficient standing is not applied', () => {
    const t = fold([
      claim({ key: 'a', role: 'maintainer', value: 'Tuesday', at: '2024-05-01T00:00:00Z' }),
      claim({ key: 'b', value: 'Tuesday', conditions: ['only on odd weeks'], at: '2024-05-02T00:00:00Z' }),
    ], flag, []);
    expect(t.values[0]?.conditions).toEqual([]);
    expect(t.decisions[1]?.reason).toMatch(/not applied/);
  });

  it('duplicates count once per lineage', () => {
    const t = fold([
      claim({ key: 'v1', lineage: 'file', value: 'Tuesday', at: '2024-05-01T00:00:00Z' }),
      claim({ key: 'v2', lineage: 'file', value: 'Tuesday', at: '2024-05-02T00:00:00Z' }),
      claim({ key: 'x', value: 'Tuesday', at: '2024-05-03T00:00:00Z' }),
    ], flag, []);
    expect(t.values[0]).toMatchObject({ support: 2 });
    expect(t.values[0]?.evidence).toHaveLength(3);
  });

  it('a correction without settles, during a dispute, replaces every side from the earliest start', () => {
    const t = fold([
      claim({ key: 'a', value: 'Mon', at: '2024-05-01T00:00:00Z' }),
      claim({ key: 'b', value: 'Wed', at: '2024-05-02T00:00:00Z' }),
      claim({ key: 'c', role: 'maintainer', value: 'Fri', correction: true, at: '2024-05-05T00:00:00Z' }),
    ], flag, []);
    expect(t.values.map((v) => [v.value, v.status, v.superseded_by])).toEqual([
      ['Mon', 'superseded', 'correction'],
      ['Wed', 'superseded', 'correction'],
      ['Fri', 'in_force', null],
    ]);
    expect(t.values[2]?.valid_from).toBe('2024-05-01T00:00:00.000Z');
  });

  it('a resolution of equal standing naming only some claims leaves the other side disputed', () => {
    const a = claim({ key: 'a', value: 'Mon', at: '2024-05-01T00:00:00Z' });
    const b = claim({ key: 'b', value: 'Wed', at: '2024-05-02T00:00:00Z' });
    const t = fold([a, b, claim({ key: 'c', value: 'Fri', correction: true, settles: [ref(a)], at: '2024-05-05T00:00:00Z' })], flag, []);
    expect(t.status_hint).toBe('conflicted');
    expect(values(t)).toEqual([['Mon', 'superseded'], ['Wed', 'disputed'], ['Fri', 'disputed']]);
  });

  it('a resolution from higher standing replaces the sides it does not name too (standing first)', () => {
    const a = claim({ key: 'a', value: 'Mon', at: '2024-05-01T00:00:00Z' });
    const b = claim({ key: 'b', value: 'Wed', at: '2024-05-02T00:00:00Z' });
    const t = fold([a, b, claim({ key: 'c', role: 'maintainer', value: 'Fri', correction: true, settles: [ref(a)], at: '2024-05-05T00:00:00Z' })], flag, []);
    expect(t.status_hint).toBe('in_force');
    expect(values(t)).toEqual([['Mon', 'superseded'], ['Wed', 'superseded'], ['Fri', 'in_force']]);
  });

  it('a resolution naming a closed value of higher standing, or a retracted one, leaves it as it was (standing first)', () => {
    // A maintainer's Monday, retracted by an owner; then a member's Wednesday alone.
    const m = claim({ key: 'm', role: 'maintainer', value: 'Mon', at: '2024-05-01T00:00:00Z' });
    const r = claim({ key: 'r', role: 'owner', op: 'retract', value: null, at: '2024-05-02T00:00:00Z' });
    const x = claim({ key: 'x', value: 'Wed', at: '2024-05-03T00:00:00Z' });
    const y = claim({ key: 'y', value: 'Thu', at: '2024-05-04T00:00:00Z' });
    // A member's correction names both, as any client may write `settles`.
    const t = fold([m, r, x, y, claim({ key: 'c', value: 'Fri', correction: true, settles: [ref(x), ref(y), ref(m)], at: '2024-05-05T00:00:00Z' })], flag, []);
    const monday = t.values.find((v) => v.value === 'Mon')!;
    expect([monday.status, monday.superseded_by]).toEqual(['retracted', null]);
    expect(t.values.find((v) => v.value === 'Fri')!.valid_from).toBe('2024-05-03T00:00:00.000Z');
    expect(view(t, '2024-05-01T12:00:00Z').current.map((v) => v.value)).toEqual(['Mon']);

    // A maintainer's Monday changed by an owner's Tuesday, which the owner then retracts.
    const o = claim({ key: 'o', role: 'owner', value: 'Tue', at: '2024-05-02T00:00:00Z' });
    const ro = claim({ key: 'ro', role: 'owner', op: 'retract', value: null, at: '2024-05-02T12:00:00Z' });
    const u = fold([m, o, ro, x, y, claim({ key: 'c', value: 'Fri', correction: true, settles: [ref(x), ref(y), ref(m)], at: '2024-05-05T00:00:00Z' })], flag, []);
    const changed = u.values.find((v) => v.value === 'Mon')!;
    expect([changed.status, changed.superseded_by]).toEqual(['superseded', 'change']);
    expect(view(u, '2024-05-01T12:00:00Z').current.map((v) => v.value)).toEqual(['Mon']);
  });

  it('a scheduled change that a newer version of its lineage withdrew never takes effect', () => {
    const v1 = claim({ key: 'v1', lineage: 'doc', snapshot: true, value: 'Thu', effective: '2024-06-01T00:00:00Z', at: '2024-05-01T00:00:00Z' });
    const base = claim({ key: 'x', value: 'Tue', at: '2024-04-01T00:00:00Z' });
    const v2 = { ...versionOf(v1), idempotency_key: 'v2', occurred_at: '2024-05-10T00:00:00.000Z', keys: [] };
    const t = fold([base, v1], flag, [versionOf(v1), v2]);
    expect(view(t, '2024-07-01T00:00:00Z').current.map((v) => v.value)).toEqual(['Tue']);
    expect(t.decisions.find((d) => d.claim.idempotency_key === 'v1')?.kind).toBe('no_effect');
  });
});

describe('many-value keys', () => {
  const at = (d: string) => `2024-05-0${d}T00:00:00Z`;
  it('members are added, retracted, and replaced as a whole set', () => {
    const t = fold([
      claim({ key: 'a', role: 'member', value: 'ann', at: at('1') }),
      claim({ key: 'b', role: 'member', value: 'bob', at: at('2') }),
      claim({ key: 'c', role: 'member', op: 'retract', value: 'ann', at: at('3') }),
      claim({ key: 'd', role: 'member', op: 'replace', value: ['bob', 'cy'], at: at('4') }),
      claim({ key: 'e', role: 'maintainer', op: 'replace', value: ['dee'], at: at('5') }),
    ], members, []);
    expect(view(t, at('2')).current.map((v) => v.value)).toEqual(['ann', 'bob']);
    expect(view(t, at('4')).current.map((v) => v.value)).toEqual(['bob', 'cy']);
    expect(view(t, at('6')).current.map((v) => v.value)).toEqual(['dee']);
    expect(view(t, at('6')).status).toBe('current');
  });

  it('a snapshot version that leaves out a member ends it', () => {
    const v1 = [
      claim({ key: 'v1', lineage: 'CODEOWNERS', snapshot: true, role: 'connector', value: 'ann', at: at('1') }),
      claim({ key: 'v1', index: 1, lineage: 'CODEOWNERS', snapshot: true, role: 'connector', value: 'bob', at: at('1') }),
    ];
    const v2 = [claim({ key: 'v2', lineage: 'CODEOWNERS', snapshot: true, role: 'connector', value: 'bob', at: at('3') })];
    const t = fold([...v1, ...v2], members, [versionOf(v1[0]!), versionOf(v2[0]!)]);
    expect(view(t, at('4')).current.map((v) => v.value)).toEqual(['bob']);
    expect(t.values[0]).toMatchObject({ value: 'ann', status: 'retracted', ended_by: { kind: 'snapshot' } });
  });
});

describe('known_at, state hash and etag', () => {
  const a = claim({ key: 'a', value: '$100', at: '2024-01-10T00:00:00Z', ingested: '2024-01-10T00:00:00Z' });
  const b = claim({ key: 'b', role: 'member', value: '$120', correction: true, at: '2024-02-01T00:00:00Z', ingested: '2024-02-01T00:00:00Z' });

  it('known_at shows what was believed before the correction arrived', () => {
    const before = knownAt([a, b], [], '2024-01-20T00:00:00Z', flag)!;
    expect(view(before, '2024-01-15T00:00:00Z').current.map((v) => v.value)).toEqual(['$100']);
    const after = knownAt([a, b], [], '2024-03-01T00:00:00Z', flag)!;
    expect(view(after, '2024-01-15T00:00:00Z').current.map((v) => v.value)).toEqual(['$120']);
    expect(knownAt([a, b], [], '2023-01-01T00:00:00Z', flag)).toBeNull();
    expect(knownAt([a, b], [], '2023-01-01T00:00:00Z', flag, a.fact_key)?.status_hint).toBe('empty');
  });

  it('the state hash excludes ids and ingest times; the etag tracks the whole timeline', () => {
    const t = fold([a, b], flag, []);
    const renamed = fold([{ ...a, episode_id: 'other', ingested_at: '2030-01-01T00:00:00.000Z' }, b], flag, []);
    expect(stateHash([renamed])).toBe(stateHash([t]));
    expect(timelineEtag(renamed)).toBe(timelineEtag(t));
    const changed = fold([a], flag, []);
    expect(stateHash([changed])).not.toBe(stateHash([t]));
    expect(timelineEtag(changed)).not.toBe(timelineEtag(t));
  });
});
