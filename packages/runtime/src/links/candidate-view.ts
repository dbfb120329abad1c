import { NOTE_PREDICATE, shownCandidates, valueKey, view, type CandidateRef, type Json, type Timeline } from '@canon/core';

/**
 * How a candidate reads at an instant (design §1, law 3). Computed on read from both memories'
 * views, so a candidate whose values later agree or part needs no compile to say so:
 * - `possible_contradiction`: both hold values and they differ — shown like a dispute;
 * - `possible_duplicate`: both hold the same values (or, for notes, the same words);
 * - `candidate`: one of them holds nothing at that instant, or — standing first — the other's
 *   values stand below every value this one holds: had a link made them one memory, the other's
 *   would be overruled, so it cannot put this one in doubt (from the other side the pair is still a
 *   `possible_contradiction`).
 */
export type CandidateKind = 'possible_contradiction' | 'possible_duplicate' | 'candidate';

export interface CandidateView {
  memory_id: string;
  predicate: string;
  qualifiers: Record<string, string>;
  score: number;
  reason: string;
  kind: CandidateKind;
  /** This memory's values at the instant, then the candidate's. */
  values: unknown[];
  other_values: unknown[];
  /** One side states what the other negates ("allowed on Fridays" / "no longer allowed on Fridays"). */
  opposite?: true;
  proposed?: CandidateRef['proposed'];
}

/**
 * One memory as a candidate comparison needs it at an instant: its key's wording and the values
 * it holds then (both sides of a dispute). Built from a timeline, or from a stored summary when
 * the instant is past the last change of the timeline.
 */
export interface CandidateSide {
  predicate: string;
  qualifiers: Record<string, string>;
  values: Json[];
  /** The standing of each held value; null when not known (a side stored before it was kept). */
  standings: number[] | null;
}

export function sideOf(t: Timeline, at: string): CandidateSide {
  const { values, standings } = held(t, at);
  return { predicate: t.fact_key.predicate, qualifiers: t.fact_key.qualifiers, values, standings };
}

// A memory of many candidates is asked for its values once per candidate: compute its view once.
const heldCache = new WeakMap<Timeline, { at: string; values: Json[]; standings: number[] }>();

function held(t: Timeline, at: string): { values: Json[]; standings: number[] } {
  const hit = heldCache.get(t);
  if (hit && hit.at === at) return hit;
  const v = view(t, at);
  const list = v.status === 'conflicted' ? v.conflict : v.status === 'current' ? v.current : [];
  const entry = { at, values: list.map((c) => c.value), standings: list.map((c) => c.standing) };
  heldCache.set(t, entry);
  return entry;
}

/** Whether every value `other` holds stands below every value `self` holds (both known). */
export function standsBelow(other: CandidateSide, self: CandidateSide): boolean {
  if (!other.standings || !self.standings || other.standings.length === 0 || self.standings.length === 0) return false;
  return Math.max(...other.standings) < Math.min(...self.standings);
}

export function candidateKind(self: CandidateSide, other: CandidateSide, ref: Pick<CandidateRef, 'score' | 'opposite' | 'proposed'>): { kind: CandidateKind; values: Json[]; other_values: Json[] } {
  const values = self.values;
  const other_values = other.values;
  const score = ref.score;
  if (values.length === 0 || other_values.length === 0) return { kind: 'candidate', values, other_values };
  // A pair only a proposal names (a link below the standing links need, nothing near in the words):
  // shown with its proposal, never a possible contradiction — an agent's proposed link put two
  // owner facts in doubt. Whoever has the standing links need makes them one by linking.
  if (ref.proposed && ref.score === 0) return { kind: 'candidate', values, other_values };
  // Standing first: what stands below this memory's every value cannot put it in doubt.
  if (standsBelow(other, self)) return { kind: 'candidate', values, other_values };
  // One states what the other denies: whatever the values, they cannot both hold.
  if (ref.opposite) return { kind: 'possible_contradiction', values, other_values };
  // A note's value is its own wording, so values always differ: the words decide instead.
  if (self.predicate === NOTE_PREDICATE && other.predicate === NOTE_PREDICATE) {
    return { kind: score >= 0.99 ? 'possible_duplicate' : 'possible_contradiction', values, other_values };
  }
  const a = new Set(values.map(valueKey));
  const b = new Set(other_values.map(valueKey));
  const same = a.size === b.size && [...a].every((k) => b.has(k));
  return { kind: same ? 'possible_duplicate' : 'possible_contradiction', values, other_values };
}

/**
 * The candidates of one memory as seen at one instant: those of its shown refs
 * (`shownCandidates`) the reader can see.
 */
export function candidateViews(self: CandidateSide, refs: readonly CandidateRef[] | null | undefined, others: ReadonlyMap<string, CandidateSide>): CandidateView[] {
  const out: CandidateView[] = [];
  for (const ref of shownCandidates(refs)) {
    const other = others.get(ref.memory_id);
    if (!other) continue;
    out.push({
      memory_id: ref.memory_id,
      predicate: other.predicate,
      qualifiers: other.qualifiers,
      score: ref.score,
      reason: ref.reason,
      ...candidateKind(self, other, ref),
      ...(ref.opposite ? { opposite: true as const } : {}),
      ...(ref.proposed ? { proposed: ref.proposed } : {}),
    });
  }
  return out;
}

/** The ids of the memories a memory's shown candidates name: what a reader reads the sides of. */
export function shownCandidateIds(rows: Iterable<{ candidates?: readonly CandidateRef[] | null }>): string[] {
  const ids = new Set<string>();
  for (const r of rows) for (const c of shownCandidates(r.candidates)) ids.add(c.memory_id);
  return [...ids];
}

/** A memory's values at an instant (or both sides of a dispute): what a candidate compares. */
export function heldValuesAt(t: Timeline, at: string): Json[] {
  return held(t, at).values;
}
