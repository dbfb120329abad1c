// Standing first, the author rule, records of the past and bounded sides (design §4), in every
// arrival order: the fold sorts its input, so each case is also folded reversed and shuffled.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Claim } from './claim.js';
import { fold } from './fold.js';
import type { Policy } from './policy.js';
import { DEFAULT_MAX_SIDES, DEFAULT_POLICY } from './policy.js';
import { claim } from './test-support.js';
import { view } from './view.js';

const flag: Policy = DEFAULT_POLICY;
const NOW = '2026-12-01T00:00:00Z';

/** The current view's values, and every decision, after folding the claims in any order. */
function decide(claims: Claim[], policy: Policy = flag) {
  const timelines = [claims, [...claims].reverse(), [...claims.slice(1), claims[0]!]].map((cs) => fold(cs, policy, []));
  const shapes = new Set(timelines.map((t) => JSON.stringify(t)));
  expect(shapes.size).toBe(1);
  const t = timelines[0]!;
  const v = view(t, NOW);
  return {
    t,
    status: v.status,
    current: v.current.map((x) => x.value),
    kinds: Object.fromEntries(t.decisions.map((d) => [d.claim.idempotency_key, d.kind])),
  };
}

describe('standing first', () => {
  it('an owner after an agent replaces the agent value: no dispute', () => {
    const r = decide([
      claim({ key: 'agent', role: 'agent', value: 'agent-host', at: '2026-11-01T00:00:00Z' }),
      claim({ key: 'owner', role: 'owner', value: 'owner-host', at: '2026-11-02T00:00:00Z' }),
    ]);
    expect(r.status).toBe('current');
    expect(r.current).toEqual(['owner-host']);
    expect(r.kinds['owner']).toBe('changes');
  });

  it('a claim below a dispute names every side it differs from', () => {
    const r = decide([
      claim({ key: 'ana', role: 'member', value: 'Wednesday', at: '2026-11-01T00:00:00Z' }),
      claim({ key: 'bo', role: 'member', value: 'Friday', at: '2026-11-02T00:00:00Z' }),
      claim({ key: 'bot', role: 'agent', value: 'Monday', at: '2026-11-03T00:00:00Z' }),
    ]);
    expect(r.status).toBe('conflicted');
    expect(r.kinds['bot']).toBe('overruled');
    const reason = r.t.decisions.find((d) => d.claim.idempotency_key === 'bot')!.reason;
    expect(reason).toMatch(/differs from "Wednesday" and "Friday" but needs standing 30;|differs from "Friday" and "Wednesday" but needs standing 30;/);
  });

  it('a backdated agent claim lands only in the history before the owner value began', () => {
    const r = decide([
      claim({ key: 'agent', role: 'agent', value: 'attacker.example', at: '2026-11-01T00:00:00Z', effective: '2000-01-01T00:00:00Z' }),
      claim({ key: 'owner', role: 'owner', value: 'db1.internal', at: '2026-11-02T00:00:00Z' }),
    ]);
    expect(r.current).toEqual(['db1.internal']);
    expect(r.t.status_hint).toBe('in_force');
    const agent = r.t.values.find((v) => v.value === 'attacker.example')!;
    expect(agent.valid_to).toBe('2026-11-02T00:00:00.000Z');
  });

  it('an agent after an owner is overruled with any dates, even marked as a correction', () => {
    for (const extra of [{}, { effective: '2000-01-01T00:00:00Z' }, { effective: '2030-01-01T00:00:00Z' }, { correction: true }]) {
      const r = decide([
        claim({ key: 'owner', role: 'owner', value: 'db1.internal', at: '2026-11-01T00:00:00Z' }),
        claim({ key: 'agent', role: 'agent', value: 'attacker.example', at: '2026-11-02T00:00:00Z', ...extra }),
      ]);
      expect(r.current).toEqual(['db1.internal']);
      expect(r.t.status_hint).toBe('in_force');
      if (!('effective' in extra && extra.effective === '2000-01-01T00:00:00Z')) expect(r.kinds['agent']).toBe('overruled');
    }
  });

  it('a higher correction replaces the value from its start', () => {
    const r = decide([
      claim({ key: 'agent', role: 'agent', value: 'weekly', at: '2026-01-01T00:00:00Z' }),
      claim({ key: 'owner', role: 'owner', value: 'biweekly', at: '2026-03-01T00:00:00Z', correction: true }),
    ]);
    expect(r.current).toEqual(['biweekly']);
    expect(view(r.t, '2026-02-01T00:00:00Z').current.map((x) => x.value)).toEqual(['biweekly']);
  });

  it('property: whatever lower claims arrive, with whatever dates, the owner value stays and no dispute opens', () => {
    const lower = fc.record({
      role: fc.constantFrom('agent' as const, 'member' as const, 'maintainer' as const),
      value: fc.constantFrom('a', 'b', 'c', 'd'),
      day: fc.integer({ min: 1, max: 28 }),
      effective: fc.option(fc.integer({ min: 1990, max: 2040 }), { nil: undefined }),
      correction: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(lower, { maxLength: 8 }), (specs) => {
        const claims = [
          claim({ key: 'owner', role: 'owner', value: 'owner-value', at: '2026-06-01T00:00:00Z', effective: '1980-01-01T00:00:00Z' }),
          ...specs.map((s, i) =>
            claim({
              key: `l${i}`,
              role: s.role,
              value: s.value,
              at: `2026-07-${String(s.day).padStart(2, '0')}T00:00:00Z`,
              correction: s.correction,
              ...(s.effective === undefined ? {} : { effective: `${s.effective}-01-01T00:00:00Z` }),
            }),
          ),
        ];
        const t = fold(claims, flag, []);
        expect(t.status_hint).toBe('in_force');
        expect(view(t, NOW).current.map((x) => x.value)).toEqual(['owner-value']);
      }),
      { numRuns: 200 },
    );
  });
});

