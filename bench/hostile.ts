import { spawn } from 'node:child_process';
import path from 'node:path';
import { startBenchCluster, type BenchCluster } from './cluster.js';
import { SMALL, target, writeResult, type Target } from './harness.js';

/**
 * What a hostile writer can make the compiler and the queue do (issue "hostile input"), each
 * measured in a process of its own so its peak RSS is its own:
 * - a 10,000-way dispute: 10,000 episodes landing on one fact key with distinct values, from 50
 *   authors of equal standing, then one compile of the subject in a fresh process (time, and that process's peak RSS);
 * - a backlog: 1,000 one-subject compile jobs queued at once, drained by one process's workers.
 * The processes run `bench/hostile-child.js` on the built packages, as `npm start` does (the
 * script builds first).
 */
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const DISPUTE = SMALL ? 2_000 : 10_000;
const BACKLOG = SMALL ? 200 : 1_000;

interface DisputeCompile {
  compile_ms: number;
  compile_cpu_ms: number;
  peak_rss_mb: number;
  rss_before_compile_mb: number;
  open_sides: number;
  state_hash: string;
}

// One compile of two seconds on a shared two-core machine is one sample of the load as much as of
// the compile: the median of three, each on a copy of the same log, with all three reported.
const DISPUTE_RUNS = 3;

export interface HostileResult {
  /**
   * The median of DISPUTE_RUNS compiles by time, each of its own copy of the ingested log in a
   * fresh process; `runs` holds them all, and the peak RSS reported is the highest of them.
   */
  dispute: DisputeCompile & { episodes: number; authors: number; runs: DisputeCompile[] };
  backlog: { jobs: number; drain_ms: number; jobs_per_s: number };
  targets: Target[];
}

function child<T>(kind: 'dispute-ingest' | 'dispute-compile' | 'backlog', databaseUrl: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [path.join(ROOT, 'bench/hostile-child.js'), kind, databaseUrl], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('exit', (code) => {
      const line = out.trim().split('\n').filter((l) => l.startsWith('{')).pop();
      if (code === 0 && line) resolve(JSON.parse(line));
      else reject(new Error(`hostile ${kind} exited ${code}: ${out.slice(-500)}`));
    });
  });
}

export async function benchHostile(cluster: BenchCluster, log: (msg: string) => void): Promise<HostileResult> {
  log(`hostile: a ${DISPUTE}-way dispute on one key`);
  const url = await cluster.createDatabase('canon_bench_dispute');
  const ingested = await child<{ episodes: number; authors: number }>('dispute-ingest', url);
  const runs: DisputeCompile[] = [];
  for (let r = 0; r < DISPUTE_RUNS; r += 1) {
    const name = `canon_bench_dispute_${r}`;
    runs.push(await child<DisputeCompile>('dispute-compile', await cluster.createDatabase(name, 'canon_bench_dispute')));
    await cluster.dropDatabase(name);
  }
  await cluster.dropDatabase('canon_bench_dispute');
  if (new Set(runs.map((r) => r.state_hash)).size !== 1) throw new Error(`the dispute's compiles disagree: ${runs.map((r) => r.state_hash).join(', ')}`);
  const median = [...runs].sort((a, b) => a.compile_ms - b.compile_ms)[Math.floor(runs.length / 2)]!;
  const d: HostileResult['dispute'] = { ...ingested, ...median, peak_rss_mb: Math.max(...runs.map((r) => r.peak_rss_mb)), runs };
  log(`hostile: ${BACKLOG} queued compiles`);
  const b = await child<HostileResult['backlog']>('backlog', await cluster.createDatabase('canon_bench_backlog'));
  await cluster.dropDatabase('canon_bench_backlog');
  const result = {
    dispute: d,
    backlog: b,
    targets: [
      target(`${DISPUTE}-way dispute: one compile (median of ${DISPUTE_RUNS})`, d.compile_ms / 1000, 2, 'max', 's'),
      target(`${DISPUTE}-way dispute: peak RSS`, d.peak_rss_mb, 300, 'max', 'MB'),
      target(`${BACKLOG} queued compiles drain`, b.jobs_per_s, 50, 'min', 'jobs/s'),
    ],
  };
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const cluster = await startBenchCluster();
  try {
    const result = await benchHostile(cluster, console.error);
    writeResult('hostile', result);
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await cluster.stop();
  }
  process.exit(0);
}
