import type { Claim } from './claim.js';
import { claimRef } from './claim.js';
import { valueKey } from './normalize.js';
import type { Policy } from './policy.js';
import { compareClaims, orderClaims } from './order.js';
import type { Decision, Timeline, TimelineValue } from './timeline.js';
import { FoldState } from './fold-state.js';
import { plainLineage, sealedBase, type Sealed } from './blocks.js';
import type { Entry } from './fold-state.js';
import { foldOne } from './fold-one.js';
import { checkpointOf, fates, finalDecision, reachesBack, timelineStatus, toValue, withEvidence, type FoldCheckpoint } from './fold.js';

/**
 * True when `added` may be folded from `checkpoint` (docs/scaling.md, "A key restated without
 * end"): every claim is on the key, sorts after the last claim folded, and reaches no further back
 * than the open values (`reachesBack`). An open value's claims are known by their references,
 * which carry no sequence: a claim of the same lineage and the same instant as one of them would
 * need it to tell which version is newer. A claim of the value of a sealed overruled value
 * (`Sealed.overruled`) may join it, and an open value with sealed evidence (`Sealed.evidence`)
 * takes only plain restatements. Anything else is folded from all of the key's claims.
 */
export function canResume(previous: Pick<Timeline, 'key' | 'policy' | 'values'>, checkpoint: FoldCheckpoint, added: readonly Claim[], sealed: Sealed | null = null): boolean {
  if (added.length === 0 || previous.policy.cardinality !== 'one') return false;
  // Each cited (lineage, instant) once: a batch of thousands of claims on a value restated
  // thousands of times checks each claim in one lookup, not one scan.
  const cited = new Set<string>();
  // Lineages of an open value's references that a connector did not write: whether a claim of one
  // is a newer version depends on who wrote each (`sameWriter`), which a reference does not say.
  const authored = new Set<string>();
  const base = sealedBase(sealed).values;
  for (const { at } of checkpoint.open) {
    // An open value is never sealed (`timelineHashes`): a checkpoint naming one is not this head's.
    const v = previous.values[at - base];
    if (!v) return false;
    for (const x of v.evidence) {
      cited.add(versionAt(x.lineage, x.occurred_at));
      if (x.role !== 'connector') authored.add(x.lineage);
    }
  }
  if (!settlesNoClosedSide(previous, added, sealed)) return false;
  if (!joinsNoSealedValue(previous, checkpoint, added, sealed, base)) return false;
  if (!attachesToSealedEvidence(previous, checkpoint, added, sealed, base)) return false;
  return added.every(
    (c) => c.key === previous.key && !reachesBack(c) && compareClaims(checkpoint.last, c) < 0 && !cited.has(versionAt(c.lineage, c.occurred_at)) && !authored.has(c.lineage),
  );
}

/**
 * False when an open value has evidence in sealed blocks (`SealedEvidence`) and `added` might do
 * more than restate it: the resume knows such a value only by its last claims, so it may only
 * attach claims to it — claims of its value, none a retraction, while it is the one open value
 * (a value with sealed evidence that ended or became disputed would have to rewrite the decisions
 * and views of every claim it stood on) — and each claim must be of a lineage the value has not
 * seen, so that it adds one to the support: a new episode's own lineage, where every claim of the
 * value has its episode's own too. A compile takes whole episodes, so no claim added shares its
 * episode (its lineage) with a claim folded before; the value's last claims may be sealed, so
 * this is not checked against them.
 */
function attachesToSealedEvidence(previous: Pick<Timeline, 'values'>, checkpoint: FoldCheckpoint, added: readonly Claim[], sealed: Sealed | null, base: number): boolean {
  if (!sealed?.evidence?.length) return true;
  const partial = new Map(sealed.evidence.map((e) => [e.at, e] as const));
  if (!checkpoint.open.some(({ at }) => partial.has(at))) return true;
  if (checkpoint.open.length !== 1) return false;
  const { at } = checkpoint.open[0]!;
  const v = previous.values[at - base]!;
  if (!partial.get(at)!.plain || !v.evidence.every(plainLineage)) return false;
  const open = valueKey(v.value);
  return added.every((c) => c.op !== 'retract' && valueKey(c.value) === open && plainLineage(c));
}