describe('the author rule', () => {
  it('the same author stating another value later changes it', () => {
    const r = decide([
      claim({ key: 'jan', value: 'weekly', at: '2026-01-10T00:00:00Z', author: 'alice' }),
      claim({ key: 'jun', value: 'monthly', at: '2026-06-10T00:00:00Z', author: 'alice' }),
    ]);
    expect(r.current).toEqual(['monthly']);
    expect(r.kinds['jun']).toBe('changes');
    expect(r.t.decisions.find((d) => d.claim.idempotency_key === 'jun')!.reason).toContain('author alice');
  });

  it('another author of equal standing disputes', () => {
    const r = decide([
      claim({ key: 'jan', value: 'weekly', at: '2026-01-10T00:00:00Z', author: 'alice' }),
      claim({ key: 'jun', value: 'monthly', at: '2026-06-10T00:00:00Z', author: 'bob' }),
    ]);
    expect(r.status).toBe('conflicted');
    expect(r.current.sort()).toEqual(['monthly', 'weekly']);
  });

  it('a value another equal also stated is not the author’s alone: a dispute', () => {
    const r = decide([
      claim({ key: 'a1', value: 'weekly', at: '2026-01-10T00:00:00Z', author: 'alice' }),
      claim({ key: 'b1', value: 'weekly', at: '2026-02-10T00:00:00Z', author: 'bob' }),
      claim({ key: 'a2', value: 'monthly', at: '2026-06-10T00:00:00Z', author: 'alice' }),
    ]);
    expect(r.status).toBe('conflicted');
  });

  it('a lower confirmation does not take the value from its author', () => {
    const r = decide([
      claim({ key: 'a1', role: 'member', value: 'weekly', at: '2026-01-10T00:00:00Z', author: 'alice' }),
      claim({ key: 'bot', role: 'agent', value: 'weekly', at: '2026-02-10T00:00:00Z', author: 'key:bot' }),
      claim({ key: 'a2', role: 'member', value: 'monthly', at: '2026-06-10T00:00:00Z', author: 'alice' }),
    ]);
    expect(r.current).toEqual(['monthly']);
  });

  it('an unknown author never counts as the same author', () => {
    const r = decide([
      claim({ key: 'a', value: 'weekly', at: '2026-01-10T00:00:00Z', author: null }),
      claim({ key: 'b', value: 'monthly', at: '2026-06-10T00:00:00Z', author: null }),
    ]);
    expect(r.status).toBe('conflicted');
  });
});

