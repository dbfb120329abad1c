import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import cliProgress from 'cli-progress';
import { benchCli, type CliResult } from './cli.js';
import { startBenchCluster } from './cluster.js';
import { benchCompile, type CompileCase } from './compile.js';
import { machine, RESULTS, SMALL, target, writeResult, type Distribution, type Target } from './harness.js';
import { benchIngest } from './ingest.js';
import { calibrate, type Calibration } from './calibrate.js';
import { benchJobs, type JobsResult } from './jobs.js';
import { benchHostile, type HostileResult } from './hostile.js';
import { benchSoak, type SoakResult } from './soak.js';
import { benchRecall } from './recall.js';
import { benchRecallCandidates } from './recall-candidates.js';
import { fmtDist, lineChart, targetTable } from './report.js';

/**
 * `npm run bench`: ingest, compile, recall, async jobs, server memory and the command line's
 * cold start in one run, merged
 * into bench/results/latest.json and latest.md (with SVG charts of the compile cost curves).
 * `BENCH_SCALE=small` for a quick try.
 */
const stages = ['ingest', 'compile', 'recall', 'candidates', 'jobs', 'hostile', 'soak', 'cli', 'report'] as const;
const bar = new cliProgress.SingleBar(
  { format: 'bench [{bar}] {value}/{total} {stage} | {message}', hideCursor: true, clearOnComplete: false },
  cliProgress.Presets.shades_classic,
);
const lines: string[] = [];
const log = (message: string) => {
  lines.push(`${new Date().toISOString()} ${message}`);
  bar.update({ message: message.slice(0, 90) });
};
const errors: Record<string, string> = {};

