import fs from 'node:fs';
import path from 'node:path';
import { maskSlots } from '@canon/core';
import type { Runtime } from '@canon/runtime';
import { pool, RESULTS, withServedRuntime } from '../../harness.js';
import { canonParaphrases } from './canon.js';
import { SPLITS, isHeldOut, loadPairs, type Pair, type PairSplit } from './pairs.js';
import { appendOnly, tokenOverlapMerger, trigramFlagger, type PairOutcome, type ParaphraseSystem } from './systems.js';

export const SECTION = '## Paraphrases: candidates and links';

export interface ParaphraseMetrics {
  pairs: number;
  contradictions: number;
  /** Contradiction pairs both recalled as current with nothing flagging them. */
  silent_contradictions: number;
  /** Contradiction pairs flagged (a possible contradiction or a dispute) or resolved on one key. */
  contradictions_flagged: number;
  negations: number;
  negations_flagged: number;
  duplicates: number;
  /** Duplicate pairs recalled as two records, nothing saying they may be one fact. */
  duplicates_recalled_twice: number;
  different: number;
  /** Different-facts pairs flagged as candidates. */
  false_candidates: number;
  /** Pairs collapsed into one record with no link: different facts lost one of them. */
  false_merges: number;
  /**
   * Different-facts pairs whose two sentences are the same but for the value ("The office is
   * closed on December 24." / "… December 31."): one template, so one fact key (design §3, the
   * value is outside the key), where the later statement of the same author is a change.
   */
  different_worded_alike: number;
  /** False merges among those: identity by the same wording, not similarity. */
  false_merges_worded_alike: number;
}

/** A statement's wording with its value masked, as the extractor's template reads before cues are taken out. */
function wordingOf(s: Pair['first']): string {
  return maskSlots(s.text, { occurredAt: s.occurred_at, timeZone: 'UTC' }).template.replace(/[\s.!;:,]+$/u, '');
}

function score(pairs: readonly Pair[], outcomes: ReadonlyMap<string, PairOutcome>): ParaphraseMetrics {
  const m: ParaphraseMetrics = {
    pairs: pairs.length,
    contradictions: 0,
    silent_contradictions: 0,
    contradictions_flagged: 0,
    negations: 0,
    negations_flagged: 0,
    duplicates: 0,
    duplicates_recalled_twice: 0,
    different: 0,
    false_candidates: 0,
    false_merges: 0,
    different_worded_alike: 0,
    false_merges_worded_alike: 0,
  };
  for (const p of pairs) {
    const o = outcomes.get(p.id)!;
    if (p.kind === 'contradiction') {
      m.contradictions += 1;
      const silent = o.records === 2 && o.both_current && !o.flagged_as_contradiction;
      if (silent) m.silent_contradictions += 1;
      const flagged = o.flagged_as_contradiction || o.records === 1;
      if (flagged) m.contradictions_flagged += 1;
      if (p.negation) {
        m.negations += 1;
        if (flagged) m.negations_flagged += 1;
      }
    } else if (p.kind === 'duplicate') {
      m.duplicates += 1;
      if (o.records === 2 && !o.flagged) m.duplicates_recalled_twice += 1;
    } else {
      m.different += 1;
      if (o.flagged) m.false_candidates += 1;
      if (o.records === 1) m.false_merges += 1;
      if (wordingOf(p.first) === wordingOf(p.second)) {
        m.different_worded_alike += 1;
        if (o.records === 1) m.false_merges_worded_alike += 1;
      }
    }
  }
  return m;
}

export interface SystemResult {
  system: string;
  description: string;
  by_split: Record<string, ParaphraseMetrics>;
  outcomes: Record<string, PairOutcome>;
}

/** The splits of a run that are not held out: scored together as development data. */
function developmentSplits(splits: readonly PairSplit[]): PairSplit[] {
  return splits.filter((s) => !isHeldOut(s));
}

