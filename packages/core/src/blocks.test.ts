// A timeline kept as sealed blocks and a head (docs/scaling.md, step 2): the same ETag, digest and
// timeline as the whole, whichever blocks a history of compiles happened to seal.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Claim } from './claim.js';
import { foldWithCheckpoint } from './fold.js';
import { canResume, resumeFold } from './fold-resume.js';
import { orderClaims } from './order.js';
import { canonicalJson, sha256 } from './hash.js';
import type { Policy } from './policy.js';
import { ROLES } from './roles.js';
import { timelineDigest, timelineEtag } from './state-hash.js';
import { claim } from './test-support.js';
import type { Decision, EvidenceRef, Timeline, TimelineValue } from './timeline.js';
import { view, viewSettlesAt } from './view.js';
import { assembleTimeline, DECISION_BLOCK, EVIDENCE_BLOCK, headOf, timelineHashes, VALUE_BLOCK, viewableHead, type Sealed } from './blocks.js';

const VALUES = ['Tuesday', 'Thursday', 'Friday'];
const SEAL_BEFORE = '2030-01-01T00:00:00.000Z';
const LATER = '2031-06-01T00:00:00.000Z';

// Long histories of one key: enough values and decisions to fill blocks. Mostly owners asserting
// a new day; now and then a reader overruled, a restatement, a retraction, a disagreement.
const stepArb = fc.record({
  value: fc.constantFrom(...VALUES),
  role: fc.constantFrom(...Array.from({ length: 12 }, () => 'owner' as const), 'member' as const, ...ROLES),
  op: fc.constantFrom('assert' as const, 'assert' as const, 'assert' as const, 'assert' as const, 'assert' as const, 'assert' as const, 'retract' as const),
  author: fc.constantFrom('ann', 'bob', 'cy'),
  gap: fc.integer({ min: 0, max: 90 }),
});
// Half the histories are owners' alone. In the others a reader or a guest is overruled now and
// then: an overruled value gathers the later overruled claims of its value, so once sealed, a claim
// of its value is folded from all claims (`canResume`) — both paths are taken.
// Half are one value restated by owners, now and then another: its evidence outgrows a block and
// is sealed. Now and then an episode states it twice (one lineage, two claims), and in half of
// those histories some claims come from one document in several versions (a lineage of its own),
// which the resume cannot count from a value's last claims: the key folds from all claims.
type Mode = 'mixed' | 'owners' | 'one value' | 'one value, a document';
const historyOf = (modes: readonly Mode[], minLength: number) =>
  fc.tuple(fc.array(stepArb, { minLength, maxLength: 700 }), fc.constantFrom(...modes)).map(([steps, mode]) => {
    let minute = 0;
    const out: Claim[] = [];
    steps.forEach((s, i) => {
      minute += s.gap;
      const at = new Date(Date.UTC(2024, 0, 1) + minute * 60_000).toISOString();
      const oneValue = mode.startsWith('one value');
      const value = oneValue && (s.gap !== 40 || i % 5 !== 0) ? VALUES[Math.floor(i / 600) % VALUES.length] : s.value;
      const op = oneValue && (s.gap !== 7 || i % 5 !== 0) ? 'assert' : s.op;
      const role = mode === 'mixed' ? s.role : 'owner';
      const lineage = mode === 'one value, a document' && s.gap % 13 === 0 ? { lineage: 'doc:runbook' } : {};
      out.push(claim({ key: `h${i}`, value, op, role, author: s.author, at, ...lineage }));
      if (oneValue && s.gap % 11 === 3) out.push(claim({ key: `h${i}`, index: 1, value, op, role, author: s.author, at, ...lineage }));
    });
    return out;
  });
const historyArb = historyOf(['mixed', 'owners', 'one value', 'one value, a document'], 200);
const policyArb = fc.constantFrom<Policy>(
  { cardinality: 'one', mode: 'supersede', min_role: 'reader' },
  { cardinality: 'one', mode: 'supersede', min_role: 'member' },
  { cardinality: 'one', mode: 'flag', min_role: 'reader' },
  { cardinality: 'one', mode: 'supersede', min_role: 'reader' },
);

