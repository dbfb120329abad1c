import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { Principal, Runtime } from '@canon/runtime';
import { benchRuntime, startBenchCluster } from './cluster.js';
import { machine, postgresVersion, SMALL, target, writeResult, type Target } from './harness.js';

/**
 * Moving a log (issue 17): `canon export` of a workspace of a million episodes to a file, the
 * file imported into an empty Canon (batches through the ingest path, then every subject
 * compiled and its state hash compared with the manifest), and the same file imported again
 * (all duplicates). Each phase is timed, and the process's resident memory is sampled every
 * 100 ms: "memory flat" means the peak of the phase's last quarter is within 10% of its first
 * quarter's, whatever the size of the log.
 *
 * `BENCH_EXPORT_EPISODES` sets the size (default 1,000,000; 50,000 with BENCH_SCALE=small).
 */
const EPISODES = Number(process.env['BENCH_EXPORT_EPISODES'] ?? (SMALL ? 50_000 : 1_000_000));
const PER_SUBJECT = 1000;
const KEYS_PER_SUBJECT = 20;
const BATCH = 1000;
const BASE = Date.UTC(2025, 0, 1);

export interface PhaseResult {
  seconds: number;
  cpu_seconds: number;
  episodes_per_s: number;
  peak_rss_mb: number;
  /** Peak RSS of the phase's first and last quarter: flat memory keeps them close. */
  rss_first_quarter_mb: number;
  rss_last_quarter_mb: number;
}

export interface ExportImportResult {
  command: string;
  machine: ReturnType<typeof machine>;
  postgres: string;
  load_before: number[];
  load_after: number[];
  episodes: number;
  subjects: number;
  file_mb: number;
  seed: { seconds: number; compile_seconds: number };
  export: PhaseResult;
  import: PhaseResult & { subjects_matching: number; subjects_differing: number };
  reimport: PhaseResult & { duplicates: number };
  targets: Target[];
}

function episode(subject: string, i: number) {
  const at = new Date(BASE + i * 60_000).toISOString();
  return {
    idempotency_key: `${subject}#${i}`,
    subject,
    kind: 'claim',
    occurred_at: at,
    body: { claims: [{ predicate: `setting ${i % KEYS_PER_SUBJECT}`, value: `value ${Math.floor(i / (KEYS_PER_SUBJECT * 5))}`, effective_from: at }] },
  };
}

/** Runs fn while sampling this process's RSS; reports time, CPU and memory by quarter. */
async function measured<T>(episodes: number, fn: () => Promise<T>): Promise<{ value: T; phase: PhaseResult }> {
  const samples: number[] = [];
  const timer = setInterval(() => samples.push(process.memoryUsage().rss), 100);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  try {
    const value = await fn();
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    samples.push(process.memoryUsage().rss);
    const q = Math.max(1, Math.floor(samples.length / 4));
    const mb = (xs: number[]) => Math.round(Math.max(...xs) / 2 ** 20);
    return {
      value,
      phase: {
        seconds: round(seconds),
        cpu_seconds: round((cpu.user + cpu.system) / 1e6),
        episodes_per_s: Math.round(episodes / seconds),
        peak_rss_mb: mb(samples),
        rss_first_quarter_mb: mb(samples.slice(0, q)),
        rss_last_quarter_mb: mb(samples.slice(-q)),
      },
    };
  } finally {
    clearInterval(timer);
  }
}

const round = (x: number) => Math.round(x * 100) / 100;

async function seed(runtime: Runtime, principal: Principal, log: (m: string) => void): Promise<string[]> {
  const subjects: string[] = [];
  for (let s = 0; s * PER_SUBJECT < EPISODES; s++) subjects.push(`bench:moved-${String(s).padStart(5, '0')}`);
  let written = 0;
  for (const subject of subjects) {
    for (let start = 0; start < PER_SUBJECT && written < EPISODES; start += BATCH) {
      const n = Math.min(BATCH, PER_SUBJECT - start, EPISODES - written);
      await runtime.ingest(principal, Array.from({ length: n }, (_, j) => episode(subject, start + j)));
      written += n;
    }
    if (subjects.indexOf(subject) % 100 === 0) log(`export-import: seeded ${written}/${EPISODES}`);
  }
  return subjects;
}

