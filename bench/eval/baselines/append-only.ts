import type { MemorySystem, SystemFactory } from '../system.js';
import type { GeneratedEpisode } from '../workload.js';
import { answerFromRecords } from './recall-from-records.js';
import { digestRecords, toRecord, type TextRecord } from './text.js';

/** Every delivery appended as a text record; recall by lexical retrieval. Nothing is ever replaced. */
export const appendOnly: SystemFactory = {
  name: 'append-only + lexical',
  description: 'every delivery stored as a text record; recall = lexical retrieval within the subject; nothing replaced or merged',
  async create(): Promise<MemorySystem> {
    const records: TextRecord[] = [];
    let seq = 0;
    return {
      name: appendOnly.name,
      async arrive(episodes: readonly GeneratedEpisode[]) {
        for (const e of episodes) records.push(toRecord(e, (seq += 1)));
      },
      async settle() {},
      async answer(fact) {
        return answerFromRecords(records, fact);
      },
      async stateDigest() {
        return digestRecords(records);
      },
      mergedAway: () => new Set(),
      async close() {},
    };
  },
};
