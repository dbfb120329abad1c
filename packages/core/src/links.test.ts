import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { factKeyString, makeFactKey, type FactKey } from './fact-key.js';
import { linkOf, linkState, onCanonicalKey, type LinkStatement } from './links.js';
import { fold } from './fold.js';
import { DEFAULT_POLICY } from './policy.js';
import { claim, WS } from './test-support.js';
import type { Role } from './roles.js';

const key = (predicate: string) => makeFactKey({ workspace_id: WS, scope: 'workspace', owner: null, subject: 'service:billing', predicate });
const K = ['a {weekday}', 'b {weekday}', 'c {weekday}', 'd {weekday}'].map(key);

function statement(i: number, j: number, same: boolean, at: string, role: Role = 'member', id = `${i}${j}${same}${at}${role}`): LinkStatement {
  const s = linkOf({
    kind: 'link',
    body: { link: { keys: [K[i]!, K[j]!], same } },
    subject: 'service:billing',
    workspace_id: WS,
    scope: 'workspace',
    owner: null,
    actor: { role, user: null },
    occurred_at: at,
    sequence: null,
    source: 'api',
    idempotency_key: id,
  });
  expect(s).not.toBeNull();
  return s!;
}

describe('links', () => {
  it('joins keys transitively under the smallest key', () => {
    const state = linkState([statement(2, 1, true, '2026-11-01T00:00:00.000Z'), statement(1, 0, true, '2026-11-02T00:00:00.000Z')]);
    const keys = K.slice(0, 3).map(factKeyString);
    expect(state.groups.get(keys[0]!)).toEqual(keys);
    expect(state.canonical.get(keys[2]!)).toBe(keys[0]);
  });

  it('unlinks with a later same: false of equal standing, never with a lower one', () => {
    const link = statement(0, 1, true, '2026-11-01T00:00:00.000Z');
    expect(linkState([link, statement(0, 1, false, '2026-11-02T00:00:00.000Z')]).groups.size).toBe(0);
    expect(linkState([link, statement(0, 1, false, '2026-10-01T00:00:00.000Z')]).groups.size).toBe(1);
    const owners = statement(0, 1, true, '2026-11-01T00:00:00.000Z', 'owner');
    expect(linkState([owners, statement(0, 1, false, '2026-11-05T00:00:00.000Z', 'member')]).groups.size).toBe(1);
  });

  it('keeps an agent’s link as a proposal, not in force', () => {
    const state = linkState([statement(0, 1, true, '2026-11-01T00:00:00.000Z', 'agent')]);
    expect(state.groups.size).toBe(0);
    expect(state.proposed).toHaveLength(1);
  });

  it('refuses keys of another subject or scope', () => {
    const other = makeFactKey({ workspace_id: WS, scope: 'workspace', owner: null, subject: 'service:search', predicate: 'a {weekday}' });
    const base = { kind: 'link', subject: 'service:billing', workspace_id: WS, scope: 'workspace' as const, owner: null, actor: { role: 'owner' as const, user: null }, occurred_at: '2026-11-01T00:00:00.000Z', sequence: null, source: 'api', idempotency_key: 'k' };
    expect(linkOf({ ...base, body: { link: { keys: [K[0]!, other], same: true } } })).toBeNull();
    expect(linkOf({ ...base, body: { link: { keys: [K[0]!, K[0]!], same: true } } })).toBeNull();
    expect(linkOf({ ...base, kind: 'message', body: { link: { keys: [K[0]!, K[1]!], same: true } } })).toBeNull();
  });

  it('is a set function of the statements: any order gives the same groups', () => {
    const all = [
      statement(0, 1, true, '2026-11-01T00:00:00.000Z'),
      statement(1, 2, true, '2026-11-02T00:00:00.000Z'),
      statement(1, 2, false, '2026-11-03T00:00:00.000Z'),
      statement(2, 3, true, '2026-11-03T00:00:00.000Z'),
      statement(0, 3, true, '2026-11-04T00:00:00.000Z', 'agent'),
    ];
    const expected = linkState(all);
    fc.assert(
      fc.property(fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length }), (order) => {
        const got = linkState(order);
        expect([...got.groups]).toEqual([...expected.groups]);
        expect([...got.distinct].sort()).toEqual([...expected.distinct].sort());
        expect(got.proposed).toEqual(expected.proposed);
      }),
      { numRuns: 200 },
    );
  });

  it('folds a linked group with the usual table: the same author later is a change', () => {
    const tue = claim({ key: 'e1', predicate: 'a {weekday}', value: 'Tuesday', at: '2026-11-01T10:00:00Z', author: 'ana' });
    const thu = claim({ key: 'e2', predicate: 'b {weekday}', value: 'Thursday', at: '2026-11-05T10:00:00Z', author: 'ana' });
    const restated = onCanonicalKey([thu, tue], [], K[0]!, [factKeyString(K[0]!), factKeyString(K[1]!)]);
    const t = fold(restated.claims, DEFAULT_POLICY, restated.versions, K[0]!);
    expect(t.values.map((v) => [v.value, v.status])).toEqual([
      ['Tuesday', 'superseded'],
      ['Thursday', 'in_force'],
    ]);
    expect(t.key).toBe(factKeyString(K[0]!));
  });

  describe('a statement linked with its negation', () => {
    const allowed = key('deploys to neg are allowed on {weekday}');
    const notAllowed = key('we no longer allow deploys to neg on {weekday}');
    const link = (keys: [FactKey, FactKey] = [allowed, notAllowed], role: Role = 'owner') =>
      linkOf({
        kind: 'link',
        body: { link: { keys, same: true } },
        subject: 'service:billing',
        workspace_id: WS,
        scope: 'workspace',
        owner: null,
        actor: { role, user: null },
        occurred_at: '2026-11-07T10:00:00Z',
        sequence: null,
        source: 'api',
        idempotency_key: 'neg-link',
      })!;

    it('is keyed by the statement, whichever key string is smaller', () => {
      // Here the statement's key string is the smaller; below, the negation's is.
      const state = linkState([link()]);
      const [head, members] = [...state.groups][0]!;
      expect(head).toBe(factKeyString(allowed));
      expect(members).toEqual([factKeyString(allowed), factKeyString(notAllowed)]);
      expect(state.canonical.get(factKeyString(notAllowed))).toBe(factKeyString(allowed));
      const backup = key('the backup runs on {weekday}');
      const noBackup = key('the backup no longer runs on {weekday}');
      expect(factKeyString(noBackup) < factKeyString(backup)).toBe(true);
      expect([...linkState([link([noBackup, backup])]).groups.keys()]).toEqual([factKeyString(backup)]);
    });

    it('folds the negation as the end of the value, not as its support', () => {
      const yes = claim({ key: 'n1', predicate: allowed.predicate, value: 'Friday', at: '2026-11-01T10:00:00Z', author: 'alice' });
      const no = claim({ key: 'n2', predicate: notAllowed.predicate, value: 'Friday', at: '2026-11-05T10:00:00Z', author: 'alice' });
      const restated = onCanonicalKey([yes, no], [], allowed, [factKeyString(allowed), factKeyString(notAllowed)]);
      expect(restated.claims.map((c) => c.op)).toEqual(['assert', 'retract']);
      const t = fold(restated.claims, DEFAULT_POLICY, restated.versions, allowed);
      expect(t.values.map((v) => [v.value, v.status, v.valid_to])).toEqual([['Friday', 'retracted', '2026-11-05T10:00:00.000Z']]);
      expect(t.decisions.map((d) => d.kind)).not.toContain('duplicate_of');
    });

    it('keeps a negation by a lower standing from ending the value', () => {
      const yes = claim({ key: 'n1', predicate: allowed.predicate, value: 'Friday', at: '2026-11-01T10:00:00Z', role: 'owner', author: 'olga' });
      const no = claim({ key: 'n2', predicate: notAllowed.predicate, value: 'Friday', at: '2026-11-05T10:00:00Z', role: 'agent', author: 'a1' });
      const restated = onCanonicalKey([yes, no], [], allowed, [factKeyString(allowed), factKeyString(notAllowed)]);
      const t = fold(restated.claims, DEFAULT_POLICY, restated.versions, allowed);
      expect(t.values.map((v) => [v.value, v.status])).toEqual([['Friday', 'in_force']]);
      expect(t.decisions.find((d) => d.claim.idempotency_key === 'n2')?.kind).toBe('overruled');
    });
  });
});
