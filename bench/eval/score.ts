import type { Answer } from './system.js';
import { SCENARIOS, type FactTruth, type Scenario } from './workload.js';

export interface Metrics {
  facts: number;
  /** Facts whose recall includes a value that does not hold at the instant (replaced, corrected, retracted, overruled, not yet in effect). */
  stale: number;
  /** Facts whose recall lacks a value that holds. */
  missing: number;
  /** Facts recalled with two or more different values and no conflict flag. */
  silent_contradictions: number;
  /** Facts whose recall repeats one value (the same fact shown more than once). */
  duplicates: number;
  /** Facts collapsed into another fact (their record replaced by, or their recall showing, another fact's). */
  false_merges: number;
  /** Facts whose recalled value lost a condition (or a qualifier) it holds with. */
  lost_details: number;
  true_conflicts: number;
  /** True conflicts shown as conflicts, with every side. */
  conflicts_flagged: number;
  /** Conflict flags on facts that are not in dispute. */
  false_flags: number;
  /** Facts answered exactly: right values, conditions, flag; nothing stale, duplicated or merged. */
  correct: number;
}

export interface FactScore {
  fact: string;
  scenario: Scenario;
  stale: boolean;
  missing: boolean;
  silent_contradiction: boolean;
  duplicate: boolean;
  false_merge: boolean;
  lost_detail: boolean;
  flagged_conflict: boolean;
  false_flag: boolean;
  correct: boolean;
}

export function scoreFact(truth: FactTruth, answer: Answer, mergedAway: Set<string>): FactScore {
  const truthValues = new Set(truth.current.map((c) => c.value));
  const own = answer.values.filter((v) => v.fact === truth.id);
  const recalled = new Set(own.map((v) => v.value));
  const stale = own.some((v) => !truthValues.has(v.value));
  const missing = [...truthValues].some((v) => !recalled.has(v));
  const silent = recalled.size >= 2 && !answer.flagged;
  const duplicate = own.length > new Set(own.map((v) => v.value)).size;
  const falseMerge = mergedAway.has(truth.id) || answer.values.some((v) => v.fact !== truth.id);
  const lost = truth.current.some((c) => {
    if (c.conditions.length === 0 || !recalled.has(c.value)) return false;
    const have = new Set(own.filter((v) => v.value === c.value).flatMap((v) => v.conditions));
    return c.conditions.some((x) => !have.has(x));
  });
  const flaggedConflict = truth.conflict && answer.flagged && !missing;
  const falseFlag = !truth.conflict && answer.flagged;
  const correct = !stale && !missing && !silent && !duplicate && !falseMerge && !lost && !falseFlag && (!truth.conflict || flaggedConflict);
  return {
    fact: truth.id,
    scenario: truth.scenario,
    stale,
    missing,
    silent_contradiction: silent,
    duplicate,
    false_merge: falseMerge,
    lost_detail: lost,
    flagged_conflict: flaggedConflict,
    false_flag: falseFlag,
    correct,
  };
}

export function summarize(truths: readonly FactTruth[], scores: readonly FactScore[]): Metrics {
  const count = (f: (s: FactScore) => boolean) => scores.filter(f).length;
  return {
    facts: scores.length,
    stale: count((s) => s.stale),
    missing: count((s) => s.missing),
    silent_contradictions: count((s) => s.silent_contradiction),
    duplicates: count((s) => s.duplicate),
    false_merges: count((s) => s.false_merge),
    lost_details: count((s) => s.lost_detail),
    true_conflicts: truths.filter((t) => t.conflict).length,
    conflicts_flagged: count((s) => s.flagged_conflict),
    false_flags: count((s) => s.false_flag),
    correct: count((s) => s.correct),
  };
}

/** Facts answered exactly, per scenario. */
export function correctByScenario(scores: readonly FactScore[]): Record<Scenario, { correct: number; facts: number }> {
  const out = Object.fromEntries(SCENARIOS.map((s) => [s, { correct: 0, facts: 0 }])) as Record<Scenario, { correct: number; facts: number }>;
  for (const s of scores) {
    out[s.scenario].facts += 1;
    if (s.correct) out[s.scenario].correct += 1;
  }
  return out;
}
