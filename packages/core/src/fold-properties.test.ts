// Properties of the fold (design §1, law 2): a pure function of the set of claims.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Claim } from './claim.js';
import { CHECKPOINT_AUTHORS, fold, foldWithCheckpoint, type FoldCheckpoint } from './fold.js';
import { canResume, resumeFold } from './fold-resume.js';
import { orderClaims } from './order.js';
import { canonicalJson } from './hash.js';
import { normalizeText } from './normalize.js';
import type { Policy } from './policy.js';
import { ROLES } from './roles.js';
import { EMPTY_STATE_HASH, stateHash, timelineDigest, updateStateHash } from './state-hash.js';
import { claim, versionOf } from './test-support.js';
import { Timeline } from './timeline.js';
import { compareInstants } from './order.js';
import { view, viewSettlesAt } from './view.js';

const RUNS = { numRuns: 1000 };
const DAYS = ['2024-05-01', '2024-05-02', '2024-05-03', '2024-05-06'];
const VALUES = ['Tuesday', 'Thursday', 'Friday'];

const policyArb: fc.Arbitrary<Policy> = fc.record({
  cardinality: fc.constantFrom('one' as const, 'many' as const),
  mode: fc.constantFrom('flag' as const, 'supersede' as const),
  min_role: fc.constantFrom('reader' as const, 'agent' as const, 'member' as const),
});

const specArb = fc.record({
  predicate: fc.constantFrom('deploy day', 'freeze day', 'owner'),
  value: fc.constantFrom(...VALUES),
  op: fc.constantFrom('assert' as const, 'assert' as const, 'assert' as const, 'retract' as const, 'replace' as const),
  role: fc.constantFrom(...ROLES),
  day: fc.constantFrom(...DAYS),
  hour: fc.integer({ min: 8, max: 10 }),
  effective: fc.option(fc.constantFrom(...DAYS, '2024-05-13'), { freq: 3 }),
  correction: fc.boolean(),
  conditions: fc.subarray(['after tests pass', 'not on holidays']),
  source: fc.constantFrom('api', 'mcp', 'github'),
  lineage: fc.option(fc.constantFrom('L1', 'L2'), { freq: 2 }),
  snapshot: fc.boolean(),
  sequence: fc.option(fc.integer({ min: 0, max: 2 }), { freq: 2 }),
  settlesPrevious: fc.boolean(),
  author: fc.option(fc.constantFrom('ann', 'bob'), { freq: 2 }),
});

type Spec = typeof specArb extends fc.Arbitrary<infer T> ? T : never;

/** Distinct claims: the n-th spec becomes episode k<n>, so every reference is unique. */
function build(specs: Spec[], onePredicate = true): Claim[] {
  return specs.map((s, i) =>
    claim({
      predicate: onePredicate ? 'deploy day' : s.predicate,
      key: `k${i}`,
      source: s.source,
      value: s.op === 'replace' ? [s.value, VALUES[(i + 1) % 3]] : s.op === 'retract' && i % 2 ? null : s.value,
      op: s.op,
      role: s.role,
      at: `${s.day}T${String(s.hour).padStart(2, '0')}:00:00Z`,
      ...(s.effective ? { effective: `${s.effective}T00:00:00Z` } : {}),
      correction: s.correction,
      conditions: s.conditions,
      lineage: s.lineage ?? undefined,
      snapshot: s.snapshot,
      sequence: s.sequence,
      settles: s.settlesPrevious && i > 0 ? [{ source: specs[i - 1]!.source, idempotency_key: `k${i - 1}`, index: 0 }] : [],
      ...(s.author ? { author: s.author } : {}),
    }),
  );
}

const claimsArb = fc.array(specArb, { minLength: 1, maxLength: 8 }).map((s) => build(s));

function foldAll(claims: Claim[], policy: Policy): Timeline {
  return fold(claims, policy, claims.map((c) => versionOf(c)));
}

const bytes = (t: unknown) => canonicalJson(t);