const stored = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;
const full = (claims: readonly Claim[], policy: Policy) => foldWithCheckpoint(claims, policy, []);

/** What a store keeps: the sealed blocks' items and a head, as compiles leave them. */
interface Kept {
  head: Timeline;
  sealed: Sealed | null;
  values: TimelineValue[][];
  decisions: Decision[][];
  /** Sealed evidence blocks by the value's place in the whole timeline. */
  evidence: Map<number, EvidenceRef[][]>;
}

function keep(kept: Kept | null, timeline: Timeline): Kept {
  const h = timelineHashes(timeline, kept?.sealed ?? null, SEAL_BEFORE);
  const values = [...(kept?.values ?? [])];
  const decisions = [...(kept?.decisions ?? [])];
  const evidence = new Map<number, EvidenceRef[][]>([...(kept?.evidence ?? [])].map(([at, bs]) => [at, [...bs]]));
  for (const b of h.blocks) {
    if (b.kind === 'values' || b.kind === 'decisions') (b.kind === 'values' ? values : decisions)[b.n] = JSON.parse(b.json) as never;
    else {
      const at = Number(b.kind.slice('evidence:'.length));
      if (!evidence.has(at)) evidence.set(at, []);
      evidence.get(at)![b.n] = JSON.parse(b.json) as EvidenceRef[];
    }
  }
  // The row's text is the head's canonical JSON.
  expect(h.json).toBe(canonicalJson(h.head));
  return { head: JSON.parse(h.json) as Timeline, sealed: h.sealed, values, decisions, evidence };
}

/** What a summary reads of a view: the current values' evidence by count, a dispute's whole. */
const counted = (vs: ReadonlyArray<{ evidence: readonly unknown[] }>) => vs.map((v) => ({ ...v, evidence: v.evidence.length }));

interface Counts {
  sealedValues: number;
  sealedDecisions: number;
  sealedOverruled: number;
  sealedEvidence: number;
  resumed: number;
  resumedPastEvidence: number;
}
const noCounts = (): Counts => ({ sealedValues: 0, sealedDecisions: 0, sealedOverruled: 0, sealedEvidence: 0, resumed: 0, resumedPastEvidence: 0 });
const cutsArb = fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 8 });

/**
 * Where a compile that takes about `n` claims from `from` ends: a compile takes whole episodes, so
 * never between two claims of one episode (the resume counts a restatement's support by lineage,
 * and an episode's claims share one, so splitting one across compiles is a history no log has).
 */
function cutAt(ordered: readonly Claim[], from: number, n: number): number {
  let to = Math.min(from + n, ordered.length);
  const episode = (k: Claim) => `${k.source}\u0000${k.idempotency_key}`;
  while (to > 0 && to < ordered.length && episode(ordered[to]!) === episode(ordered[to - 1]!)) to += 1;
  return to;
}