/**
 * False when a claim of `added` might join a sealed overruled value: an overruled value gathers
 * the later overruled claims of its value, and the head no longer holds it to gather into. A
 * restatement of the one open value never does (it attaches to that value, whatever its
 * standing), so a key whose current value was once overruled still resumes while it is restated.
 */
function joinsNoSealedValue(previous: Pick<Timeline, 'values'>, checkpoint: FoldCheckpoint, added: readonly Claim[], sealed: Sealed | null, base: number): boolean {
  if (!sealed?.overruled?.length) return true;
  const asserts = added.filter((c) => c.op !== 'retract');
  if (checkpoint.open.length === 1 && asserts.length === added.length) {
    const open = valueKey(previous.values[checkpoint.open[0]!.at - base]!.value);
    if (asserts.every((c) => valueKey(c.value) === open)) return true;
  }
  const sealedOverruled = new Set(sealed.overruled);
  return asserts.every((c) => !sealedOverruled.has(valueKey(c.value)));
}

/**
 * The fold of the previous claims and `added`, from the previous timeline and its checkpoint
 * instead of from every claim: the open values are rebuilt from the checkpoint and the references
 * the timeline keeps, the closed ones are carried over as they stand (a claim after the checkpoint
 * never reopens one), and the walk goes on with `added`. Equal to `foldWithCheckpoint` of the
 * whole set, value for value and decision for decision (the fold properties hold the two
 * together). The caller checks `canResume` first; the policy is the key's, which the previous fold
 * used. `previous` may be a head, the timeline past its `sealed` blocks (`timelineHashes`): no
 * resumed walk touches a sealed item, and the result is then the head past the same blocks.
 */