describe('records of the past', () => {
  it('a value that stood only on a dated statement about the past gives way to a plain statement now', () => {
    const r = decide([
      claim({ key: 'old', value: 'nfs01', at: '2026-03-01T00:00:00Z', effective: '2017-01-01T00:00:00Z' }),
      claim({ key: 'now', value: 'nfs07', at: '2026-05-01T00:00:00Z' }),
    ]);
    expect(r.current).toEqual(['nfs07']);
    expect(view(r.t, '2020-01-01T00:00:00Z').current.map((x) => x.value)).toEqual(['nfs01']);
  });

  it('a dated statement about the past lands in history under a current value', () => {
    const r = decide([
      claim({ key: 'now', value: 'nfs07', at: '2026-03-01T00:00:00Z' }),
      claim({ key: 'old', value: 'nfs01', at: '2026-05-01T00:00:00Z', effective: '2017-01-01T00:00:00Z' }),
    ]);
    expect(r.current).toEqual(['nfs07']);
    expect(r.t.status_hint).toBe('in_force');
  });
});

describe('bounded sides', () => {
  it(`past max_sides (default ${DEFAULT_MAX_SIDES}) further values are evidence of the dispute, not sides`, () => {
    const claims = Array.from({ length: 40 }, (_, i) =>
      claim({ key: `k${String(i).padStart(2, '0')}`, value: `v${i}`, at: `2026-01-01T00:00:${String(i).padStart(2, '0')}Z` }),
    );
    const t = fold(claims, flag, []);
    const open = view(t, NOW).current;
    expect(open).toHaveLength(DEFAULT_MAX_SIDES);
    expect(t.status_hint).toBe('conflicted');
    const extra = t.decisions.filter((d) => d.reason.includes('max_sides'));
    expect(extra).toHaveLength(40 - DEFAULT_MAX_SIDES);
    expect(extra.every((d) => d.kind === 'disputes')).toBe(true);
    // Every claim is still accounted for: a side's evidence, or a decision naming the dispute.
    expect(t.values.reduce((n, v) => n + v.evidence.length, 0)).toBe(DEFAULT_MAX_SIDES);
    expect(t.decisions).toHaveLength(40);
    expect(t.values).toHaveLength(DEFAULT_MAX_SIDES);
  });

  it('a policy sets its own bound', () => {
    const claims = Array.from({ length: 6 }, (_, i) => claim({ key: `k${i}`, value: `v${i}`, at: `2026-01-0${i + 1}T00:00:00Z` }));
    expect(view(fold(claims, { ...flag, max_sides: 3 }, []), NOW).current).toHaveLength(3);
  });

  it('a change from the author still ends a side of a full dispute', () => {
    const claims = Array.from({ length: 3 }, (_, i) => claim({ key: `k${i}`, value: `v${i}`, at: `2026-01-0${i + 1}T00:00:00Z`, author: `u${i}` }));
    claims.push(claim({ key: 'k9', value: 'v9', at: '2026-02-01T00:00:00Z', effective: '2026-02-01T00:00:00Z' }));
    const r = decide(claims, { ...flag, max_sides: 3 });
    expect(r.current).toEqual(['v9']);
  });
});

describe('reasons name the cues that decided', () => {
  it('an overruled or changing claim says which cues qualified it', () => {
    const t = fold(
      [
        claim({ key: 'm', role: 'member', value: 'weekly', at: '2026-01-01T00:00:00Z', author: 'mia' }),
        claim({ key: 'h', role: 'member', standing: 27, value: 'daily', at: '2026-02-01T00:00:00Z', author: 'hal', cues: ['i-think'] }),
        claim({ key: 'c', role: 'member', value: 'monthly', at: '2026-03-01T00:00:00Z', author: 'cy', correction: true, cues: ['correction-label'] }),
      ],
      flag,
      [],
    );
    const reason = (k: string) => t.decisions.find((d) => d.claim.idempotency_key === k)!;
    expect(reason('h').kind).toBe('overruled');
    expect(reason('h').reason).toContain('cues: i-think');
    expect(reason('c').kind).toBe('corrects');
    expect(reason('c').reason).toContain('cues: correction-label');
  });
});
