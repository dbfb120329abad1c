import { createHash } from 'node:crypto';
import type { MemorySystem, SystemFactory } from '../system.js';
import type { FactTruth, GeneratedEpisode } from '../workload.js';

/**
 * A key-value memory: key = (subject, predicate, qualifiers) from the structured claim, the
 * value and conditions of the last write to arrive win; a retraction deletes the key.
 * Racing writers both read the same state and both write: the later write wins whole.
 */
export const lastWriteWins: SystemFactory = {
  name: 'last-write-wins',
  description: 'one slot per (subject, predicate, qualifiers); the last write to arrive replaces value and conditions; a retraction deletes',
  async create(): Promise<MemorySystem> {
    const slots = new Map<string, { value: string; conditions: string[]; fact: string }>();
    return {
      name: lastWriteWins.name,
      async arrive(episodes: readonly GeneratedEpisode[]) {
        for (const e of episodes) {
          const c = e.episode.body.claims[0];
          if (c.op === 'retract') slots.delete(e.fact);
          else if (c.value !== undefined) slots.set(e.fact, { value: c.value, conditions: c.conditions ?? [], fact: e.fact });
        }
      },
      async settle() {},
      async answer(fact: FactTruth) {
        const slot = slots.get(fact.id);
        return { values: slot ? [slot] : [], flagged: false };
      },
      async stateDigest() {
        const lines = [...slots.entries()].map(([k, v]) => JSON.stringify([k, v.value, v.conditions])).sort();
        return createHash('sha256').update(lines.join('\n')).digest('hex');
      },
      mergedAway: () => new Set(),
      async close() {},
    };
  },
};
