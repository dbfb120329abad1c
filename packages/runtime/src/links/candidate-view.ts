import { NOTE_PREDICATE, valueKey, view, type CandidateRef, type Json, type Timeline } from '@canon/core';

/**
 * How a candidate reads at an instant (design §1, law 3). Computed on read from both memories'
 * views, so a candidate whose values later agree or part needs no compile to say so:
 * - `possible_contradiction`: both hold values and they differ — shown like a dispute;
 * - `possible_duplicate`: both hold the same values (or, for notes, the same words);
 * - `candidate`: one of them holds nothing at that instant.
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
  proposed?: CandidateRef['proposed'];
}

// Recall of a subject asks for each memory's values once per candidate: a memory of many
// candidates would otherwise compute its view many times per read.
const heldCache = new WeakMap<Timeline, { at: string; values: Json[] }>();

function heldValues(t: Timeline, at: string): Json[] {
  const hit = heldCache.get(t);
  if (hit && hit.at === at) return hit.values;
  const values = computeHeld(t, at);
  heldCache.set(t, { at, values });
  return values;
}

function computeHeld(t: Timeline, at: string): Json[] {
  const v = view(t, at);
  if (v.status === 'conflicted') return v.conflict.map((c) => c.value);
  if (v.status === 'current') return v.current.map((c) => c.value);
  return [];
}

export function candidateKind(self: Timeline, other: Timeline, ref: Pick<CandidateRef, 'score' | 'opposite'>, at: string): { kind: CandidateKind; values: Json[]; other_values: Json[] } {
  const values = heldValues(self, at);
  const other_values = heldValues(other, at);
  const score = ref.score;
  if (values.length === 0 || other_values.length === 0) return { kind: 'candidate', values, other_values };
  // One states what the other denies: whatever the values, they cannot both hold.
  if (ref.opposite) return { kind: 'possible_contradiction', values, other_values };
  // A note's value is its own wording, so values always differ: the words decide instead.
  if (self.fact_key.predicate === NOTE_PREDICATE && other.fact_key.predicate === NOTE_PREDICATE) {
    return { kind: score >= 0.99 ? 'possible_duplicate' : 'possible_contradiction', values, other_values };
  }
  const a = new Set(values.map(valueKey));
  const b = new Set(other_values.map(valueKey));
  const same = a.size === b.size && [...a].every((k) => b.has(k));
  return { kind: same ? 'possible_duplicate' : 'possible_contradiction', values, other_values };
}

/** The candidates of one memory as seen at `at`; a candidate the reader cannot see is left out. */
export function candidateViews(self: Timeline, refs: readonly CandidateRef[] | undefined, others: ReadonlyMap<string, Timeline>, at: string): CandidateView[] {
  const out: CandidateView[] = [];
  for (const ref of refs ?? []) {
    const other = others.get(ref.memory_id);
    if (!other) continue;
    out.push({
      memory_id: ref.memory_id,
      predicate: other.fact_key.predicate,
      qualifiers: other.fact_key.qualifiers,
      score: ref.score,
      reason: ref.reason,
      ...candidateKind(self, other, ref, at),
      ...(ref.proposed ? { proposed: ref.proposed } : {}),
    });
  }
  return out;
}

/** A memory's values at an instant (or both sides of a dispute): what a candidate compares. */
export function heldValuesAt(t: Timeline, at: string): Json[] {
  return heldValues(t, at);
}
