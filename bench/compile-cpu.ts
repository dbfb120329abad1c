import fs from 'node:fs';
import { type Runtime } from '@canon/runtime';
import { compileSubject } from '@canon/runtime/internals';
import { benchRuntime, startBenchCluster } from './cluster.js';
import { episode, overruledEpisode } from './compile.js';

/**
 * CPU, not just wall time, of one compile on a machine others share: the compiling process's
 * user + system time (process.cpuUsage) and that of the PostgreSQL backends serving it (from
 * /proc, when the server runs on this host). A seeded database is kept as a template, so each
 * run starts from the same log.
 *
 *   tsx --conditions=source bench/compile-cpu.ts seed            # once
 *   tsx --conditions=source bench/compile-cpu.ts first [subject] # a first compile (UNANALYZED=1: with no statistics yet)
 *   tsx --conditions=source bench/compile-cpu.ts hot [runs] [subject] # one-episode compiles (of the hot key by default)
 */
const SEED = 'canon_bench_cpu_seed';
const RUN = 'canon_bench_cpu_run';


const SUBJECTS = [
  { subject: 'bench:history-100000', episodes: 100_000, keys: 2000 },
  { subject: 'bench:history-10000', episodes: 10_000, keys: 200 },
  { subject: 'bench:hot-key', episodes: 10_000, keys: 1 },
  { subject: 'bench:hot-key-one-value', episodes: 10_000, keys: 1, changeEvery: Number.POSITIVE_INFINITY },
  { subject: 'bench:hot-key-overruled', episodes: 10_000, keys: 1, overruled: true },
];

async function backendCpuMs(runtime: Runtime, db: string): Promise<number> {
  const { rows } = await runtime.pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [db]);
  let ticks = 0;
  for (const { pid } of rows) {
    try {
      const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // not on this host, or gone
    }
  }
  return ticks * 10;
}

