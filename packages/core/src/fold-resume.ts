import type { Claim } from './claim.js';
import { valueKey } from './normalize.js';
import type { Policy } from './policy.js';
import { compareClaims, orderClaims } from './order.js';
import type { Decision, Timeline, TimelineValue } from './timeline.js';
import { FoldState } from './fold-state.js';
import type { Entry } from './fold-state.js';
import { foldOne } from './fold-one.js';
import { checkpointOf, evidenceRef, fates, finalDecision, reachesBack, timelineStatus, toValue, type FoldCheckpoint } from './fold.js';

/**
 * True when `added` may be folded from `checkpoint` (docs/scaling.md, "A key restated without
 * end"): every claim is on the key, sorts after the last claim folded, and reaches no further back
 * than the open values (`reachesBack`). Anything else is folded from all of the key's claims.
 */
export function canResume(previous: Pick<Timeline, 'key' | 'policy'>, checkpoint: FoldCheckpoint, added: readonly Claim[]): boolean {
  if (added.length === 0 || previous.policy.cardinality !== 'one') return false;
  return added.every((c) => c.key === previous.key && !reachesBack(c) && compareClaims(checkpoint.last, c) < 0);
}

/**
 * The fold of the previous claims and `added`, from the previous timeline and its checkpoint
 * instead of from every claim: the open values are rebuilt from the checkpoint's claims, the
 * closed ones are carried over as they stand (a claim after the checkpoint never reopens one),
 * and the walk goes on with `added`. Equal to `foldWithCheckpoint` of the whole set, value for
 * value and decision for decision (the fold properties hold the two together). The caller checks
 * `canResume` first; the policy is the key's, which the previous fold used.
 */
export function resumeFold(
  previous: Timeline,
  checkpoint: FoldCheckpoint,
  added: readonly Claim[],
  policy: Policy,
): { timeline: Timeline; checkpoint: FoldCheckpoint | null } {
  const ordered = orderClaims(added);
  const open: Array<{ at: number; entry: Entry }> = checkpoint.open.map(({ at, evidence }) => {
    const v = previous.values[at]!;
    return {
      at,
      entry: {
        // The value as its first claim spells it, members in their order (the stored timeline's
        // are sorted): a reason naming it must read as the whole fold writes it.
        value: evidence[0]!.value,
        vkey: valueKey(v.value),
        valid_from: v.valid_from,
        valid_to: null,
        status: v.status,
        superseded_by: null,
        ended_by: null,
        conditions: new Set(v.conditions),
        evidence: [...evidence],
        standing: v.standing,
        open: true,
        first: evidence[0]!,
      },
    };
  });
  // An overruled value collects every later overruled claim of the same value: carried over with
  // no claims of its own, it gains only the new ones.
  const overruled = new Map<string, { at: number; entry: Entry }>();
  previous.values.forEach((v, at) => {
    if (v.status !== 'overruled') return;
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

  // Where each claim's decision stands: the checkpoint's claims where they were, the new ones after.
  const decisionAt = new Map<Claim, number>();
  for (const o of checkpoint.open) {
    o.evidence.forEach((c, i) => {
      decisionAt.set(c, o.decisions[i]!);
      const d = previous.decisions[o.decisions[i]!]!;
      s.decisions.set(c, { kind: d.kind, target: d.target, reason: d.reason });
    });
  }
  ordered.forEach((c, i) => decisionAt.set(c, previous.decisions.length + i));

  for (const c of ordered) foldOne(s, c);

  const still = s.open();
  for (const e of still) e.status = still.length > 1 ? 'disputed' : 'in_force';

  const values: TimelineValue[] = [...previous.values];
  for (const { at, entry } of open) values[at] = toValue(entry);
  for (const { at, entry } of overruled.values()) {
    if (entry.evidence.length === 0) continue;
    // The new claims sort after every claim the value already cites: its evidence stays in order.
    const prior = previous.values[at]!;
    const evidence = [...prior.evidence, ...entry.evidence.map(evidenceRef)];
    values[at] = { ...prior, standing: entry.standing, support: new Set(evidence.map((x) => x.lineage)).size, evidence };
  }
  const carried = open.length + overruled.size;
  const made = s.entries.slice(carried);
  for (const e of made) values.push(toValue(e));

  const fateOf = fates(s.entries);
  const decisions: Decision[] = [...previous.decisions];
  for (const o of checkpoint.open) for (const c of o.evidence) decisions[decisionAt.get(c)!] = finalDecision(c, s.decisions.get(c), fateOf.get(c));
  for (const c of ordered) decisions.push(finalDecision(c, s.decisions.get(c), fateOf.get(c)));

  const timeline: Timeline = {
    ...previous,
    values,
    decisions,
    revision: previous.revision + ordered.length,
    status_hint: timelineStatus(still.length, 'one', () => values.some((v) => v.status === 'retracted')),
  };
  const at = new Map<Entry, number>();
  for (const o of open) at.set(o.entry, o.at);
  made.forEach((e, i) => at.set(e, previous.values.length + i));
  return {
    timeline,
    checkpoint: checkpointOf(
      policy,
      still.map((entry) => ({ at: at.get(entry)!, entry })),
      ordered.at(-1)!,
      (c) => decisionAt.get(c)!,
    ),
  };
}
