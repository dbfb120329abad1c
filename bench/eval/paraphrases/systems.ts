import { jaccard, tokens } from '../baselines/text.js';
import type { Pair } from './pairs.js';

/**
 * What a system did with the two statements of one pair, as the agent would see it on recall:
 * how many records it shows for them, and whether anything says they may be one fact.
 */
export interface PairOutcome {
  /** Records recalled for the two statements: 1 when they were collapsed into one. */
  records: number;
  /** Collapsed into one without a link or one fact key (a similarity merge). */
  merged_by_similarity: boolean;
  /** Something marks the two as possibly one fact (a candidate, a flag). */
  flagged: boolean;
  /** The flag says their values disagree (a possible contradiction, a dispute). */
  flagged_as_contradiction: boolean;
  /** Both recalled records hold a value now (neither replaced). */
  both_current: boolean;
  detail?: unknown;
}

export interface ParaphraseSystem {
  name: string;
  description: string;
  run(pair: Pair): Promise<PairOutcome>;
}

/** Every statement kept as a record; nothing compared. */
export const appendOnly: ParaphraseSystem = {
  name: 'append-only',
  description: 'every statement stored as a record; recall returns them all',
  async run() {
    return { records: 2, merged_by_similarity: false, flagged: false, flagged_as_contradiction: false, both_current: true };
  },
};

export const MERGE_THRESHOLD = 0.5;

/**
 * The rule of memory runtimes that merge on text overlap: the later statement replaces the earlier
 * when their word sets overlap enough (Jaccard ≥ 0.5). No flag: a merge is silent.
 */
export const tokenOverlapMerger: ParaphraseSystem = {
  name: 'token-overlap merge',
  description: `the later statement replaces the earlier when word-set Jaccard ≥ ${MERGE_THRESHOLD}`,
  async run(pair) {
    const merge = jaccard(tokens(pair.first.text), tokens(pair.second.text)) >= MERGE_THRESHOLD;
    return merge
      ? { records: 1, merged_by_similarity: true, flagged: false, flagged_as_contradiction: false, both_current: false }
      : { records: 2, merged_by_similarity: false, flagged: false, flagged_as_contradiction: false, both_current: true };
  },
};

function trigrams(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of tokens(text)) {
    const padded = `  ${w} `;
    for (let i = 0; i + 3 <= padded.length; i += 1) out.add(padded.slice(i, i + 3));
  }
  return out;
}

export const FLAG_THRESHOLD = 0.3;

/**
 * Flagging by trigram similarity of the whole sentences (pg_trgm's `similarity`), the way an
 * embedding-distance flagger behaves: nothing merged, any near pair flagged, and a flagged pair
 * whose sentences differ is read as a contradiction.
 */
export const trigramFlagger: ParaphraseSystem = {
  name: 'trigram flag',
  description: `flags a pair whose sentences have trigram Jaccard ≥ ${FLAG_THRESHOLD}; merges nothing`,
  async run(pair) {
    const flagged = jaccard(trigrams(pair.first.text), trigrams(pair.second.text)) >= FLAG_THRESHOLD;
    return { records: 2, merged_by_similarity: false, flagged, flagged_as_contradiction: flagged, both_current: true };
  },
};
