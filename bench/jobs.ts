import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@canon/runtime/internals';
import type { BenchCluster } from './cluster.js';
import { distribution, SMALL, type Distribution } from './harness.js';

/**
 * Async jobs end to end and the server's peak memory, against a real server process:
 * `node packages/cli/bin/canon.js start` in a child process with its own CANON_HOME and port,
 * on a fresh database of the bench PostgreSQL. Load: an HTTP ingest of a history, a `{all}`
 * compile job over it, recall reads, then ≥ 30 one-subject compile jobs, each timed from the
 * POST /v1/compile {async: true} to the poll that sees it completed.
 *
 * Peak RSS is the kernel's high-water mark (VmHWM in /proc/<pid>/status) of each process of
 * the server's tree (the bin runs the built server in its own process), read just before it is
 * stopped.
 */
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const EPISODES = SMALL ? 10_000 : 50_000;
const SUBJECTS = 50;
const JOBS = 30;

export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // The process ended while we looked.
    }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    out.push(pid);
    for (const c of children.get(pid) ?? []) walk(c);
  };
  walk(root);
  return out;
}

export function peakRssMiB(pid: number): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

export async function startServer(databaseUrl: string): Promise<{ child: ChildProcess; url: string; key: string; home: string }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-bench-server-'));
  const port = await freePort();
  // BENCH_SERVER_NODE_ARGS: flags for the server's node (`--trace-gc`), which NODE_OPTIONS refuses.
  const nodeArgs = (process.env['BENCH_SERVER_NODE_ARGS'] ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, path.join(ROOT, 'packages/cli/bin/canon.js'), 'start'], {
    cwd: ROOT,
    env: { ...process.env, CANON_HOME: home, CANON_PORT: String(port), DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  // BENCH_SERVER_LOG=<file> keeps what the server prints (with `--trace-gc`, its
  // collections) for reading after the run; otherwise only the start-up lines matter.
  const logFile = process.env['BENCH_SERVER_LOG'] ? fs.createWriteStream(process.env['BENCH_SERVER_LOG']) : null;
  const keep = (d: Buffer) => {
    if (logFile) logFile.write(d);
    if (out.length < 65_536) out += d.toString();
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const deadline = Date.now() + 60_000;
  for (;;) {
    // `start` writes the owner key it creates on a fresh database to $CANON_HOME/dev-key.
    const key = fs.existsSync(path.join(home, 'dev-key')) ? fs.readFileSync(path.join(home, 'dev-key'), 'utf8').trim() : null;
    if (out.includes('Canon is serving') && key) return { child, url: `http://127.0.0.1:${port}`, key, home };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the server did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface JobsResult {
  server: string;
  episodes_ingested: number;
  all_compile_job_s: number;
  async_job_latency: Distribution;
  peak_rss_mib: { server: number | null; tree: Array<{ pid: number; peak_rss_mib: number | null }> };
}

export async function benchJobs(cluster: BenchCluster, log: (msg: string) => void = console.error): Promise<JobsResult> {
  const dbName = 'canon_bench_jobs';
  const url = await cluster.createDatabase(dbName);
  const server = await startServer(url);
  const headers = { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' };
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${server.url}${p}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status >= 300) throw new Error(`${method} ${p} answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
  const waitJob = async (id: string) => {
    for (;;) {
      const job = await call('GET', `/v1/jobs/${id}`);
      if (job['state'] === 'completed') return job;
      if (job['state'] === 'failed' || job['state'] === 'cancelled') throw new Error(`job ${id} ${String(job['state'])}: ${JSON.stringify(job['error'])}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  try {
    log(`jobs: ingesting ${EPISODES} episodes over HTTP into the server process`);
    const episode = (i: number) => ({
      idempotency_key: `jobs-${i}`,
      subject: `service:jobs-${i % SUBJECTS}`,
      occurred_at: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString(),
      kind: 'claim',
      body: { claims: [{ predicate: `setting ${Math.floor(i / SUBJECTS) % 40}`, value: `value ${i}`, effective_from: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString() }] },
    });
    for (let start = 0; start < EPISODES; start += 1000) {
      await call('POST', '/v1/episodes', { episodes: Array.from({ length: 1000 }, (_, j) => episode(start + j)) });
    }
    log('jobs: one {all} compile job over the history');
    let t0 = performance.now();
    const all = (await call('POST', '/v1/compile', { all: true, async: true })) as { job_id: string };
    await waitJob(all.job_id);
    const allSeconds = (performance.now() - t0) / 1000;
    for (let i = 0; i < 100; i += 1) await call('GET', `/v1/subjects/${encodeURIComponent(`service:jobs-${i % SUBJECTS}`)}/memories`);

    log(`jobs: ${JOBS} async compile jobs, enqueue → completed`);
    const samples: number[] = [];
    for (let i = -2; i < JOBS; i += 1) {
      const subject = `service:jobs-${(i + 2) % SUBJECTS}`;
      await call('POST', '/v1/episodes', { ...episode(EPISODES + i + 2), subject });
      t0 = performance.now();
      const job = (await call('POST', '/v1/compile', { subject, async: true })) as { job_id: string };
      await waitJob(job.job_id);
      if (i >= 0) samples.push(performance.now() - t0);
    }
    const tree = processTree(server.child.pid!).map((pid) => ({ pid, peak_rss_mib: peakRssMiB(pid) }));
    return {
      server: 'a child process: node packages/cli/bin/canon.js start (DATABASE_URL on the bench PostgreSQL); peak RSS = VmHWM of the serving process',
      episodes_ingested: EPISODES,
      all_compile_job_s: Math.round(allSeconds * 10) / 10,
      async_job_latency: distribution(samples),
      peak_rss_mib: { server: Math.max(...tree.map((t) => t.peak_rss_mib ?? 0)), tree },
    };
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((r) => (server.child.exitCode !== null ? r(null) : server.child.once('exit', r)));
    fs.rmSync(server.home, { recursive: true, force: true });
    await cluster.dropDatabase(dbName);
  }
}
