import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Principal, Runtime } from '@canon/runtime';
import { benchRuntime, startBenchCluster, type BenchCluster } from './cluster.js';
import { SMALL, target, writeResult, type Target } from './harness.js';

/**
 * What a hostile writer can make the compiler and the queue do (issue "hostile input"), each
 * measured in a process of its own so its peak RSS is its own:
 * - a 10,000-way dispute: 10,000 episodes landing on one fact key with distinct values, from 50
 *   authors of equal standing, then one compile of the subject in a fresh process (time, and that process's peak RSS);
 * - a backlog: 1,000 one-subject compile jobs queued at once, drained by one process's workers.
 */
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const DISPUTE = SMALL ? 2_000 : 10_000;
const BACKLOG = SMALL ? 200 : 1_000;

export interface HostileResult {
  dispute: { episodes: number; authors: number; compile_ms: number; compile_cpu_ms: number; peak_rss_mb: number; rss_before_compile_mb: number; open_sides: number };
  backlog: { jobs: number; drain_ms: number; jobs_per_s: number };
  targets: Target[];
}

async function keys(runtime: Runtime, n: number): Promise<Principal[]> {
  const out: Principal[] = [];
  for (let i = 0; i < n; i += 1) out.push(await runtime.authenticate((await runtime.createKey({ workspace: 'default', role: 'agent', user: `writer-${i}` })).key));
  return out;
}

/** Child: the dispute's episodes, ingested. Prints one JSON line. */
async function disputeIngest(databaseUrl: string): Promise<void> {
  const runtime = await benchRuntime(databaseUrl, {}, { queue: false });
  const authors = await keys(runtime, 50);
  for (let start = 0; start < DISPUTE; start += 1000) {
    for (const [a, p] of authors.entries()) {
      const batch = [];
      for (let i = start + a; i < Math.min(start + 1000, DISPUTE); i += authors.length) {
        const at = new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString();
        batch.push({ idempotency_key: `d-${i}`, subject: 'service:contested', occurred_at: at, body: { text: `The primary database host is db-${i}.internal.` } });
      }
      if (batch.length > 0) await runtime.ingest(p, batch);
    }
  }
  console.log(JSON.stringify({ episodes: DISPUTE, authors: authors.length }));
  await runtime.close();
}

/**
 * Child: one compile of the dispute's subject, in a process of its own (as a server's worker
 * meets it after a restart), so its peak RSS is the compile's and the runtime's, not the ingest's.
 */
async function disputeCompile(databaseUrl: string): Promise<void> {
  const runtime = await benchRuntime(databaseUrl, {}, { queue: false });
  const owner = await runtime.authenticate((await runtime.createKey({ workspace: 'default', role: 'owner' })).key);
  const before = process.memoryUsage().rss;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await runtime.compile(owner, { subject: 'service:contested' });
  const compileMs = performance.now() - t0;
  // CPU time of this process: what the compile itself cost here, whatever else ran on the machine.
  const cpu = process.cpuUsage(cpu0);
  const { memories } = await runtime.memories(owner, 'service:contested');
  const sides = Math.max(0, ...memories.map((m) => m.conflict.length));
  console.log(JSON.stringify({ compile_ms: Math.round(compileMs), compile_cpu_ms: Math.round((cpu.user + cpu.system) / 1000), peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024), rss_before_compile_mb: Math.round(before / 2 ** 20), open_sides: sides }));
  await runtime.close();
}

/** Child: the backlog. Prints one JSON line. */
async function backlog(databaseUrl: string): Promise<void> {
  const runtime = await benchRuntime(databaseUrl, { CANON_COMPILE_DEBOUNCE_SECONDS: '3600' });
  const owner = await runtime.authenticate((await runtime.createKey({ workspace: 'default', role: 'owner' })).key);
  const episodes = Array.from({ length: BACKLOG }, (_, i) => ({ idempotency_key: `b-${i}`, subject: `service:b${i}`, body: { claims: [{ predicate: 'replicas', value: i }] } }));
  for (let i = 0; i < episodes.length; i += 1000) await runtime.ingest(owner, episodes.slice(i, i + 1000));
  const t0 = performance.now();
  for (let i = 0; i < BACKLOG; i += 1) await runtime.compile(owner, { subject: `service:b${i}`, async: true });
  for (;;) {
    const { rows } = await runtime.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'compile-many' AND state = 'completed'");
    if (rows[0]!.n >= BACKLOG || performance.now() - t0 > 600_000) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const ms = performance.now() - t0;
  console.log(JSON.stringify({ jobs: BACKLOG, drain_ms: Math.round(ms), jobs_per_s: Math.round((BACKLOG / ms) * 10_000) / 10 }));
  await runtime.close();
}

function child(kind: 'dispute-ingest' | 'dispute-compile' | 'backlog', databaseUrl: string): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/hostile.ts'), kind, databaseUrl], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
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
  const d = { ...(await child('dispute-ingest', url)), ...(await child('dispute-compile', url)) };
  await cluster.dropDatabase('canon_bench_dispute');
  log(`hostile: ${BACKLOG} queued compiles`);
  const b = await child('backlog', await cluster.createDatabase('canon_bench_backlog'));
  await cluster.dropDatabase('canon_bench_backlog');
  const result = {
    dispute: d as HostileResult['dispute'],
    backlog: b as HostileResult['backlog'],
    targets: [
      target(`${DISPUTE}-way dispute: one compile`, d['compile_ms']! / 1000, 2, 'max', 's'),
      target(`${DISPUTE}-way dispute: peak RSS`, d['peak_rss_mb']!, 300, 'max', 'MB'),
      target(`${BACKLOG} queued compiles drain`, b['jobs_per_s']!, 50, 'min', 'jobs/s'),
    ],
  };
  return result;
}

const [, , kind, url] = process.argv;
if (kind === 'dispute-ingest' && url) {
  await disputeIngest(url);
  process.exit(0);
} else if (kind === 'dispute-compile' && url) {
  await disputeCompile(url);
  process.exit(0);
} else if (kind === 'backlog' && url) {
  await backlog(url);
  process.exit(0);
} else if (import.meta.url === `file://${process.argv[1]}`) {
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