/** Compiles a history in segments cut at `cuts`, resuming where it can; the result must be the whole fold's. */
function compileInSegments(claims: readonly Claim[], policy: Policy, cuts: readonly number[], c: Counts): void {
  const ordered = orderClaims(claims);
  let at = cutAt(ordered, 0, cuts[0]!);
  let state = full(ordered.slice(0, at), policy);
  let kept = keep(null, state.timeline);
  for (let i = 1; at < ordered.length; i++) {
    const segment = ordered.slice(at, cutAt(ordered, at, cuts[i % cuts.length]!));
    at += segment.length;
    const cp = state.checkpoint;
    if (cp && canResume(kept.head, cp, segment, kept.sealed)) {
      const r = resumeFold(kept.head, stored(cp), stored(segment), policy, kept.sealed);
      c.resumed += 1;
      if (cp.open.some(({ at: place }) => kept.sealed?.evidence?.some((e) => e.at === place))) c.resumedPastEvidence += 1;
      state = r;
      kept = keep(kept, r.timeline);
    } else {
      // Folded from all claims: the whole timeline, hashed from scratch, sealed anew.
      state = full(ordered.slice(0, at), policy);
      kept = keep(null, state.timeline);
    }
  }
  const whole = full(ordered, policy);
  const assembled = assembleTimeline(kept.head, kept.values, kept.decisions, kept.evidence);
  expect(canonicalJson(assembled)).toBe(canonicalJson(whole.timeline));
  expect(canonicalJson(state.checkpoint)).toBe(canonicalJson(whole.checkpoint));
  const fromHead = timelineHashes(kept.head, kept.sealed, null);
  expect(fromHead.etag).toBe(timelineEtag(whole.timeline));
  expect(fromHead.digest()).toBe(timelineDigest(whole.timeline));
  // The present (any instant past the sealed values) seen from the head is the whole's view.
  const seen = viewableHead(kept.head, kept.sealed);
  expect(viewSettlesAt(seen)).toBe(viewSettlesAt(whole.timeline));
  for (const instant of [LATER, viewSettlesAt(whole.timeline) ?? LATER]) {
    const a = view(seen, instant);
    const b = view(whole.timeline, instant);
    expect([a.status, counted(a.current), counted(a.scheduled), a.conflict]).toEqual([b.status, counted(b.current), counted(b.scheduled), b.conflict]);
  }
  // What verify does: the head cut from the whole hashes as the head kept.
  expect(canonicalJson(headOf(whole.timeline, kept.sealed))).toBe(canonicalJson(kept.head));
  c.sealedValues += kept.sealed?.values.length ?? 0;
  c.sealedDecisions += kept.sealed?.decisions.length ?? 0;
  c.sealedOverruled += kept.sealed?.overruled?.length ?? 0;
  c.sealedEvidence += [...kept.evidence.values()].reduce((n, bs) => n + bs.length, 0);
}

