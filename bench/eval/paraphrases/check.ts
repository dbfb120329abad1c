import { maskSlots } from '@canon/core';
import { KINDS, SPLITS, loadPairs, type Pair, type PairSplit } from './pairs.js';

/**
 * Validates the pair files and the slot rule (README, "The slot rule"): every statement holds
 * exactly one value the slot extractor masks; both statements of a duplicate or a contradiction
 * hold the same kind of value; a duplicate's two values read the same, a contradiction's differ
 * (unless it is a negation); no sentence appears in two splits. Prints the counts per split and
 * kind.
 *
 *   npx tsx bench/eval/paraphrases/check.ts [a|b|c]
 */
const arg = process.argv[2];
const splits: readonly PairSplit[] = arg === undefined ? SPLITS : [arg as PairSplit];
const timeZone = 'UTC';
const problems: string[] = [];

function slotOf(pair: Pair, side: 'first' | 'second') {
  const s = pair[side];
  const { slots } = maskSlots(s.text, { occurredAt: s.occurred_at, timeZone });
  if (slots.length !== 1) {
    problems.push(`${pair.id} ${side}: ${slots.length} slots (${slots.map((x) => `${x.type}:${x.text}`).join(', ')}) in "${s.text}"`);
  }
  return slots[0];
}

/** A sentence used in two pairs keeps both in one split, so none reaches c through a or b. */
const seenIn = new Map<string, PairSplit>();
function sentenceSplit(pair: Pair, split: PairSplit): void {
  for (const side of [pair.first, pair.second]) {
    const key = side.text.toLowerCase().replace(/[^a-z0-9 ]/g, '').trim();
    const other = seenIn.get(key);
    if (other !== undefined && other !== split) problems.push(`${pair.id}: "${side.text}" is also in split ${other}`);
    seenIn.set(key, split);
  }
}

const table: Record<string, Record<string, number>> = {};
const genres = new Set<string>();
const topics = new Set<string>();
for (const split of splits) {
  const row: Record<string, number> = { duplicate: 0, contradiction: 0, different: 0, negation: 0, 'different, same slot kind': 0 };
  for (const pair of loadPairs(split)) {
    row[pair.kind]! += 1;
    if (pair.negation) row.negation! += 1;
    sentenceSplit(pair, split);
    genres.add(pair.genre);
    topics.add(pair.topic);
    const a = slotOf(pair, 'first');
    const b = slotOf(pair, 'second');
    if (!a || !b) continue;
    if (pair.kind === 'different') {
      if (a.type === b.type) row['different, same slot kind']! += 1;
      continue;
    }
    if (a.type !== b.type) problems.push(`${pair.id}: slot kinds differ (${a.type} / ${b.type})`);
    const same = a.value === b.value;
    if (pair.kind === 'duplicate' && !same) problems.push(`${pair.id}: duplicate with values ${a.value} / ${b.value}`);
    if (pair.kind === 'contradiction' && !pair.negation && same) problems.push(`${pair.id}: contradiction with one value ${a.value}`);
    if (pair.negation && !same) problems.push(`${pair.id}: negation with values ${a.value} / ${b.value}`);
  }
  table[split] = row;
}
console.table(table);
console.log(`${KINDS.join(' / ')}; ${genres.size} genres, ${topics.size} topics`);
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exitCode = 1;
}