describe('fold properties (fast-check, 1,000 runs each)', () => {
  it('is invariant under any permutation of its claims and versions', () => {
    fc.assert(
      fc.property(claimsArb, policyArb, fc.nat(), (claims, policy, seed) => {
        const shuffled = fc.sample(fc.shuffledSubarray(claims, { minLength: claims.length }), { seed, numRuns: 1 })[0]!;
        const versions = claims.map((c) => versionOf(c)).reverse();
        expect(bytes(fold(shuffled, policy, versions))).toBe(bytes(foldAll(claims, policy)));
      }),
      RUNS,
    );
  });

  it('folding a set with any subset repeated equals folding the set', () => {
    fc.assert(
      fc.property(claimsArb, policyArb, fc.array(fc.nat()), (claims, policy, picks) => {
        const repeated = [...claims, ...picks.map((p) => claims[p % claims.length]!)];
        const versions = [...claims, ...repeated].map((c) => versionOf(c));
        expect(bytes(fold(repeated, policy, versions))).toBe(bytes(foldAll(claims, policy)));
      }),
      RUNS,
    );
  });

  it('revision counts the claims folded: each claim added raises it by one, and a repeat does not', () => {
    fc.assert(
      fc.property(claimsArb, policyArb, (claims, policy) => {
        for (let n = 1; n <= claims.length; n++) {
          expect(foldAll(claims.slice(0, n), policy).revision).toBe(n);
          expect(fold([...claims.slice(0, n), claims[n - 1]!], policy, claims.map((c) => versionOf(c))).revision).toBe(n);
        }
      }),
      RUNS,
    );
  });

  it('survives the store: JSON in, the same timeline out, and the timeline is plain, valid JSON', () => {
    fc.assert(
      fc.property(claimsArb, policyArb, (claims, policy) => {
        const t = foldAll(claims, policy);
        const again = foldAll(JSON.parse(JSON.stringify(claims)) as Claim[], policy);
        expect(bytes(again)).toBe(bytes(t));
        expect(JSON.parse(JSON.stringify(t))).toEqual(t);
        expect(Timeline.parse(t)).toEqual(t);
        // Every claim has exactly one decision, and every value has evidence.
        expect(t.decisions).toHaveLength(claims.length);
        for (const v of t.values) expect(v.evidence.length).toBeGreaterThan(0);
      }),
      RUNS,
    );
  });

  it('the state hash ignores batching: kept incrementally batch by batch, it equals the rebuild', () => {
    const multiArb = fc.array(specArb, { minLength: 1, maxLength: 10 }).map((s) => build(s, false));
    fc.assert(
      fc.property(multiArb, policyArb, fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1 }), (claims, policy, cuts) => {
        // As a compile does: after each batch, refold the keys it touched from every claim seen
        // so far, and update the subject's hash with those keys' old and new digests only.
        const digests = new Map<string, string>();
        let hash = EMPTY_STATE_HASH;
        let seen: Claim[] = [];
        let at = 0;
        for (let i = 0; at < claims.length; i++) {
          const batch = claims.slice(at, at + cuts[i % cuts.length]!);
          at += batch.length;
          seen = [...seen, ...batch];
          for (const key of new Set(batch.map((c) => c.key))) {
            const digest = timelineDigest(foldAll(seen.filter((c) => c.key === key), policy));
            const old = digests.get(key);
            hash = updateStateHash(hash, old ? [old] : [], [digest]);
            digests.set(key, digest);
          }
        }
        const rebuilt = [...new Set(claims.map((c) => c.key))].map((key) => foldAll(claims.filter((c) => c.key === key), policy));
        expect(hash).toBe(stateHash(rebuilt));
        expect(stateHash([...rebuilt].reverse())).toBe(stateHash(rebuilt));
      }),
      RUNS,
    );
  });

  it('an incremental hash that missed a change would differ from the rebuild (the check above can fail)', () => {
    const [spec] = fc.sample(specArb, { seed: 1, numRuns: 1 });
    const base = { ...spec!, op: 'assert' as const, role: 'owner' as const, correction: false, effective: null, settlesPrevious: false };
    const [first, second] = build([{ ...base, value: 'Tuesday' }, { ...base, value: 'Friday', effective: '2024-05-13' }]);
    const policy: Policy = { cardinality: 'one', mode: 'supersede', min_role: 'reader' };
    const before = foldAll([first!], policy);
    const after = foldAll([first!, second!], policy);
    expect(timelineDigest(after)).not.toBe(timelineDigest(before));
    // Adding the new digest without taking out the old one is not the rebuilt state.
    expect(updateStateHash(stateHash([before]), [], [timelineDigest(after)])).not.toBe(stateHash([after]));
    expect(updateStateHash(stateHash([before]), [timelineDigest(before)], [timelineDigest(after)])).toBe(stateHash([after]));
  });
});