async function stage<T>(name: (typeof stages)[number], fn: () => Promise<T>): Promise<T | null> {
  bar.update({ stage: name, message: '' });
  try {
    return await fn();
  } catch (err) {
    errors[name] = err instanceof Error ? (err.stack ?? err.message) : String(err);
    log(`${name} failed: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  } finally {
    bar.increment();
  }
}

const started = performance.now();
const loadBefore = os.loadavg();
bar.start(stages.length, 0, { stage: '', message: SMALL ? 'small scale' : 'full scale' });
const cluster = await startBenchCluster();
const calibration: { start: Calibration; end: Calibration | null } = { start: await calibrate(cluster.adminUrl), end: null };
let ingest: Awaited<ReturnType<typeof benchIngest>> | null = null;
let compile: Record<string, unknown> | null = null;
let recall: Record<string, unknown> | null = null;
let candidates: Record<string, unknown> | null = null;
let jobs: JobsResult | null = null;
let hostile: HostileResult | null = null;
let soak: SoakResult | null = null;
let cli: CliResult | null = null;
try {
  ingest = await stage('ingest', () => benchIngest(log));
  if (ingest) writeResult('ingest', ingest);
  compile = await stage('compile', () => benchCompile(log, cluster));
  if (compile) writeResult('compile', compile);
  recall = await stage('recall', () => benchRecall(log, cluster));
  if (recall) writeResult('recall', recall);
  candidates = await stage('candidates', () => benchRecallCandidates(log, cluster));
  if (candidates) writeResult('recall-candidates', candidates);
  jobs = await stage('jobs', () => benchJobs(cluster, log));
  hostile = await stage('hostile', () => benchHostile(cluster, log));
  if (hostile) writeResult('hostile', hostile);
  soak = await stage('soak', () => benchSoak(cluster, log));
  if (soak) writeResult('soak', soak);
  cli = await stage('cli', () => benchCli(cluster, log));
  if (cli) writeResult('cli', cli);
  calibration.end = await calibrate(cluster.adminUrl);
} finally {
  await cluster.stop();
}

await stage('report', async () => {
  const loadAfter = os.loadavg();
  const m = { ...machine(), postgres: (compile?.['machine'] as { postgres?: string } | undefined)?.postgres ?? 'unknown' };
  const targets: Target[] = [
    ...(ingest ? [target('ingest over HTTP', ingest.http_episodes_per_s, 10_000, 'min', 'episodes/s'), target('ingest HTTP / direct SQL', ingest.ratio_http_to_direct, 0.5, 'min', '')] : []),
    ...((compile?.['targets'] as Target[] | undefined) ?? []),
    ...((recall?.['targets'] as Target[] | undefined) ?? []),
    ...((candidates?.['targets'] as Target[] | undefined) ?? []),
    ...(hostile?.targets ?? []),
    ...(soak?.targets ?? []),
    ...(cli?.targets ?? []),
  ];
  const cases = (compile?.['cases'] as CompileCase[] | undefined) ?? [];
  const sized = cases.filter((c) => c.keys > 1);
  const charts: string[] = [];
  if (sized.length > 0) {
    fs.writeFileSync(
      path.join(RESULTS, 'compile-noop.svg'),
      lineChart('No-op recompile vs history size', 'episodes in the subject (log scale)', 'median ms', [
        { name: 'function call', color: '#2563eb', points: sized.map((c) => ({ x: c.episodes, y: c.noop_function.median_ms })) },
        { name: 'HTTP POST /v1/compile', color: '#16a34a', points: sized.map((c) => ({ x: c.episodes, y: c.noop_http.median_ms })) },
      ], { y: 5, label: 'target 5 ms' }),
    );
    fs.writeFileSync(
      path.join(RESULTS, 'compile-incremental.svg'),
      lineChart('One-episode incremental compile vs history size', 'episodes in the subject (log scale)', 'ms', [
        { name: 'median', color: '#2563eb', points: sized.map((c) => ({ x: c.episodes, y: c.incremental.median_ms })) },
        { name: 'p95', color: '#9333ea', points: sized.map((c) => ({ x: c.episodes, y: c.incremental.p95_ms })) },
      ], { y: 20, label: 'target 20 ms' }),
    );
    fs.writeFileSync(
      path.join(RESULTS, 'compile-throughput.svg'),
      lineChart('First compile throughput vs history size', 'episodes in the subject (log scale)', 'episodes/s', [
        { name: 'episodes/s', color: '#ea580c', points: sized.map((c) => ({ x: c.episodes, y: c.episodes_per_s })) },
      ]),
    );
    charts.push('compile-noop.svg', 'compile-incremental.svg', 'compile-throughput.svg');
  }
  const seconds = Math.round((performance.now() - started) / 1000);
  const shared = Math.max(loadBefore[0]!, loadAfter[0]!) > m.cores * 0.5;
  const latest = {
    benchmark: 'all',
    scale: SMALL ? 'small' : 'full',
    machine: m,
    load_average: { before: loadBefore.map((x) => Math.round(x * 100) / 100), after: loadAfter.map((x) => Math.round(x * 100) / 100) },
    shared_machine: shared,
    calibration,
    duration_s: seconds,
    targets,
    ingest,
    compile,
    recall,
    recall_candidates: candidates,
    jobs,
    hostile,
    soak,
    cli,
    errors,
    charts,
    measured_at: new Date().toISOString(),
  };
  writeResult('latest', latest);
  fs.writeFileSync(path.join(RESULTS, 'latest.md'), markdown(latest, targets, cases));
});
bar.stop();
fs.writeFileSync(path.join(RESULTS, 'latest.log'), `${lines.join('\n')}\n`);
console.log(`bench: done in ${Math.round((performance.now() - started) / 1000)} s → bench/results/latest.md`);
if (Object.keys(errors).length > 0) {
  for (const [k, v] of Object.entries(errors)) console.error(`${k}: ${v}`);
  process.exit(1);
}
process.exit(0);

/** The fixed workloads' times, so that this report can be read against another run's (bench/calibrate.ts). */
function calibrationLine(c: { start: Calibration; end: Calibration | null } | undefined): string {
  if (!c) return 'Machine speed: not measured (a run before bench/calibrate.ts).';
  const pg = (x: Calibration) => (x.postgres_ms === null ? '' : `, PostgreSQL's ${x.postgres_ms} ms`);
  const at = (x: Calibration) => `the process's ${x.node_ms} ms${pg(x)}`;
  return `Machine speed (bench/calibrate.ts, fixed workloads no change to Canon touches; lower is faster): ${at(c.start)} at the start${c.end ? `, ${at(c.end)} at the end` : ''}.`;
}

/** The ingest stage starts a server of its own (the embedded one unless DATABASE_URL names one): say so when it differs. */
function ingestServer(latest: Record<string, unknown> & { machine: { postgres: string } }): string {
  const own = (latest['ingest'] as { machine?: { postgres?: string } } | null)?.machine?.postgres;
  return own && own !== latest.machine.postgres ? ` The ingest stage ran on a PostgreSQL ${own} of its own.` : '';
}

function markdown(latest: Record<string, unknown> & { machine: ReturnType<typeof machine> & { postgres: string } }, targets: Target[], cases: CompileCase[]): string {
  const m = latest.machine;
  const load = latest['load_average'] as { before: number[]; after: number[] };
  const out: string[] = [
    '# Canon benchmarks',
    '',
    `\`npm run bench\`${SMALL ? ' with `BENCH_SCALE=small`' : ''}, ${String(latest['measured_at']).slice(0, 16).replace('T', ' ')} UTC, ${String(latest['duration_s'])} s.`,
    '',
    `Machine: ${m.cores} cores (${m.cpu}), ${m.memory_gib} GiB, PostgreSQL ${m.postgres} (${process.env['BENCH_DATABASE_URL'] ? 'the server BENCH_DATABASE_URL names' : 'embedded'}, same machine), Node ${m.node}, ${m.platform}.${ingestServer(latest)}`,
    latest['shared_machine']
      ? `The machine was shared with other work during the run (1-minute load average ${load.before[0]} at the start, ${load.after[0]} at the end, on ${m.cores} cores): latencies are noisier and higher than on an idle machine.`
      : `Load average ${load.before[0]} at the start, ${load.after[0]} at the end.`,
    calibrationLine(latest['calibration'] as { start: Calibration; end: Calibration | null } | undefined),
    '',
    '## Targets',
    '',
    ...targetTable(targets),
    '',
  ];
  const ingest = latest['ingest'] as Record<string, number> | null;
  if (ingest) {
    const rounds = (latest['ingest'] as { rounds?: Array<{ http: number; direct: number; ratio: number }> }).rounds ?? [];
    out.push(
      '## Ingest',
      '',
      `${ingest['episodes']} episodes in batches of ${ingest['batch_size']} over HTTP (${ingest['concurrency']} clients): **${ingest['http_episodes_per_s']} episodes/s**; the same rows by direct SQL into a copy of the episodes table with the same indexes: ${ingest['direct_sql_episodes_per_s']} episodes/s; ratio ${ingest['ratio_http_to_direct']} (medians of ${rounds.length} rounds, each HTTP then direct on keys of its own: ${rounds.map((r) => `${r.http} / ${r.direct} = ${r.ratio}`).join('; ')}).`,
      '',
    );
  }
  if (cases.length > 0) {
    const growth = (latest['compile'] as { growth: Record<string, number | string> }).growth;
    out.push(
      '## Compile',
      '',
      '| history | keys | memories | first compile | episodes/s | no-op, function (median / p95 ms) | no-op, HTTP (median / p95 ms) | one-episode incremental (median / p95 ms) |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      ...cases.map((c) => `| ${c.name} | ${c.keys} | ${c.memories} | ${c.first_compile_s} s | ${c.episodes_per_s} | ${fmtDist(c.noop_function)} | ${fmtDist(c.noop_http)} | ${fmtDist(c.incremental)} |`),
      '',
      `Growth from ${growth['from']} to ${growth['to']} (${growth['history_ratio']}× the history): no-op ×${growth['noop_function_median']} (function), ×${growth['noop_http_median']} (HTTP); incremental ×${growth['incremental_median']}.`,
      '',
      '![no-op recompile](compile-noop.svg)',
      '',
      '![incremental compile](compile-incremental.svg)',
      '',
      '![compile throughput](compile-throughput.svg)',
      '',
      ...((latest['compile'] as { notes: string[] }).notes.map((n) => `- ${n}`)),
      '',
    );
  }
  const recall = latest['recall'] as { workspace: Record<string, number>; seed: Record<string, unknown>; security: Record<string, unknown>; measured: Record<string, Distribution | string>; runs_per_measure: number } | null;
  if (recall) {
    const sec = recall.security;
    out.push(
      '## Recall',
      '',
      `One workspace of ${recall.workspace['memories']} memories over ${recall.workspace['subjects']} subjects (${recall.workspace['episodes']} episodes), ${recall.runs_per_measure} requests per measure, random subjects and queries.`,
      `Requests ran as role \`${String(sec['request_role'])}\` (row-level security on memories: ${sec['memories_rls_enabled'] ? 'enabled' : 'off'}, ${sec['memories_rls_forced'] ? 'forced' : 'not forced'}).`,
      '',
      '| measure | median / p95 ms |',
      '|---|---:|',
      ...Object.entries(recall.measured).map(([k, d]) => `| ${k.replace(/_/g, ' ')} | ${fmtDist(d)} |`),
      '',
      `Seed: ${String(recall.seed['how'])}; ${String(recall.seed['ingest_s'])} s ingest + ${String(recall.seed['compile_s'])} s compile, once (${recall.seed['reused'] ? 'reused from' : 'stored as'} template \`${String(recall.seed['template'])}\`, cloned in ${String(recall.seed['clone_s'])} s).`,
      '',
    );
  }
  const jobs = latest['jobs'] as JobsResult | null;
  if (jobs) {
    out.push(
      '## Jobs and server memory',
      '',
      `Server: ${jobs.server}. ${jobs.episodes_ingested} episodes ingested over HTTP; one \`{all}\` compile job over them took ${jobs.all_compile_job_s} s.`,
      '',
      `- async compile job, POST /v1/compile {async: true} → completed (polled every 5 ms), ${jobs.async_job_latency.runs} jobs: **median ${jobs.async_job_latency.median_ms} ms, p95 ${jobs.async_job_latency.p95_ms} ms**`,
      `- peak RSS of the server process: **${jobs.peak_rss_mib.server} MiB** (per process of the tree: ${jobs.peak_rss_mib.tree.map((t) => `${t.peak_rss_mib} MiB`).join(', ')})`,
      '',
    );
  }
  const hostile = latest['hostile'] as HostileResult | null;
  if (hostile) {
    out.push(
      '## Hostile writers',
      '',
      `- a ${hostile.dispute.episodes}-way dispute (text episodes from ${hostile.dispute.authors} authors of equal standing, one fact key, distinct values), one compile: **${hostile.dispute.compile_ms} ms** (${hostile.dispute.compile_cpu_ms ?? "?"} ms of CPU in the compiling process; the median of ${hostile.dispute.runs.length} compiles, each of a copy of the log in a fresh process: ${hostile.dispute.runs.map((r) => `${r.compile_ms} ms`).join(', ')}), peak RSS of the process **${hostile.dispute.peak_rss_mb} MB** (the highest of them; ${hostile.dispute.rss_before_compile_mb} MB before the compile); open sides after it: ${hostile.dispute.open_sides} (\`max_sides\`)`,
      `- ${hostile.backlog.jobs} one-subject compile jobs queued at once (each a first compile): drained in **${hostile.backlog.drain_ms} ms**, **${hostile.backlog.jobs_per_s} jobs/s** from the first request`,
      '',
    );
  }
  const soak = latest['soak'] as SoakResult | null;
  if (soak) {
    out.push(
      '## Soak',
      '',
      `${soak.seconds} s against a server process: ${soak.ingested} episodes ingested, ${soak.compile_jobs} one-subject and ${soak.all_jobs} \`{all}\` compile jobs, recall reads every 20 ms, and a client sending ${soak.hostile.requests} hostile requests (${Object.entries(soak.hostile.statuses).map(([s, n]) => `${n}× ${s}`).join(', ')}).`,
      '',
      `- recall over the run: median ${soak.recall.median_ms} ms, **p95 ${soak.recall.p95_ms} ms** (${soak.recall.runs} reads)`,
      '',
      '| minute | recall p95 ms | peak RSS MB |',
      '|---:|---:|---:|',
      ...soak.minutes.map((m) => `| ${m.minute} | ${m.recall_p95_ms} | ${m.peak_rss_mb} |`),
      '',
    );
  }
  const cli = latest['cli'] as CliResult | null;
  if (cli) {
    out.push(
      '## Command line',
      '',
      `Whole \`canon\` processes on Node ${cli.node}, ${cli.runs} runs each (median / p95 ms): \`canon --help\` ${fmtDist(cli.help)}; \`canon memories S\` against a running \`canon start\` (HTTP) ${fmtDist(cli.memories_http)}; \`node -e 0\`, the floor, ${fmtDist(cli.node_baseline)}.`,
      '',
    );
  }
  const errs = latest['errors'] as Record<string, string>;
  if (Object.keys(errs).length > 0) out.push('## Failures', '', ...Object.entries(errs).map(([k, v]) => `- ${k}: ${v.split('\n')[0]}`), '');
  return `${out.join('\n')}\n`;
}
