import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { documentFormat, EXTRACTOR_VERSION } from '@canon/core';
import { syncConnector, type Principal, type Runtime } from '@canon/runtime';
import { RESULTS, withServedRuntime } from '../../harness.js';
import { FORMATS, loadExtractionDataset, type DatasetFile, type ExtractionFormat } from './dataset.js';
import { scoreFile, type ExtractedMemory, type FileScore } from './match.js';

const SECTION = '## Document extraction';
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..');
const WORKSPACE = 'eval-extraction';

export interface Aggregate {
  files: number;
  memories: number;
  memories_per_file: number;
  expected: number;
  precision: number | null;
  recall: number | null;
  conflicts: number;
}

export interface ExtractionReport {
  extractor_version: string;
  splits: Record<'dev' | 'unseen', { by_format: Partial<Record<ExtractionFormat, Aggregate>>; all: Aggregate }>;
  files: Array<{ id: string; format: ExtractionFormat; split: string; score: Omit<FileScore, 'unexpected' | 'missed'>; unexpected: FileScore['unexpected']; missed: FileScore['missed'] }>;
  own_scan: { files: number; memories: number; by_format: Record<string, { files: number; memories: number }>; code_files: number; memories_from_code: number; conflicts: number; ambiguous_left_out: number };
}

const rel = (f: DatasetFile) => `${f.id}/${f.path.replace(/^node_modules\/(?:@[^/]+\/)?[^/]+\//, '')}`;

/** A memory of a subject as the matcher reads it: its current value (the first, if it has several). */
async function memoriesOf(runtime: Runtime, principal: Principal, subject: string): Promise<ExtractedMemory[]> {
  const { memories } = await runtime.memories(principal, subject);
  return memories
    .filter((m) => m.predicate !== 'file_hash' && (m.current.length > 0 || m.conflict.length > 0))
    .map((m) => ({ predicate: m.predicate, qualifiers: m.qualifiers, value: m.current[0]?.value ?? m.conflict[0]?.value, conflicted: m.status === 'conflicted' }));
}

function aggregate(rows: Array<{ score: Omit<FileScore, 'unexpected' | 'missed'> }>): Aggregate {
  const sum = (k: keyof Omit<FileScore, 'unexpected' | 'missed'>) => rows.reduce((a, r) => a + r.score[k], 0);
  const memories = sum('memories');
  const expected = sum('expected');
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    files: rows.length,
    memories,
    memories_per_file: rows.length ? round(memories / rows.length) : 0,
    expected,
    // No memory at all is a precision of 1 only if nothing was expected either; else undefined.
    precision: memories > 0 ? round(sum('matched_memories') / memories) : expected === 0 ? 1 : null,
    recall: expected > 0 ? round(sum('matched_expected') / expected) : null,
    conflicts: sum('conflicts'),
  };
}

/**
 * The dataset through the real scan path: every file copied into a folder under its package
 * path, `canon sync workspace`'s own call (the workspace connector, ingest with the connector
 * role, the compile of what it wrote), then each file's memories as recall returns them.
 */