describe('a fold resumed from a checkpoint (fast-check, 1,000 runs each)', () => {
  // A snapshot now and then, and explicit times ahead of their claims (the generator's '2024-05-13'
  // and later days): both make a key fold from all its claims, so both must be exercised.
  const resumableArb = fc
    .array(fc.tuple(specArb, fc.integer({ min: 0, max: 9 })), { minLength: 1, maxLength: 12 })
    .map((xs) => build(xs.map(([s, n]) => ({ ...s, snapshot: n === 0, effective: n > 7 ? s.effective : null }))))
    // An object value whose members are out of order: reasons spell values as the claims do, while
    // the stored timeline's are sorted.
    .map((cs) => cs.map((c) => (c.value === 'Friday' ? { ...c, value: { zz: 1, day: 'Friday' } } : c)));
  const onePolicyArb = policyArb.map((p) => ({ ...p, cardinality: 'one' as const }));
  // As the memory row gives them back: the timeline as its canonical JSON (members sorted), the
  // checkpoint's claims as sent.
  const stored = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;
  const storedTimeline = (t: Timeline): Timeline => JSON.parse(canonicalJson(t)) as Timeline;
  const full = (claims: Claim[], policy: Policy) => foldWithCheckpoint(claims, policy, claims.map((c) => versionOf(c)));

  it('resuming segment after segment, as compiles do, gives the fold of everything seen, checkpoint included', () => {
    let resumed = 0;
    fc.assert(
      fc.property(resumableArb, onePolicyArb, fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1 }), (claims, policy, cuts) => {
        // Claims arrive in the total order here: each segment sorts after what came before.
        const ordered = orderClaims(claims);
        let at = Math.min(cuts[0]!, ordered.length);
        let state = full(ordered.slice(0, at), policy);
        for (let i = 1; at < ordered.length; i++) {
          const segment = ordered.slice(at, at + cuts[i % cuts.length]!);
          at += segment.length;
          const expected = full(ordered.slice(0, at), policy);
          const cp = state.checkpoint;
          if (cp && canResume(state.timeline, cp, segment)) {
            state = resumeFold(storedTimeline(state.timeline), stored(cp), stored(segment), policy);
            resumed += 1;
            expect(bytes(state.timeline)).toBe(bytes(expected.timeline));
            expect(bytes(state.checkpoint)).toBe(bytes(expected.checkpoint));
          } else {
            state = expected;
          }
        }
      }),
      RUNS,
    );
    // About three segments in four resume (746 in the run that set this bound): the property is
    // not held by skipping.
    expect(resumed).toBeGreaterThan(RUNS.numRuns / 2);
  });

  it('refuses any claim that does not sort after the checkpoint, and whatever it accepts folds as the whole', () => {
    let refused = 0;
    let accepted = 0;
    fc.assert(
      fc.property(resumableArb, onePolicyArb, fc.array(fc.boolean()), (claims, policy, picks) => {
        const before = claims.filter((_, i) => picks[i] ?? true);
        const added = claims.filter((_, i) => !(picks[i] ?? true));
        if (before.length === 0 || added.length === 0) return;
        const state = full(before, policy);
        if (!state.checkpoint) return;
        const last = state.checkpoint.last;
        const behind = added.some((c) => orderClaims([c, last])[0] === c);
        if (!canResume(state.timeline, state.checkpoint, added)) {
          refused += 1;
          return;
        }
        expect(behind).toBe(false);
        accepted += 1;
        const resumed = resumeFold(storedTimeline(state.timeline), stored(state.checkpoint), added, policy);
        expect(bytes(resumed.timeline)).toBe(bytes(full(claims, policy).timeline));
      }),
      RUNS,
    );
    expect(refused).toBeGreaterThan(0);
    expect(accepted).toBeGreaterThan(0);
  });

  it('keeps no checkpoint for a many key, a snapshot lineage, a claim set ahead, or an open value of too many authors', () => {
    const one: Policy = { cardinality: 'one', mode: 'flag', min_role: 'reader' };
    const at = (i: number) => new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString();
    const plain = [0, 1].map((i) => claim({ key: `p${i}`, value: 'Tuesday', at: at(i) }));
    expect(full(plain, one).checkpoint).not.toBeNull();
    expect(full(plain, { ...one, cardinality: 'many' }).checkpoint).toBeNull();
    expect(full([...plain, claim({ key: 's', value: 'Tuesday', at: at(2), snapshot: true })], one).checkpoint).toBeNull();
    expect(full([...plain, claim({ key: 'f', value: 'Friday', at: at(2), effective: '2030-01-01T00:00:00Z' })], one).checkpoint).toBeNull();
    // A time stated for the moment the claim was made, or before it, reaches back no further.
    expect(full([...plain, claim({ key: 'e', value: 'Friday', at: at(2), effective: at(2) })], one).checkpoint).not.toBeNull();
    // However often one author restates a value, its checkpoint names the author once.
    const restated = Array.from({ length: 1000 }, (_, i) => claim({ key: `r${i}`, value: 'Tuesday', at: at(i), author: 'ann' }));
    expect(full(restated, one).checkpoint?.open).toEqual([{ at: 0, value: 'Tuesday', authors: [['ann', 20]], historical: false }]);
    // Each claim its own author (a key of its own): past the bound, no checkpoint.
    const many = Array.from({ length: CHECKPOINT_AUTHORS + 1 }, (_, i) => claim({ key: `a${i}`, value: 'Tuesday', at: at(i) }));
    expect(full(many.slice(0, CHECKPOINT_AUTHORS), one).checkpoint?.open[0]?.authors).toHaveLength(CHECKPOINT_AUTHORS);
    expect(full(many, one).checkpoint).toBeNull();
  });

  it('a resumed change rewrites the decisions of the value it ends, as the whole fold does', () => {
    const policy: Policy = { cardinality: 'one', mode: 'supersede', min_role: 'reader' };
    const at = (i: number) => new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString();
    const claims = ['Tuesday', 'Tuesday', 'Thursday'].map((value, i) => claim({ key: `c${i}`, value, at: at(i) }));
    const state = full(claims.slice(0, 2), policy);
    const cp: FoldCheckpoint = state.checkpoint!;
    expect(cp.open).toEqual([{ at: 0, value: 'Tuesday', authors: [['key:api:c0', 20], ['key:api:c1', 20]], historical: false }]);
    const resumed = resumeFold(storedTimeline(state.timeline), stored(cp), [claims[2]!], policy).timeline;
    expect(resumed.decisions.map((d) => d.kind)).toEqual(['superseded_by', 'superseded_by', 'changes']);
    expect(resumed.values.map((v) => [v.value, v.status])).toEqual([
      ['Tuesday', 'superseded'],
      ['Thursday', 'in_force'],
    ]);
    expect(bytes(resumed)).toBe(bytes(full(claims, policy).timeline));
  });
});