// Histories of hundreds of claims take hours to shrink (a CI run hung on one): each property reports
// its first counterexample as found, with the seed and path that replay it.
describe('sealed blocks (fast-check)', () => {
  it('compiles that resume from a head give the whole fold: timeline, ETag, digest and present view', () => {
    const c = noCounts();
    fc.assert(
      fc.property(historyArb, policyArb, cutsArb, (claims, policy, cuts) => compileInSegments(claims, policy, cuts, c)),
      { numRuns: 60, endOnFailure: true },
    );
    // Not held by sealing nothing, nor by never resuming.
    expect(c.sealedValues).toBeGreaterThan(0);
    expect(c.sealedDecisions).toBeGreaterThan(0);
    expect(c.sealedOverruled).toBeGreaterThan(0);
    expect(c.sealedEvidence).toBeGreaterThan(0);
    expect(c.resumed).toBeGreaterThan(60);
  });

  // Resumes past sealed evidence need one value restated past a block and then more: rare in the
  // mixed histories above (a CI run saw 4 in 60 histories), so these are long one-value histories.
  it('compiles that resume past a value\'s sealed evidence give the whole fold', () => {
    const c = noCounts();
    let runsPastEvidence = 0;
    fc.assert(
      fc.property(historyOf(['one value'], 520), policyArb, cutsArb, (claims, policy, cuts) => {
        const before = c.resumedPastEvidence;
        compileInSegments(claims, policy, cuts, c);
        if (c.resumedPastEvidence > before) runsPastEvidence += 1;
      }),
      { numRuns: 20, endOnFailure: true },
    );
    expect(runsPastEvidence).toBeGreaterThan(10);
  });

  it('the ETag and the digest change with any item of a sealed block', () => {
    const policy: Policy = { cardinality: 'one', mode: 'supersede', min_role: 'reader' };
    const claims = Array.from({ length: 2 * DECISION_BLOCK }, (_, i) =>
      claim({ key: `c${i}`, value: VALUES[i % 3]!, role: 'owner', at: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString() }),
    );
    const t = full(claims, policy).timeline;
    // The ETag as defined, spelled out here by canonical JSON of the blocks' hashes.
    const hashesOf = (items: readonly unknown[], size: number, domain: string) =>
      Array.from({ length: Math.ceil(items.length / size) }, (_, i) => sha256(`${domain}/etag|${canonicalJson(items.slice(i * size, (i + 1) * size))}`));
    expect(timelineEtag(t)).toBe(
      sha256(`etag/2|${canonicalJson({ ...t, values: hashesOf(t.values, VALUE_BLOCK, 'values/1'), decisions: hashesOf(t.decisions, DECISION_BLOCK, 'decisions/1') })}`).slice(0, 32),
    );
    const kept = keep(null, t);
    expect(kept.sealed?.values.length).toBeGreaterThan(0);
    expect(kept.sealed?.decisions.length).toBeGreaterThan(0);
    expect(kept.head.values.length).toBeLessThan(VALUE_BLOCK + 1);
    const altered = { ...t, values: t.values.map((v, i) => (i === 3 ? { ...v, valid_from: '2024-01-01T00:00:30.000Z' } : v)) };
    expect(timelineEtag(altered)).not.toBe(timelineEtag(t));
    expect(timelineDigest(altered)).not.toBe(timelineDigest(t));
    // Reasons are not state: the ETag changes, the digest does not.
    const reworded = { ...t, decisions: t.decisions.map((d, i) => (i === 5 ? { ...d, reason: `${d.reason}.` } : d)) };
    expect(timelineEtag(reworded)).not.toBe(timelineEtag(t));
    expect(timelineDigest(reworded)).toBe(timelineDigest(t));
    // Moving an item across a block's edge changes both.
    const swapped = { ...t, values: [t.values[1]!, t.values[0]!, ...t.values.slice(2)] };
    expect(timelineDigest(swapped)).not.toBe(timelineDigest(t));
  });

  it('seals an open value\'s full evidence blocks and the decisions about them, nothing of a value that ends after the bound, nor of a many key', () => {
    const at = (i: number) => new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString();
    // One value restated: every decision stands on the open value, whose evidence is sealed by blocks.
    const restated = Array.from({ length: 3 * DECISION_BLOCK + 10 }, (_, i) => claim({ key: `r${i}`, value: 'Tuesday', role: 'owner', author: 'ann', at: at(i) }));
    const one: Policy = { cardinality: 'one', mode: 'supersede', min_role: 'reader' };
    const kept = timelineHashes(full(restated, one).timeline, null, SEAL_BEFORE);
    expect(kept.sealed?.values).toEqual([]);
    expect(kept.sealed?.decisions).toHaveLength(3);
    expect(kept.sealed?.evidence?.map((e) => [e.at, e.blocks.length, e.plain])).toEqual([[0, 3, true]]);
    expect(kept.head.values[0]!.evidence).toHaveLength(10);
    expect(kept.blocks.map((b) => `${b.kind}/${b.n}`)).toEqual(['decisions/0', 'decisions/1', 'decisions/2', 'evidence:0/0', 'evidence:0/1', 'evidence:0/2']);
    // Resumed from that head: an episode stating the value twice adds one lineage to the support.
    const cp = full(restated, one).checkpoint!;
    const head = JSON.parse(kept.json) as Timeline;
    const twice = [0, 1].map((index) => claim({ key: 'twice', index, value: 'Tuesday', role: 'owner', author: 'ann', at: at(5000) }));
    expect(canResume(head, cp, twice, kept.sealed)).toBe(true);
    const resumedTwice = resumeFold(head, stored(cp), stored(twice), one, kept.sealed).timeline;
    expect(resumedTwice.values[0]!.support).toBe(restated.length + 1);
    expect(timelineHashes(resumedTwice, kept.sealed, SEAL_BEFORE).etag).toBe(timelineEtag(full([...restated, ...twice], one).timeline));
    // What a head cannot tell from the value's last claims folds from all claims: a lineage of
    // several versions, another value, a retraction.
    for (const added of [
      [claim({ key: 'doc', value: 'Tuesday', role: 'owner', at: at(5000), lineage: 'api:r3' })],
      [claim({ key: 'other', value: 'Friday', role: 'owner', at: at(5000) })],
      [claim({ key: 'gone', value: 'Tuesday', role: 'owner', at: at(5000), op: 'retract' })],
    ]) {
      expect(canResume(head, cp, added, kept.sealed)).toBe(false);
    }
    // A value once stated by such a lineage is never resumed past its sealed evidence.
    const documented = restated.map((c, i) => (i === 3 ? claim({ key: 'r3', value: 'Tuesday', role: 'owner', author: 'ann', at: at(3), lineage: 'doc:runbook' }) : c));
    const keptDoc = timelineHashes(full(documented, one).timeline, null, SEAL_BEFORE);
    expect(keptDoc.sealed?.evidence?.[0]?.plain).toBe(false);
    expect(canResume(JSON.parse(keptDoc.json) as Timeline, full(documented, one).checkpoint!, twice, keptDoc.sealed)).toBe(false);
    // Disputed, its sources are shown: nothing of it is sealed.
    const disputed = [...restated, claim({ key: 'x', value: 'Friday', role: 'owner', at: at(0) })];
    const flag: Policy = { ...one, mode: 'flag' };
    expect(full(disputed, flag).timeline.status_hint).toBe('conflicted');
    expect(timelineHashes(full(disputed, flag).timeline, null, SEAL_BEFORE).sealed).toBeNull();
    const changing = Array.from({ length: 2 * DECISION_BLOCK }, (_, i) => claim({ key: `c${i}`, value: VALUES[i % 3]!, role: 'owner', at: at(i) }));
    expect(timelineHashes(full(changing, one).timeline, null, SEAL_BEFORE).sealed).not.toBeNull();
    // Values that ended after the bound stay in the head (decisions about them may be sealed:
    // only those about an open value can still be rewritten).
    expect(timelineHashes(full(changing, one).timeline, null, at(0)).sealed?.values).toEqual([]);
    const many = foldWithCheckpoint(changing, { ...one, cardinality: 'many' }, []).timeline;
    expect(timelineHashes(many, null, SEAL_BEFORE).sealed).toBeNull();
  });

  it('seals an overruled value; a later overruled claim of its value folds from all claims, a restatement of the open value resumes', () => {
    const at = (i: number) => new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString();
    const policy: Policy = { cardinality: 'one', mode: 'supersede', min_role: 'reader' };
    // A reader overruled at the start, then owners changing the value every fifth restatement.
    const history = [
      ...Array.from({ length: 2 * DECISION_BLOCK }, (_, i) => claim({ key: `o${i}`, value: VALUES[Math.floor(i / 5) % 3]!, role: 'owner', at: at(i + 1) })),
      claim({ key: 'r0', value: 'Monday', role: 'reader', at: at(2) }),
    ];
    const before = full(history, policy);
    const kept = keep(null, before.timeline);
    expect(before.timeline.values.filter((v) => v.status === 'overruled').map((v) => v.value)).toEqual(['Monday']);
    expect(kept.sealed?.values.length).toBeGreaterThan(0);
    expect(kept.sealed?.overruled).toEqual(['"Monday"']);
    const last = before.timeline.values.at(-1)!.value as string;
    const next = (key: string, value: string, role: 'owner' | 'reader', i: number) => claim({ key, value, role, at: at(2 * DECISION_BLOCK + 10 + i) });
    // The reader again, with the sealed overruled value: it would join that value.
    const again = [next('r1', 'Monday', 'reader', 0)];
    expect(canResume(kept.head, before.checkpoint!, again, kept.sealed)).toBe(false);
    // Another reader value is a new overruled value; the open value restated attaches, whoever says it.
    for (const added of [[next('r2', 'Sunday', 'reader', 0)], [next('o-a', last, 'owner', 0), next('r3', last, 'reader', 1)]]) {
      expect(canResume(kept.head, before.checkpoint!, added, kept.sealed)).toBe(true);
      const r = resumeFold(kept.head, stored(before.checkpoint!), stored(added), policy, kept.sealed);
      const whole = full([...history, ...added], policy);
      expect(canonicalJson(assembleTimeline(keep(kept, r.timeline).head, keep(kept, r.timeline).values, keep(kept, r.timeline).decisions))).toBe(canonicalJson(whole.timeline));
    }
    // A retraction in the batch may leave the sealed value's claim with nothing open to attach to.
    expect(canResume(kept.head, before.checkpoint!, [next('o-r', last, 'owner', 0), { ...next('o-x', last, 'owner', 1), op: 'retract' }], kept.sealed)).toBe(true);
    expect(canResume(kept.head, before.checkpoint!, [{ ...next('o-x', last, 'owner', 0), op: 'retract' }, next('r4', 'Monday', 'reader', 1)], kept.sealed)).toBe(false);
  });
});