export function resumeFold(
  previous: Timeline,
  checkpoint: FoldCheckpoint,
  added: readonly Claim[],
  policy: Policy,
  sealed: Sealed | null = null,
): { timeline: Timeline; checkpoint: FoldCheckpoint | null } {
  const ordered = orderClaims(added);
  // Places in the timeline (a checkpoint's `at`) count the sealed values; the head's do not.
  const base = sealedBase(sealed).values;
  const partial = new Map((sealed?.evidence ?? []).map((e) => [e.at, e] as const));
  const open: Array<{ at: number; entry: Entry }> = checkpoint.open.map(({ at, value, authors, historical }) => {
    const v = previous.values[at - base]!;
    // A value with evidence in sealed blocks: its first claim is named there, its support is the value's.
    const sealedEvidence = partial.get(at);
    const first = sealedEvidence?.first ?? v.evidence[0]!;
    return {
      at,
      entry: {
        // The value as its first claim spells it, members in their order (the stored timeline's
        // are sorted): a reason naming it must read as the whole fold writes it.
        value,
        vkey: valueKey(v.value),
        valid_from: v.valid_from,
        valid_to: null,
        status: v.status,
        superseded_by: null,
        ended_by: null,
        conditions: new Set(v.conditions),
        evidence: [],
        standing: v.standing,
        open: true,
        first: { source: first.source, idempotency_key: first.idempotency_key, index: first.index },
        prior: { refs: v.evidence, authors: new Map(authors), historical, ...(sealedEvidence ? { support: v.support } : {}) },
      },
    };
  });
  // An overruled value collects every later overruled claim of the same value: carried over with
  // no claims of its own, it gains only the new ones.
  const overruled = new Map<string, { at: number; entry: Entry }>();
  previous.values.forEach((v, i) => {
    if (v.status !== 'overruled') return;
    const at = base + i;
    const vkey = valueKey(v.value);
    overruled.set(vkey, {
      at,
      entry: {
        value: v.value,
        vkey,
        valid_from: v.valid_from,
        valid_to: v.valid_to,
        status: 'overruled',
        superseded_by: v.superseded_by,
        ended_by: v.ended_by,
        conditions: new Set(v.conditions),
        evidence: [],
        standing: v.standing,
        open: false,
        first: null,
      },
    });
  });
  const s = FoldState.resumed(
    policy,
    open.map((o) => o.entry),
    new Map([...overruled].map(([k, o]) => [k, o.entry])),
  );

  for (const c of ordered) foldOne(s, c);

  const still = s.open();
  for (const e of still) e.status = still.length > 1 ? 'disputed' : 'in_force';
  for (const { entry } of open) {
    if (entry.prior?.support !== undefined && entry.status !== 'in_force') throw new Error('resumeFold: a value with sealed evidence did not stay in force (canResume admits only its restatements)');
  }

  const values: TimelineValue[] = [...previous.values];
  for (const { at, entry } of open) values[at - base] = toValue(entry);
  for (const { at, entry } of overruled.values()) {
    if (entry.evidence.length === 0) continue;
    const prior = previous.values[at - base]!;
    values[at - base] = { ...prior, standing: entry.standing, ...withEvidence(prior.evidence, entry.evidence) };
  }
  const carried = open.length + overruled.size;
  const made = s.entries.slice(carried);
  for (const e of made) values.push(toValue(e));

  const fateOf = fates(s.entries);
  const decisions: Decision[] = [...previous.decisions];
  // A value the walk superseded: the claims it stood on before say so, as the whole fold writes
  // them. Their places are looked up only then (a change, not every restatement).
  const ended = open.filter(({ entry }) => entry.status === 'superseded');
  if (ended.length > 0) {
    const place = new Map<string, number>();
    previous.decisions.forEach((d, i) => place.set(refKey(d.claim), i));
    for (const { entry } of ended) {
      for (const x of entry.prior!.refs) {
        const i = place.get(refKey(x))!;
        const d = previous.decisions[i]!;
        decisions[i] = finalDecision(x, { kind: d.kind, target: d.target, reason: d.reason }, entry);
      }
    }
  }
  for (const c of ordered) decisions.push(finalDecision(c, s.decisions.get(c), fateOf.get(c)));

  const timeline: Timeline = {
    ...previous,
    values,
    decisions,
    revision: previous.revision + ordered.length,
    status_hint: timelineStatus(still.length, 'one', () => (sealed?.retracted ?? false) || values.some((v) => v.status === 'retracted')),
  };
  const at = new Map<Entry, number>();
  for (const o of open) at.set(o.entry, o.at);
  made.forEach((e, i) => at.set(e, base + previous.values.length + i));
  return { timeline, checkpoint: checkpointOf(policy, still.map((entry) => ({ at: at.get(entry)!, entry })), ordered.at(-1)!) };
}

/** A lineage at an instant, the instant as a time (its spellings agree: `compareInstants`). */
/**
 * False when a resolution among `added` names a claim of a side that its author changed since
 * (`superseded_by: 'change'`): the fold corrects such a side too (fold-one), and the checkpoint
 * holds only the open values. A claim found in no value of the head may be in a sealed block:
 * false then too, unless nothing is sealed.
 */
function settlesNoClosedSide(previous: Pick<Timeline, 'values'>, added: readonly Claim[], sealed: Sealed | null): boolean {
  const settling = added.filter((c) => c.correction && c.settles.length > 0);
  if (settling.length === 0) return true;
  const changed = new Set<string>();
  const anywhere = new Set<string>();
  for (const v of previous.values) {
    for (const x of v.evidence) {
      anywhere.add(refKey(x));
      if (v.superseded_by === 'change') changed.add(refKey(x));
    }
  }
  return settling.every((c) => c.settles.every((r) => !changed.has(refKey(r)) && (sealed === null || anywhere.has(refKey(r)))));
}

function versionAt(lineage: string, at: string): string {
  return JSON.stringify([lineage, Date.parse(at)]);
}

function refKey(r: { source: string; idempotency_key: string; index: number }): string {
  return JSON.stringify(claimRef(r));
}
