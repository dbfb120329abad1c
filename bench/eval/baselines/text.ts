import { createHash } from 'node:crypto';
import type { GeneratedEpisode } from '../workload.js';

/** A stored text memory: the sentence, and the claim the evaluator reads it as. */
export interface TextRecord {
  seq: number;
  subject: string;
  text: string;
  fact: string;
  value: string | undefined;
  conditions: string[];
  retraction: boolean;
}

export function toRecord(e: GeneratedEpisode, seq: number): TextRecord {
  const c = e.episode.body.claims[0];
  return {
    seq,
    subject: e.episode.subject,
    text: c.text,
    fact: e.fact,
    value: c.value,
    conditions: c.conditions ?? [],
    retraction: c.op === 'retract',
  };
}

/** Lower-cased words of letters and digits. */
export function tokens(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[^\p{L}\p{N}#.-]+/u)
      .map((w) => w.replace(/^[.-]+|[.-]+$/g, ''))
      .filter((w) => w.length > 0),
  );
}

export function jaccard(a: Set<string>, b: Set<string>): number {
  let inter = 0;
  for (const w of a) if (b.has(w)) inter += 1;
  const union = a.size + b.size - inter;
  return union === 0 ? 1 : inter / union;
}

/**
 * Lexical retrieval within a subject: records sharing at least half of the query's words
 * (the predicate, the qualifier values), best first, at most 10.
 */
export function retrieve(records: readonly TextRecord[], subject: string, query: string): TextRecord[] {
  const q = tokens(query);
  return records
    .filter((r) => r.subject === subject)
    .map((r) => {
      const t = tokens(r.text);
      let hit = 0;
      for (const w of q) if (t.has(w)) hit += 1;
      return { r, score: hit / Math.max(1, q.size) };
    })
    .filter((x) => x.score >= 0.5)
    .sort((a, b) => b.score - a.score || b.r.seq - a.r.seq)
    .slice(0, 10)
    .map((x) => x.r);
}

export function digestRecords(records: readonly TextRecord[]): string {
  const lines = records.map((r) => JSON.stringify([r.subject, r.text, r.fact, r.value ?? null, r.conditions, r.retraction])).sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}
