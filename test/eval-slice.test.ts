import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';
import { canonSystem } from '../bench/eval/canon-system.js';
import { evaluate, type SystemReport } from '../bench/eval/evaluate.js';
import { generateWorkload, SCENARIOS } from '../bench/eval/workload.js';

// A slice of `npm run eval` (bench/eval): every scenario eight times (264 deliveries),
// through the HTTP app in two arrival orders. The ground truth comes from the generator.
const workload = generateWorkload(7, 8);

let canon: TestCanon;
let report: SystemReport;
beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  const system = canonSystem({
    request: async (path, init) => canon.app.request(path, init),
    createKey: async (workspace, role, user) => (await canon.runtime.createKey({ workspace, role, ...(user ? { user } : {}) })).key,
  });
  report = (await evaluate([system], workload, 2))[0]!;
}, 240_000);
afterAll(() => canon.close());

describe('the evaluation slice through the HTTP API', () => {
  it('covers every scenario with a few hundred deliveries', () => {
    expect(new Set(workload.facts.map((f) => f.scenario))).toEqual(new Set(SCENARIOS));
    expect(workload.episodes.length).toBeGreaterThanOrEqual(200);
    expect(report.metrics.facts).toBe(workload.facts.length);
  });

  it('recalls nothing stale, no silent contradiction, no duplicate and no false merge, in either order', () => {
    for (const m of report.per_order) {
      expect({ stale: m.stale, silent: m.silent_contradictions, duplicates: m.duplicates, merges: m.false_merges }).toEqual({
        stale: 0,
        silent: 0,
        duplicates: 0,
        merges: 0,
      });
    }
    expect(report.wrong).toEqual([]);
  });

  it('flags every true conflict and keeps every condition', () => {
    expect(report.metrics.true_conflicts).toBeGreaterThan(0);
    expect(report.metrics.conflicts_flagged).toBe(report.metrics.true_conflicts);
    expect(report.metrics.lost_details).toBe(0);
  });

  it('reaches the same state_hash for every subject in both arrival orders', () => {
    expect(report.orders).toBe(2);
    expect(report.distinct_states).toBe(1);
  });
});