describe('normalization properties (fast-check, 1,000 runs each)', () => {
  const word = fc.constantFrom('not', 'no', 'never', 'deploy', 'Staging', 'e\u0301t\u00e9', '42', '3.5ms', 'v1.4.0', "don't", 'No', 'NEVER');
  const space = fc.constantFrom(' ', '  ', '\t', '\u00a0', '\r\n', '\n', '\r', ' \n ');
  const textArb = fc.array(fc.tuple(word, space)).map((parts) => parts.map(([w, s]) => w + s).join(''));
  const words = (s: string, w: string) => new RegExp(`(?<![\\p{L}\\p{N}])${w}(?![\\p{L}\\p{N}])`, 'iu').test(s);

  it('never changes digits or the presence of "not", "no", "never"', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        const out = normalizeText(text);
        expect(out.replace(/\D/g, '')).toBe(text.replace(/\D/g, ''));
        for (const w of ['not', 'no', 'never']) expect(words(out, w)).toBe(words(text, w));
        expect(normalizeText(out)).toBe(out);
      }),
      RUNS,
    );
  });

  it('never changes case, and keeps every non-space character of arbitrary text in order (NFC aside)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        const out = normalizeText(text);
        const strip = (s: string) => s.normalize('NFC').replace(/[\s\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/gu, '');
        expect(strip(out)).toBe(strip(text));
      }),
      RUNS,
    );
  });
});

describe('the view settles at the timeline’s last boundary', () => {
  // Recall reads a summary computed once from the view at `viewSettlesAt`: sound only if every
  // later instant sees exactly that view, and an earlier one may not.
  const laterArb = fc.constantFrom('2024-05-01T09:30:00Z', '2024-05-06T12:00:00Z', '2024-05-13T00:00:00Z', '2024-06-01T00:00:00Z', '2030-01-01T00:00:00Z');
  it('every instant at or after it sees the same view', () => {
    fc.assert(
      fc.property(claimsArb, policyArb, laterArb, (claims, policy, later) => {
        const t = foldAll(claims, policy);
        const settled = viewSettlesAt(t);
        const base = settled ?? '2024-01-01T00:00:00Z';
        const at = compareInstants(later, base) < 0 ? base : later;
        const { at: _a, ...settledView } = view(t, base);
        const { at: _b, ...laterView } = view(t, at);
        expect(laterView).toEqual(settledView);
      }),
      RUNS,
    );
  });
  it('is a boundary of the timeline, or null for a timeline with no values', () => {
    fc.assert(
      fc.property(claimsArb, policyArb, (claims, policy) => {
        const t = foldAll(claims, policy);
        const bounds = t.values.flatMap((v) => [v.valid_from, ...(v.valid_to === null ? [] : [v.valid_to])]);
        const settled = viewSettlesAt(t);
        if (bounds.length === 0) {
          expect(settled).toBeNull();
        } else {
          expect(bounds).toContain(settled);
          for (const b of bounds) expect(compareInstants(b, settled!)).toBeLessThanOrEqual(0);
        }
      }),
      RUNS,
    );
  });
});