async function measureDataset(runtime: Runtime, principal: Principal, files: DatasetFile[], log: (m: string) => void): Promise<ExtractionReport['files']> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-eval-extraction-'));
  try {
    for (const f of files) {
      const target = path.join(dir, rel(f));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(f.absolutePath, target);
    }
    // `.env` files are secret files to a scan; the dataset holds one on purpose.
    const sync = await syncConnector(runtime, { workspace: WORKSPACE, connector: 'workspace', config: { path: dir, id: 'eval', includeSecretFiles: true }, compile: 'wait' });
    log(`extraction: scanned ${sync.created} files, compiled ${sync.compiled?.subjects ?? 0} subjects, statements left out ${JSON.stringify(sync.statements)}`);
    const out: ExtractionReport['files'] = [];
    for (const f of files) {
      const memories = await memoriesOf(runtime, principal, `workspace:eval:${rel(f)}`);
      const { unexpected, missed, ...score } = scoreFile(memories, f.expected, f.format);
      out.push({ id: f.id, format: f.format, split: f.split, score, unexpected, missed });
    }
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** This repository scanned as a user would: which memories come from which kind of file. */
async function measureOwnScan(runtime: Runtime, principal: Principal): Promise<ExtractionReport['own_scan']> {
  const sync = await syncConnector(runtime, { workspace: WORKSPACE, connector: 'workspace', config: { path: ROOT, id: 'canon' }, compile: 'wait' });
  const subjects = (await runtime.subjects(principal)).filter((s) => s.subject.startsWith('workspace:canon:'));
  const by: ExtractionReport['own_scan']['by_format'] = {};
  let memories = 0;
  let fromCode = 0;
  let codeFiles = 0;
  let conflicts = 0;
  for (const s of subjects) {
    const file = s.subject.slice('workspace:canon:'.length);
    const text = fs.existsSync(path.join(ROOT, file)) ? fs.readFileSync(path.join(ROOT, file), 'utf8') : '';
    const format = documentFormat(file, text);
    const mine = await memoriesOf(runtime, principal, s.subject);
    memories += mine.length;
    conflicts += mine.filter((m) => m.conflicted).length;
    const entry = (by[format] ??= { files: 0, memories: 0 });
    entry.files += 1;
    entry.memories += mine.length;
    if (format === 'code') {
      codeFiles += 1;
      fromCode += mine.length;
    }
  }
  return { files: subjects.length, memories, by_format: by, code_files: codeFiles, memories_from_code: fromCode, conflicts, ambiguous_left_out: sync.statements['ambiguous'] ?? 0 };
}

const pct = (x: number | null) => (x === null ? '—' : x.toFixed(3));

export function extractionMarkdown(report: ExtractionReport): string {
  const table = (split: 'dev' | 'unseen') => {
    const s = report.splits[split];
    const rows = (Object.entries(s.by_format) as Array<[ExtractionFormat, Aggregate]>).map(
      ([format, a]) => `| ${format} | ${a.files} | ${a.memories_per_file} | ${a.expected} | ${pct(a.precision)} | ${pct(a.recall)} | ${a.conflicts} |`,
    );
    const a = s.all;
    return [
      '| format | files | memories per file | expected facts | precision | recall | open conflicts from one version |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...rows,
      `| **all** | ${a.files} | ${a.memories_per_file} | ${a.expected} | **${pct(a.precision)}** | **${pct(a.recall)}** | ${a.conflicts} |`,
    ].join('\n');
  };
  const own = report.own_scan;
  const formats = Object.entries(own.by_format)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([f, v]) => `${f} ${v.files} files / ${v.memories} memories`)
    .join(', ');
  return [
    SECTION,
    '',
    `Generated by \`npm run eval:extraction\` (and \`npm run eval\`), extractor \`${report.extractor_version}\`: real files shipped inside the npm packages this repository installs, read from \`node_modules\`, each with the facts a careful reader expects written before any extractor ran on it (bench/eval/extraction/README.md). Each file goes through the real scan path: \`canon sync workspace\`'s call (workspace connector, ingest, the compile of what it wrote), then recall. A memory counts as correct when its key path (the predicate of a structured file; headings, list labels, table row and predicate of Markdown) names an expected key — names compared after collapsing whitespace and folding case — and its current value equals the expected one (by type for structured files, as text after collapsing whitespace otherwise). Precision = correct memories / memories (every \`file_hash\` inventory entry left out); recall = expected facts found / expected facts.`,
    '',
    '### Unseen third (split c, measured once)',
    '',
    table('unseen'),
    '',
    '### Development files (splits a and b)',
    '',
    table('dev'),
    '',
    '### This repository scanned',
    '',
    `\`canon sync workspace .\` over this repository (.gitignore honoured): ${own.files} files, ${own.memories} memories besides the inventory; ${own.code_files} source code files giving **${own.memories_from_code}** memories; ${own.conflicts} open conflicts; ${own.ambiguous_left_out} ambiguous statements left out. By format: ${formats}.`,
    '',
  ].join('\n');
}

/** Puts the extraction section into eval.md before the decisions section (or at the end), replacing the one there. */
export function writeExtractionSection(markdown: string): void {
  const file = path.join(RESULTS, 'eval.md');
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Correctness evaluation\n';
  const at = before.indexOf(SECTION);
  let without = before;
  if (at !== -1) {
    const next = before.indexOf('\n## ', at + SECTION.length);
    without = before.slice(0, at) + (next === -1 ? '' : before.slice(next + 1));
  }
  const decisions = without.indexOf('## Write-side decisions');
  const text =
    decisions === -1
      ? `${without.trimEnd()}\n\n${markdown.trimEnd()}\n`
      : `${without.slice(0, decisions).trimEnd()}\n\n${markdown.trimEnd()}\n\n${without.slice(decisions)}`;
  fs.writeFileSync(file, text);
}

/** Measures and writes extraction.json; returns the Markdown section. `splits` limits what is measured (development runs). */
export async function runExtraction(runtime: Runtime, log: (m: string) => void = console.error, splits: readonly string[] = ['a', 'b', 'c']): Promise<ExtractionReport> {
  const dataset = loadExtractionDataset(ROOT).filter((f) => splits.includes(f.split));
  const { key } = await runtime.createKey({ workspace: WORKSPACE, role: 'owner' });
  const principal = await runtime.authenticate(key);
  const files = await measureDataset(runtime, principal, dataset, log);
  const group = (split: 'dev' | 'unseen') => {
    const rows = files.filter((f) => (split === 'dev' ? f.split !== 'c' : f.split === 'c'));
    const byFormat: Partial<Record<ExtractionFormat, Aggregate>> = {};
    for (const format of FORMATS) {
      const mine = rows.filter((r) => r.format === format);
      if (mine.length > 0) byFormat[format] = aggregate(mine);
    }
    return { by_format: byFormat, all: aggregate(rows) };
  };
  const report: ExtractionReport = {
    extractor_version: EXTRACTOR_VERSION,
    splits: { dev: group('dev'), unseen: group('unseen') },
    files,
    own_scan: await measureOwnScan(runtime, principal),
  };
  fs.mkdirSync(RESULTS, { recursive: true });
  fs.writeFileSync(path.join(RESULTS, 'extraction.json'), `${JSON.stringify({ benchmark: 'extraction', ...report, measured_at: new Date().toISOString() }, null, 2)}\n`);
  return report;
}

async function main() {
  const splits = (process.env['EXTRACTION_SPLITS'] ?? 'a,b,c').split(',');
  await withServedRuntime('canon_bench_extraction', async (runtime) => {
    const report = await runExtraction(runtime, console.error, splits);
    const md = extractionMarkdown(report);
    if (splits.includes('c')) writeExtractionSection(md);
    console.log(md);
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main();
  process.exit(0);
}
