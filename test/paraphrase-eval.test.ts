import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';
import { canonParaphrases } from '../bench/eval/paraphrases/canon.js';
import type { Pair } from '../bench/eval/paraphrases/pairs.js';
import type { ParaphraseSystem } from '../bench/eval/paraphrases/systems.js';

// How `npm run eval` scores Canon on a paraphrase pair (bench/eval/paraphrases/canon.ts), through
// the HTTP app: what counts as one record, a merge, a flag. The pairs are written here, not taken
// from the splits, so no held-out text is read by the suite.
let canon: TestCanon;
let system: ParaphraseSystem;
beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  const key = (await canon.runtime.createKey({ workspace: 'paraphrases', role: 'member', user: 'eval' })).key;
  system = canonParaphrases({ request: async (path, init) => canon.app.request(path, init), key }, 'suite');
}, 120_000);
afterAll(() => canon.close());

let n = 0;
function pair(kind: Pair['kind'], first: string, second: string): Pair {
  n += 1;
  return {
    id: `p-a-${String(n).padStart(3, '0')}`,
    kind,
    subject: `team:eval-${n}`,
    topic: 'suite',
    first: { text: first, occurred_at: '2026-11-01T09:00:00Z' },
    second: { text: second, occurred_at: '2026-11-05T09:00:00Z' },
    genre: 'slack message',
    why: 'written for the suite',
  };
}

describe('the paraphrase evaluation through the HTTP API', () => {
  it('does not count a shared sentence without a value as a merge of the two facts', async () => {
    const o = await system.run(pair('different', 'Heads up. The staging pool allows 20 connections.', 'Heads up. The production pool allows 20 connections.'));
    expect(o.records).toBe(2);
    expect(o.flagged).toBe(false);
    // The note is there, held by both statements; the two facts are apart.
    const memories = (o.detail as { memories: Array<{ predicate: string; from: number[] }> }).memories;
    expect(memories.map((m) => [m.predicate === 'note', m.from])).toEqual(
      expect.arrayContaining([
        [true, [1, 2]],
        [false, [1]],
        [false, [2]],
      ]),
    );
  });

  it("takes a statement's note as its record when its value was read as a date of the statement", async () => {
    // "as of <date>" dates the statement: the first holds no value, only a note.
    const o = await system.run(pair('different', 'Heads up. The legacy relay is deprecated as of 2026-09-01.', 'Heads up. The legacy relay is shut down on 2026-11-30.'));
    expect(o.records).toBeGreaterThan(1);
    const memories = (o.detail as { memories: Array<{ predicate: string; from: number[] }> }).memories;
    expect(memories.filter((m) => m.predicate !== 'note').map((m) => m.from)).toEqual([[2]]);
  });

  it('counts two sentences the same but for the value as one record: one fact key', async () => {
    const o = await system.run(pair('different', 'The office is closed on December 24.', 'The office is closed on December 31.'));
    expect(o.records).toBe(1);
  });

  it('flags a paraphrased contradiction as a possible contradiction, both still current', async () => {
    const o = await system.run(pair('contradiction', 'The staging deploy runs on Tuesday.', 'Staging deploys now happen on Thursday.'));
    expect({ records: o.records, flagged: o.flagged_as_contradiction, both_current: o.both_current }).toEqual({ records: 2, flagged: true, both_current: true });
  });
});