export async function benchExportImport(log: (m: string) => void = console.error): Promise<ExportImportResult> {
  const cluster = await startBenchCluster();
  const loadBefore = os.loadavg();
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'canon-export-')), 'log.jsonl');
  // No background compile while measuring: the export compiles what it exports, the import what it imports.
  const quiet = { CANON_COMPILE_DEBOUNCE_SECONDS: '3600', CANON_COMPILE_AFTER: '1000000000' };
  const source = await benchRuntime(await cluster.createDatabase('canon_bench_export_from'), quiet, { queue: false });
  let into: Runtime | null = null;
  try {
    const ownerOf = async (runtime: Runtime) => runtime.authenticate((await runtime.createKey({ workspace: 'moved', role: 'owner' })).key);
    const from = await ownerOf(source);
    const t0 = performance.now();
    const subjects = await seed(source, from, log);
    const seeded = (performance.now() - t0) / 1000;
    log(`export-import: compiling ${subjects.length} subjects before the export`);
    const t1 = performance.now();
    await source.compile(from, { all: true });
    const compiled = (performance.now() - t1) / 1000;

    log('export-import: export');
    const exported = await measured(EPISODES, async () => {
      const opened = await source.exportLog(from, {});
      await pipeline(Readable.from((async function* () { for await (const line of opened.lines) yield `${line}\n`; })()), fs.createWriteStream(file));
    });
    const fileMb = Math.round(fs.statSync(file).size / 2 ** 20);

    into = await benchRuntime(await cluster.createDatabase('canon_bench_export_into'), quiet, { queue: false });
    const to = await ownerOf(into);
    const lines = () => readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
    log('export-import: import into an empty Canon');
    const imported = await measured(EPISODES, () => into!.importLog(to, lines()));
    log('export-import: the same file again');
    const again = await measured(EPISODES, () => into!.importLog(to, lines()));

    const matching = imported.value.subjects.filter((s) => s.ok).length;
    const flat = (p: PhaseResult) => p.rss_last_quarter_mb / Math.max(1, p.rss_first_quarter_mb);
    const result: ExportImportResult = {
      command: 'npm run bench:export',
      machine: machine(),
      postgres: await postgresVersion(source),
      load_before: loadBefore.map(round),
      load_after: os.loadavg().map(round),
      episodes: EPISODES,
      subjects: subjects.length,
      file_mb: fileMb,
      seed: { seconds: round(seeded), compile_seconds: round(compiled) },
      export: exported.phase,
      import: { ...imported.phase, subjects_matching: matching, subjects_differing: imported.value.subjects.length - matching },
      reimport: { ...again.phase, duplicates: again.value.duplicates },
      targets: [
        target(`export of ${EPISODES.toLocaleString('en')} episodes (s)`, exported.phase.seconds, 600, 'max', 's'),
        target(`import of ${EPISODES.toLocaleString('en')} episodes, compiled and compared (s)`, imported.phase.seconds, 600, 'max', 's'),
        target('export memory: last quarter ÷ first quarter peak RSS', round(flat(exported.phase)), 1.1, 'max', '×'),
        target('import memory: last quarter ÷ first quarter peak RSS', round(flat(imported.phase)), 1.1, 'max', '×'),
        target('subjects whose state hash differs from the manifest', imported.value.subjects.length - matching, 1, 'max', ''),
      ],
    };
    return result;
  } finally {
    await into?.close();
    await source.close();
    await cluster.dropDatabase('canon_bench_export_into');
    await cluster.dropDatabase('canon_bench_export_from');
    await cluster.stop();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await benchExportImport();
  console.log(JSON.stringify(result, null, 2));
  console.error(`wrote ${writeResult('export-import', result)}`);
}