/** The held-out splits of a run, scored together: the unseen third. */
function heldOutSplits(splits: readonly PairSplit[]): PairSplit[] {
  return splits.filter(isHeldOut);
}

/** A group of splits as the report names it: `a+b+c`, or the one split. */
const groupName = (splits: readonly PairSplit[]) => splits.join('+');

export async function evaluateParaphrases(systems: readonly ParaphraseSystem[], splits: readonly PairSplit[], log: (msg: string) => void): Promise<SystemResult[]> {
  const bySplit = new Map(splits.map((s) => [s, loadPairs(s)] as const));
  const all = [...bySplit.values()].flat();
  const results: SystemResult[] = [];
  for (const system of systems) {
    const outcomes = new Map<string, PairOutcome>();
    const t0 = performance.now();
    await pool(all, 4, async (pair) => {
      outcomes.set(pair.id, await system.run(pair));
    });
    log(`${system.name}: ${all.length} pairs in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const by_split: Record<string, ParaphraseMetrics> = {};
    for (const [s, pairs] of bySplit) by_split[s] = score(pairs, outcomes);
    for (const group of [developmentSplits(splits), heldOutSplits(splits)])
      if (group.length > 1) by_split[groupName(group)] = score(group.flatMap((s) => bySplit.get(s)!), outcomes);
    results.push({ system: system.name, description: system.description, by_split, outcomes: Object.fromEntries(outcomes) });
  }
  return results;
}

const pct = (n: number, d: number) => (d === 0 ? '—' : `${n} (${Math.round((100 * n) / d)}%)`);

export function paraphraseMarkdown(results: readonly SystemResult[], groups: readonly string[]): string {
  const rows: Array<[string, (m: ParaphraseMetrics) => string]> = [
    ['contradictions flagged (target ≥ 90%)', (m) => pct(m.contradictions_flagged, m.contradictions)],
    ['silent contradictions', (m) => pct(m.silent_contradictions, m.contradictions)],
    ['… of them negations, flagged', (m) => `${m.negations_flagged} / ${m.negations}`],
    ['duplicates recalled twice', (m) => pct(m.duplicates_recalled_twice, m.duplicates)],
    ['false candidates (target ≤ 10%)', (m) => pct(m.false_candidates, m.different)],
    ['false merges (target 0)', (m) => pct(m.false_merges, m.different)],
    ['… of them two sentences the same but for the value: one fact key (design §3)', (m) => `${m.false_merges_worded_alike} (of ${m.different_worded_alike} such pairs)`],
  ];
  const out: string[] = [SECTION, ''];
  for (const g of groups) {
    const any = results[0]?.by_split[g];
    if (!any) continue;
    const held = g.split('+').every((s) => isHeldOut(s as PairSplit));
    const plural = g.length > 1 ? 's' : '';
    const label = held ? `held-out split${plural} ${g} (written after the rules, by people who had read none of them)` : `development split${plural} ${g}`;
    out.push(`### ${label}: ${any.pairs} pairs (${any.contradictions} contradictions, ${any.duplicates} duplicates, ${any.different} different facts)`, '');
    out.push(`| metric | ${results.map((r) => r.system).join(' | ')} |`, `|---|${results.map(() => '---:').join('|')}|`);
    for (const [label2, f] of rows) out.push(`| ${label2} | ${results.map((r) => f(r.by_split[g]!)).join(' | ')} |`);
    out.push('');
  }
  out.push(
    'Each pair is two free-text statements about one subject (bench/eval/paraphrases/README.md), sent to Canon as text episodes',
    'in a subject of their own; no link is made, so everything Canon shows is its candidates. A contradiction counts as',
    'flagged when recall marks the two memories a `possible_contradiction` (or the two landed on one fact key, where the',
    'fold disputes or changes); silent when both are current and nothing flags them. A duplicate is recalled twice when',
    'two memories come back with no candidate between them. A false candidate is a different-facts pair flagged at all;',
    'a false merge, a different-facts pair recalled as one record. Two sentences the same but for the value ("The office',
    'is closed on December 24." / "… on December 31.", two closures) are one template, so one fact key: the value is',
    'outside the key (design §3), and the later statement of the same author is a change. No system here tells them from',
    'a restatement with a new value ("The staging deploy runs on Tuesday." / "… on Thursday.") but by what the words',
    'mean; Canon merges no pair by similarity.',
    '',
    ...results.map((r) => `- **${r.system}** — ${r.description}.`),
    '',
  );
  return out.join('\n');
}

/** Puts the paraphrases section at the end of eval.md, replacing the one there. */
export function writeParaphraseSection(markdown: string): void {
  const file = path.join(RESULTS, 'eval.md');
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Correctness evaluation\n';
  const at = before.indexOf(SECTION);
  const head = (at === -1 ? before : before.slice(0, at)).trimEnd();
  fs.writeFileSync(file, `${head}\n\n${markdown.trimEnd()}\n`);
}

/**
 * What paraphrases.json keeps of a system's run: per pair, what it did, and Canon's memories and
 * candidates only where it missed — except on a held-out split, whose per-pair outcomes are not
 * kept at all (only its counts, in `by_split`): read, they would make it development data.
 */
function slim(r: SystemResult): SystemResult {
  const pairs = new Map(loadPairs().map((p) => [p.id, p] as const));
  const missed = (id: string, o: PairOutcome) => {
    const kind = pairs.get(id)?.kind;
    if (kind === 'contradiction') return !(o.flagged_as_contradiction || o.records === 1);
    if (kind === 'duplicate') return o.records === 2 && !o.flagged;
    return o.flagged || o.records === 1;
  };
  const heldOut = (id: string) => SPLITS.some((s) => isHeldOut(s) && id.startsWith(`p-${s}-`));
  return {
    ...r,
    outcomes: Object.fromEntries(
      Object.entries(r.outcomes)
        .filter(([id]) => !heldOut(id))
        .map(([id, o]) => [id, missed(id, o) ? o : { ...o, detail: undefined }]),
    ),
  };
}

/** Every pair through Canon (served on `url`) and the baselines; writes paraphrases.json, returns the Markdown section. */
export async function runParaphrases(runtime: Runtime, url: string, splits: readonly PairSplit[], log: (msg: string) => void = console.error): Promise<string> {
  const run = Date.now().toString(36);
  const key = (await runtime.createKey({ workspace: 'paraphrases', role: 'member', user: 'eval' })).key;
  const canon = canonParaphrases({ request: (p, init) => fetch(`${url}${p}`, init), key }, run);
  const results = await evaluateParaphrases([canon, appendOnly, tokenOverlapMerger, trigramFlagger], splits, log);
  const groups = [developmentSplits(splits), heldOutSplits(splits)].filter((g) => g.length > 0).map(groupName);
  fs.mkdirSync(RESULTS, { recursive: true });
  fs.writeFileSync(
    path.join(RESULTS, 'paraphrases.json'),
    // Per pair, what each system did; Canon's memories and candidates only where it missed.
    `${JSON.stringify({ benchmark: 'paraphrases', splits, systems: results.map(slim), measured_at: new Date().toISOString() }, null, 1)}\n`,
  );
  return paraphraseMarkdown(results, groups);
}

/** `npm run eval:paraphrases [-- --splits a,b,c,d,e]`: every development split unless told otherwise. */
async function main() {
  const arg = process.argv.indexOf('--splits');
  const splits = arg === -1 ? developmentSplits(SPLITS) : (process.argv[arg + 1]!.split(',') as PairSplit[]);
  await withServedRuntime('canon_bench_paraphrases', async (runtime, url) => {
    const md = await runParaphrases(runtime, url, splits);
    writeParaphraseSection(md);
    console.log(md);
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main();
  process.exit(0);
}