const mode = process.argv[2] ?? 'first';
// QTIME=1: per statement shape (first 70 characters), the wall time from the moment the server
// could start on it (sent, and the connection's previous statement answered) to its answer, the
// characters of its string parameters, and the CPU its backend spent meanwhile (from /proc: a
// connection runs one statement at a time).
const qtime = new Map<string, { n: number; ms: number; cpu: number; chars: number }>();
const prevDone = new WeakMap<object, Promise<unknown>>();
if (process.env['QTIME']) {
  const pg = (await import('pg')).default;
  const orig = pg.Client.prototype.query as (...a: unknown[]) => unknown;
  const last = new WeakMap<object, { done: number; ticks: number }>();
  const ticksOf = (pid: number | undefined) => {
    try {
      const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return Number(f[11]) + Number(f[12]);
    } catch {
      return 0;
    }
  };
  (pg.Client.prototype as unknown as { query: unknown }).query = function (this: { processID?: number }, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : '';
    const sent = performance.now();
    const params = Array.isArray(args[1]) ? (args[1] as unknown[]) : [];
    const chars = params.reduce<number>((n, v) => n + (typeof v === 'string' ? v.length : 0), 0);
    const r = orig.apply(this, args);
    if (text && r && typeof (r as Promise<unknown>).then === 'function') {
      const prev = last.get(this) ?? { done: 0, ticks: ticksOf(this.processID) };
      const mine = { done: 0, ticks: 0 };
      last.set(this, mine);
      const settle = async () => {
        await prevDone.get(prev);
        const now = performance.now();
        const ticks = ticksOf(this.processID);
        mine.done = now;
        mine.ticks = ticks;
        const k = text.replace(/\s+/g, ' ').slice(0, 70);
        const q = qtime.get(k) ?? { n: 0, ms: 0, cpu: 0, chars: 0 };
        q.chars += chars;
        q.n += 1;
        q.ms += now - Math.max(sent, prev.done);
        q.cpu += (ticks - prev.ticks) * 10;
        qtime.set(k, q);
      };
      const p = (r as Promise<unknown>).then(settle, settle);
      prevDone.set(mine, p);
    }
    return r;
  };
}
process.on('exit', () => {
  for (const [k, q] of [...qtime].sort((a, b) => b[1].cpu - a[1].cpu).slice(0, 25))
    console.error(`${Math.round(q.ms).toString().padStart(7)} ms ${q.cpu.toString().padStart(7)} ms cpu ${(q.chars / 1e6).toFixed(1).padStart(6)} MB sent ${q.n.toString().padStart(6)}× ${k}`);
});
const cluster = await startBenchCluster();
try {
  if (mode === 'seed') {
    const url = await cluster.createDatabase(SEED);
    const runtime = await benchRuntime(url, { CANON_COMPILE_DEBOUNCE_SECONDS: '3600', CANON_COMPILE_AFTER: '1000000000' });
    const { key } = await runtime.createKey({ workspace: 'bench-compile', role: 'owner' });
    const principal = await runtime.authenticate(key);
    for (const s of SUBJECTS) {
      for (let start = 0; start < s.episodes; start += 1000) {
        await runtime.ingest(principal, Array.from({ length: Math.min(1000, s.episodes - start) }, (_, j) => episode(s.subject, start + j, s.keys, s.changeEvery)));
      }
      if ('overruled' in s) {
        const agent = await runtime.authenticate((await runtime.createKey({ workspace: 'bench-compile', role: 'agent' })).key);
        await runtime.ingest(agent, [overruledEpisode(s.subject)]);
      }
      console.error(`seeded ${s.subject}`);
    }
    // Left as an ingest leaves it: each run decides whether the tables are analyzed first.
    fs.writeFileSync('/tmp/canon-bench-cpu-key', key);
    await runtime.close();
  } else {
    const url = await cluster.createDatabase(RUN, SEED);
    // No queue workers: the seed's debounced compile jobs come due an hour after seeding, and a
    // worker would then compile every seeded subject beside the one measured.
    const runtime = await benchRuntime(url, { CANON_COMPILE_DEBOUNCE_SECONDS: '3600', CANON_COMPILE_AFTER: '1000000000' }, { queue: false });
    const principal = await runtime.authenticate(fs.readFileSync('/tmp/canon-bench-cpu-key', 'utf8'));
    // UNANALYZED=1: as right after a backfill, before autovacuum has gathered any statistics.
    if (!process.env['UNANALYZED']) await runtime.pool.query('VACUUM ANALYZE');
    const measure = async (fn: () => Promise<unknown>) => {
      const b0 = await backendCpuMs(runtime, RUN);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await fn();
      const wall = performance.now() - t0;
      const c = process.cpuUsage(c0);
      const b = (await backendCpuMs(runtime, RUN)) - b0;
      return { wall_ms: Math.round(wall), node_cpu_ms: Math.round((c.user + c.system) / 1000), pg_cpu_ms: b };
    };
    if (mode === 'first') {
      const subject = process.argv[3] ?? 'bench:history-100000';
      const n = SUBJECTS.find((s) => s.subject === subject)!.episodes;
      let state = '';
      const m = await measure(async () => {
        const r = await compileSubject(runtime.pool, principal.workspace_id, subject);
        state = r.state_hash;
      });
      console.log(JSON.stringify({ mode, subject, ...m, episodes_per_s: Math.round(n / (m.wall_ms / 1000)), per_cpu_s: Math.round(n / (m.node_cpu_ms / 1000)), state_hash: state }));
    } else if (mode === 'hot') {
      const runs = Number(process.argv[3] ?? 10);
      const s = SUBJECTS.find((x) => x.subject === (process.argv[4] ?? 'bench:hot-key'))!;
      await compileSubject(runtime.pool, principal.workspace_id, s.subject);
      await runtime.pool.query('VACUUM ANALYZE');
      const out: Array<{ wall_ms: number; node_cpu_ms: number; pg_cpu_ms: number }> = [];
      let hash = '';
      for (let i = 0; i < runs + 2; i += 1) {
        // QTIME counts the measured compiles only, not the first compile or the warm-up.
        if (i === 2) qtime.clear();
        await runtime.ingest(principal, [episode(s.subject, s.episodes + i, s.keys, s.changeEvery)]);
        const m = await measure(async () => {
          hash = (await compileSubject(runtime.pool, principal.workspace_id, s.subject)).state_hash;
        });
        if (i >= 2) out.push(m);
      }
      const med = (k: 'wall_ms' | 'node_cpu_ms' | 'pg_cpu_ms') => out.map((x) => x[k]).sort((a, b) => a - b)[Math.floor(out.length / 2)];
      console.log(JSON.stringify({ mode, runs, wall_median_ms: med('wall_ms'), node_cpu_median_ms: med('node_cpu_ms'), pg_cpu_median_ms: med('pg_cpu_ms'), state_hash: hash }));
    }
    await runtime.close();
    if (!process.env['KEEP']) await cluster.dropDatabase(RUN);
  }
} finally {
  await cluster.stop();
}
