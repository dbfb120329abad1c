import type { SystemFactory } from './system.js';
import { correctByScenario, scoreFact, summarize, type FactScore, type Metrics } from './score.js';
import { arrivalOrders, type Scenario, type Workload } from './workload.js';

export interface SystemReport {
  system: string;
  description: string;
  /** Metrics in the natural arrival order. */
  metrics: Metrics;
  /** Metrics in every arrival order (the natural one first). */
  per_order: Metrics[];
  /** The worst count of each metric over all orders. */
  worst: Metrics;
  orders: number;
  distinct_states: number;
  state_equal_across_orders: boolean;
  correct_by_scenario: Record<Scenario, { correct: number; facts: number }>;
  /** Facts answered wrongly in the natural order: how many, and the first few for reading. */
  wrong_count: number;
  wrong: FactScore[];
  seconds: number;
}

/** Runs the workload in `orders` arrival orders through each system and scores every fact. */
export async function evaluate(
  systems: readonly SystemFactory[],
  workload: Workload,
  orders: number,
  log: (msg: string) => void = () => undefined,
  runTag = `${Date.now().toString(36)}`,
): Promise<SystemReport[]> {
  const sequences = arrivalOrders(workload, orders);
  const reports: SystemReport[] = [];
  for (const factory of systems) {
    const t0 = performance.now();
    const perOrder: Metrics[] = [];
    const digests = new Set<string>();
    let natural: FactScore[] = [];
    for (let o = 0; o < sequences.length; o += 1) {
      log(`eval: ${factory.name}, arrival order ${o + 1}/${sequences.length}`);
      const system = await factory.create(`${runTag}-${workload.seed}-o${o}`);
      try {
        for (const arrival of sequences[o]!) await system.arrive(arrival);
        await system.settle();
        const scores: FactScore[] = [];
        for (const truth of workload.facts) scores.push(scoreFact(truth, await system.answer(truth, workload.at), system.mergedAway()));
        perOrder.push(summarize(workload.facts, scores));
        digests.add(await system.stateDigest());
        if (o === 0) natural = scores;
      } finally {
        await system.close();
      }
    }
    const worst = Object.fromEntries(
      Object.keys(perOrder[0]!).map((k) => {
        const key = k as keyof Metrics;
        const values = perOrder.map((m) => m[key]);
        // "Worst" is the highest count, except for what should be high.
        return [k, key === 'correct' || key === 'conflicts_flagged' ? Math.min(...values) : Math.max(...values)];
      }),
    ) as unknown as Metrics;
    reports.push({
      system: factory.name,
      description: factory.description,
      metrics: perOrder[0]!,
      per_order: perOrder,
      worst,
      orders: sequences.length,
      distinct_states: digests.size,
      state_equal_across_orders: digests.size === 1,
      correct_by_scenario: correctByScenario(natural),
      wrong_count: natural.filter((s) => !s.correct).length,
      wrong: natural.filter((s) => !s.correct).slice(0, 20),
      seconds: Math.round((performance.now() - t0) / 100) / 10,
    });
  }
  return reports;
}
