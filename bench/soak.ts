import fs from 'node:fs';
import { startBenchCluster, type BenchCluster } from './cluster.js';
import { distribution, SMALL, target, writeResult, type Distribution, type Target } from './harness.js';
import { processTree, startServer } from './jobs.js';

/**
 * A soak of a real server (`canon start` in a child process): for SOAK_SECONDS (600; 60 with
 * BENCH_SCALE=small) it takes steady ingest, one-subject and `{all}` compile jobs, recall reads,
 * and one client that sends nothing but hostile requests. Per minute: recall latency and the
 * server's RSS. Goals: recall p95 < 50 ms over the run, and the last minute's peak RSS within
 * 10% of the second minute's (memory flat, not growing with time).
 */
const SECONDS = Number(process.env['SOAK_SECONDS'] ?? (SMALL ? 60 : 600));
// Spread like a real workspace: many subjects, each with a modest history (a key restated
// without end is the compile benchmark's case, not the soak's).
const SUBJECTS = 2_000;

export interface SoakResult {
  seconds: number;
  ingested: number;
  compile_jobs: number;
  all_jobs: number;
  recall: Distribution;
  hostile: { requests: number; statuses: Record<string, number>; server_errors: number };
  minutes: Array<{ minute: number; recall_p95_ms: number; peak_rss_mb: number; peak_heap_used_mb: number; peak_heap_total_mb: number }>;
  targets: Target[];
}

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

const deep = (n: number) => `{"idempotency_key":"x","subject":"s","body":{"claims":[{"predicate":"p","value":${'['.repeat(n)}1${']'.repeat(n)}}]}}`;
const HOSTILE: Array<{ method: string; path: string; body?: string; type?: string }> = [
  { method: 'POST', path: '/v1/episodes', body: deep(3000), type: 'application/json' },
  { method: 'POST', path: '/v1/episodes', body: deep(100_000), type: 'application/json' },
  { method: 'POST', path: '/v1/compile', body: '{"all":true}', type: 'text/plain' },
  { method: 'POST', path: '/v1/compile', body: '{"subject":"a\\u0000b"}', type: 'application/json' },
  { method: 'GET', path: '/v1/memories/%00' },
  { method: 'GET', path: '/v1/subjects/%ED%A0%80/memories' },
  { method: 'GET', path: '/v1/episodes?after=99999999999999999999.1' },
  { method: 'POST', path: '/v1/episodes', body: JSON.stringify({ idempotency_key: 'big', subject: 's', body: { claims: [{ predicate: 'p', value: 'x'.repeat(200_000) }] } }), type: 'application/json' },
  { method: 'POST', path: '/v1/episodes', body: '{"idempotency_key": ', type: 'application/json' },
  { method: 'POST', path: '/v1/compile', body: '{"all":true,"async":true}', type: 'application/json' },
];

