import type { MemorySystem, SystemFactory } from '../system.js';
import type { GeneratedEpisode } from '../workload.js';
import { answerFromRecords } from './recall-from-records.js';
import { digestRecords, jaccard, tokens, toRecord, type TextRecord } from './text.js';

export const JACCARD_THRESHOLD = 0.6;

/**
 * Supersession by word overlap, the rule some memory runtimes document: a new text record
 * replaces every active record of the same subject whose word set has Jaccard similarity
 * ≥ 0.6 with it. Racing writers each compare against the state they read, so neither sees
 * the other. Recall: lexical retrieval over the active records.
 */
export const jaccardSupersession: SystemFactory = {
  name: 'jaccard supersession',
  description: `a new record replaces same-subject records with word-set Jaccard ≥ ${JACCARD_THRESHOLD}; recall = lexical retrieval over active records`,
  async create(): Promise<MemorySystem> {
    let active: TextRecord[] = [];
    const merged = new Set<string>();
    let seq = 0;
    return {
      name: jaccardSupersession.name,
      async arrive(episodes: readonly GeneratedEpisode[]) {
        const before = active;
        const incoming = episodes.map((e) => toRecord(e, (seq += 1)));
        const replaced = new Set<TextRecord>();
        for (const r of incoming) {
          const t = tokens(r.text);
          for (const old of before) {
            if (old.subject !== r.subject || jaccard(t, tokens(old.text)) < JACCARD_THRESHOLD) continue;
            replaced.add(old);
            if (old.fact !== r.fact) merged.add(old.fact);
          }
        }
        active = [...before.filter((r) => !replaced.has(r)), ...incoming];
      },
      async settle() {},
      async answer(fact) {
        return answerFromRecords(active, fact);
      },
      async stateDigest() {
        return digestRecords(active);
      },
      mergedAway: () => merged,
      async close() {},
    };
  },
};
