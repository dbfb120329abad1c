import { OUTCOMES, splitOf, SPLITS, type DecisionCase, type Outcome, type Split } from './cases.js';
import { keyName, valueText, type DecisionSystem, type KeyAnswer } from './systems.js';

export type { Split } from './cases.js';

export interface CaseScore {
  id: string;
  split: Split;
  expected: Outcome;
  correct: boolean;
  /** Facts of the prior state the case expects to survive, and how many did not. */
  protected: number;
  lost: number;
  /** What the system showed, for reading a wrong decision. */
  shown: Array<{ key: string; expected: string[]; shown: string[]; flagged: boolean }>;
}

export interface Tally {
  cases: number;
  correct: number;
  protected: number;
  lost: number;
}

export interface DecisionReport {
  system: string;
  description: string;
  scores: CaseScore[];
  by_split: Record<Split, Tally & { by_outcome: Record<Outcome, Tally> }>;
  seconds: number;
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join('\u0000') === [...b].sort().join('\u0000');

/**
 * Right when every key reads as expected: one expected value is shown alone and unflagged; two
 * or more are shown together and flagged as a dispute (side by side without a flag is a silent
 * contradiction, not a dispute).
 */
export function scoreCase(c: DecisionCase, answers: readonly KeyAnswer[]): CaseScore {
  let correct = true;
  let protectedFacts = 0;
  let lost = 0;
  const priorValues = new Set(c.prior.flatMap((w) => w.claims.map((s) => `${keyName(s)}=${valueText(s.value)}`)));
  const shown = c.after.map((h, i) => {
    const a = answers[i] ?? { values: [], flagged: false };
    const expected = h.current.map(valueText);
    const ok = sameSet(expected, a.values) && a.flagged === expected.length > 1;
    if (!ok) correct = false;
    for (const v of expected) {
      if (!priorValues.has(`${keyName(h)}=${v}`)) continue;
      protectedFacts += 1;
      if (!a.values.includes(v)) lost += 1;
    }
    return { key: keyName(h), expected, shown: a.values, flagged: a.flagged };
  });
  return { id: c.id, split: splitOf(c.id), expected: c.expected, correct, protected: protectedFacts, lost, shown };
}

function tally(scores: readonly CaseScore[]): Tally {
  return {
    cases: scores.length,
    correct: scores.filter((s) => s.correct).length,
    protected: scores.reduce((n, s) => n + s.protected, 0),
    lost: scores.reduce((n, s) => n + s.lost, 0),
  };
}

export function summarize(scores: readonly CaseScore[]): DecisionReport['by_split'] {
  const split = (name: Split) => {
    const mine = scores.filter((s) => s.split === name);
    return {
      ...tally(mine),
      by_outcome: Object.fromEntries(OUTCOMES.map((o) => [o, tally(mine.filter((s) => s.expected === o))])) as Record<Outcome, Tally>,
    };
  };
  return Object.fromEntries(SPLITS.map((s) => [s, split(s)])) as DecisionReport['by_split'];
}

/** Every case through every system. */
export async function evaluateDecisions(
  systems: readonly DecisionSystem[],
  cases: readonly DecisionCase[],
  log: (msg: string) => void = () => undefined,
): Promise<DecisionReport[]> {
  const reports: DecisionReport[] = [];
  for (const system of systems) {
    const t0 = performance.now();
    const scores: CaseScore[] = [];
    for (const [i, c] of cases.entries()) {
      if (i % 50 === 0) log(`decisions: ${system.name}, case ${i + 1}/${cases.length}`);
      scores.push(scoreCase(c, await system.decide(c)));
    }
    reports.push({
      system: system.name,
      description: system.description,
      scores,
      by_split: summarize(scores),
      seconds: Math.round((performance.now() - t0) / 100) / 10,
    });
  }
  return reports;
}