export async function benchSoak(cluster: BenchCluster, log: (msg: string) => void = console.error): Promise<SoakResult> {
  const dbName = 'canon_bench_soak';
  const server = await startServer(await cluster.createDatabase(dbName));
  const pid = server.child.pid!;
  const headers = { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' };
  const post = (p: string, body: unknown) => fetch(`${server.url}${p}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  const running = () => elapsed() < SECONDS;
  const recalls: Array<{ at: number; ms: number }> = [];
  const rss: Array<{ at: number; mb: number }> = [];
  // The server's own view of its memory, from /metrics: heap in use (objects kept alive) next to
  // the resident set, to tell a leak from V8 keeping freed heap.
  const heap: Array<{ at: number; used: number; total: number }> = [];
  const gauge = (text: string, name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? 0) / 2 ** 20;
  const statuses: Record<string, number> = {};
  let ingested = 0;
  let compileJobs = 0;
  let allJobs = 0;
  let hostileRequests = 0;
  try {
    await Promise.all([
      (async () => {
        for (let batch = 0; running(); batch += 1) {
          const episodes = Array.from({ length: 50 }, (_, i) => {
            const n = batch * 50 + i;
            return { idempotency_key: `soak-${n}`, subject: `service:soak-${n % SUBJECTS}`, occurred_at: new Date(Date.UTC(2025, 0, 1) + n * 1000).toISOString(), body: { claims: [{ predicate: `setting ${n % 20}`, value: `v${n}`, effective_from: new Date(Date.UTC(2025, 0, 1) + n * 1000).toISOString() }] } };
          });
          const res = await post('/v1/episodes', { episodes });
          if (res.ok) ingested += 50;
          await res.arrayBuffer();
          await new Promise((r) => setTimeout(r, 200));
        }
      })(),
      (async () => {
        for (let i = 0; running(); i += 1) {
          const all = i % 15 === 14;
          const res = await post('/v1/compile', all ? { all: true, async: true } : { subject: `service:soak-${i % SUBJECTS}`, async: true });
          await res.arrayBuffer();
          if (all) allJobs += 1;
          else compileJobs += 1;
          await new Promise((r) => setTimeout(r, 2000));
        }
      })(),
      (async () => {
        for (let i = 0; running(); i += 1) {
          const t0 = performance.now();
          const res = await fetch(`${server.url}/v1/subjects/${encodeURIComponent(`service:soak-${(i * 7) % SUBJECTS}`)}/memories`, { headers });
          await res.arrayBuffer();
          recalls.push({ at: elapsed(), ms: performance.now() - t0 });
          await new Promise((r) => setTimeout(r, 20));
        }
      })(),
      (async () => {
        for (let i = 0; running(); i += 1) {
          const h = HOSTILE[i % HOSTILE.length]!;
          const res = await fetch(`${server.url}${h.path}`, { method: h.method, headers: { authorization: headers.authorization, ...(h.type ? { 'content-type': h.type } : {}) }, ...(h.body ? { body: h.body } : {}) });
          await res.arrayBuffer();
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          hostileRequests += 1;
          await new Promise((r) => setTimeout(r, 50));
        }
      })(),
      (async () => {
        while (running()) {
          rss.push({ at: elapsed(), mb: Math.max(...processTree(pid).map(rssMb)) });
          const metrics = await (await fetch(`${server.url}/metrics`, { headers })).text();
          heap.push({ at: elapsed(), used: gauge(metrics, 'nodejs_heap_size_used_bytes'), total: gauge(metrics, 'nodejs_heap_size_total_bytes') });
          if (Math.floor(elapsed()) % 60 === 0) log(`soak: ${Math.floor(elapsed())} s of ${SECONDS}`);
          await new Promise((r) => setTimeout(r, 1000));
        }
      })(),
    ]);
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((r) => (server.child.exitCode !== null ? r(null) : server.child.once('exit', r)));
    fs.rmSync(server.home, { recursive: true, force: true });
    await cluster.dropDatabase(dbName);
  }
  const minutes = Array.from({ length: Math.ceil(SECONDS / 60) }, (_, m) => {
    const inMinute = <T extends { at: number }>(xs: T[]) => xs.filter((x) => x.at >= m * 60 && x.at < (m + 1) * 60);
    return {
      minute: m + 1,
      recall_p95_ms: distribution(inMinute(recalls).map((r) => r.ms)).p95_ms,
      peak_rss_mb: Math.round(Math.max(0, ...inMinute(rss).map((r) => r.mb))),
      peak_heap_used_mb: Math.round(Math.max(0, ...inMinute(heap).map((r) => r.used))),
      peak_heap_total_mb: Math.round(Math.max(0, ...inMinute(heap).map((r) => r.total))),
    };
  });
  const recall = distribution(recalls.map((r) => r.ms));
  const second = minutes[Math.min(1, minutes.length - 1)]!.peak_rss_mb;
  const last = minutes[minutes.length - 1]!.peak_rss_mb;
  const serverErrors = Object.entries(statuses).filter(([s]) => Number(s) >= 500).reduce((n, [, c]) => n + c, 0);
  return {
    seconds: SECONDS,
    ingested,
    compile_jobs: compileJobs,
    all_jobs: allJobs,
    recall,
    hostile: { requests: hostileRequests, statuses, server_errors: serverErrors },
    minutes,
    targets: [
      target('soak: recall p95', recall.p95_ms, 50, 'max', 'ms'),
      target('soak: last minute peak RSS / second minute', Math.round((last / second) * 100) / 100, 1.1, 'max', '×'),
      target('soak: 5xx answers to the hostile client', serverErrors, 1, 'max', ''),
    ],
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const cluster = await startBenchCluster();
  try {
    const result = await benchSoak(cluster);
    writeResult('soak', result);
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await cluster.stop();
  }
  process.exit(0);
}
