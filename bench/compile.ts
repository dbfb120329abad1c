import { createApp, serveOnLoopback } from '@canon/api';
import { type Principal, type Runtime } from '@canon/runtime';
import { compileSubject } from '@canon/runtime/internals';
import { benchRuntime, startBenchCluster, type BenchCluster } from './cluster.js';
import { distribution, machine, postgresVersion, SMALL, target, timeRuns, writeResult, type Distribution, type Target } from './harness.js';

/**
 * Compile cost against history size (issue 4): subjects of 1k, 10k and 100k episodes and one
 * hot key restated 10,000 times. For each: the first compile's throughput, the no-op recompile
 * (function call and HTTP), and a one-episode incremental compile.
 *
 * Every key gets the same number of claims whatever the subject's size (50), so a flat
 * incremental cost means the compiler's work follows the change, not the history.
 */
const SIZES = SMALL ? [1000, 3000, 10_000] : [1000, 10_000, 100_000];
const HOT = SMALL ? 2000 : 10_000;
const CLAIMS_PER_KEY = 50;
const NOOP_RUNS = 50;
const INCREMENTAL_RUNS = 20;
const BATCH = 1000;
const BASE = Date.UTC(2024, 0, 1);

export interface CompileCase {
  name: string;
  subject: string;
  episodes: number;
  keys: number;
  memories: number;
  first_compile_s: number;
  episodes_per_s: number;
  /** CPU of this process (user + system) during the first compile; the machine is shared, wall time is not. */
  first_compile_cpu_s: number;
  /** Episodes per second of this process's CPU: what the compile would reach if it had a core to itself. */
  episodes_per_cpu_s: number;
  noop_function: Distribution;
  noop_http: Distribution;
  incremental: Distribution;
}

/**
 * Episode i of a subject: key i mod keys; each key's value changes at every fifth restatement (or
 * every `changeEvery`th; Infinity: never), at an explicit time.
 */
export function episode(subject: string, i: number, keys: number, changeEvery = 5) {
  const at = new Date(BASE + i * 60_000).toISOString();
  const restatement = Math.floor(i / keys);
  return {
    idempotency_key: `${subject}#${i}`,
    subject,
    kind: 'claim',
    occurred_at: at,
    body: { claims: [{ predicate: `setting ${i % keys}`, value: `value ${Number.isFinite(changeEvery) ? Math.floor(restatement / changeEvery) : 0}`, effective_from: at }] },
  };
}

/** An agent naming another value for key 0 just after its first claim: below the owner's standing, overruled. */
export function overruledEpisode(subject: string) {
  const at = new Date(BASE + 30_000).toISOString();
  return { idempotency_key: `${subject}#agent`, subject, kind: 'claim', occurred_at: at, body: { claims: [{ predicate: 'setting 0', value: 'overruled', effective_from: at }] } };
}

export async function ingestHistory(runtime: Runtime, principal: Principal, subject: string, episodes: number, keys: number, changeEvery = 5) {
  for (let start = 0; start < episodes; start += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, episodes - start) }, (_, j) => episode(subject, start + j, keys, changeEvery));
    await runtime.ingest(principal, batch);
  }
}

export async function benchCompile(log: (msg: string) => void = console.error, cluster?: BenchCluster): Promise<Record<string, unknown>> {
  const own = !cluster;
  const c = cluster ?? (await startBenchCluster());
  const dbName = 'canon_bench_compile';
  const url = await c.createDatabase(dbName);
  // A long debounce and a huge compile-after: no background compile runs while we measure.
  const runtime = await benchRuntime(url, { CANON_COMPILE_DEBOUNCE_SECONDS: '3600', CANON_COMPILE_AFTER: '1000000000' });
  const http = await serveOnLoopback(createApp(runtime));
  try {
    const { key } = await runtime.createKey({ workspace: 'bench-compile', role: 'owner' });
    const principal = await runtime.authenticate(key);
    const agent = await runtime.authenticate((await runtime.createKey({ workspace: 'bench-compile', role: 'agent' })).key);
    const cases: Array<{ name: string; subject: string; episodes: number; keys: number; changeEvery?: number; overruled?: true }> = [
      ...SIZES.map((n) => ({ name: `${n / 1000}k`, subject: `bench:history-${n}`, episodes: n, keys: n / CLAIMS_PER_KEY })),
      { name: `hot key ×${HOT / 1000}k`, subject: 'bench:hot-key', episodes: HOT, keys: 1 },
      // The same key restated with one value throughout: its open value holds every claim, and its
      // evidence is kept in blocks of its own (docs/scaling.md).
      { name: `hot key ×${HOT / 1000}k, one value`, subject: 'bench:hot-key-one-value', episodes: HOT, keys: 1, changeEvery: Infinity },
      // The changing key with an agent overruled under its first value: the overruled value is
      // sealed with the values around it, so the key costs what the plain one does.
      { name: `hot key ×${HOT / 1000}k, an agent overruled early`, subject: 'bench:hot-key-overruled', episodes: HOT, keys: 1, overruled: true },
    ];
    const results: CompileCase[] = [];
    const sizedLargest = cases.filter((c) => c.keys > 1).at(-1);
    let physical: (PhysicalLimit & { subject: string; compile_s: number; ratio: number }) | null = null;
    for (const k of cases) {
      log(`compile: ingesting ${k.episodes} episodes of ${k.subject} (${k.keys} keys)`);
      await ingestHistory(runtime, principal, k.subject, k.episodes - (k.overruled ? 1 : 0), k.keys, k.changeEvery);
      if (k.overruled) await runtime.ingest(agent, [overruledEpisode(k.subject)]);
    }
    for (const k of cases) {
      log(`compile: first compile of ${k.subject}`);
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const first = await compileSubject(runtime.pool, principal.workspace_id, k.subject);
      const cpu = process.cpuUsage(cpu0);
      const seconds = (performance.now() - t0) / 1000;
      const cpuSeconds = (cpu.user + cpu.system) / 1e6;
      if (first.episodes_processed !== k.episodes) throw new Error(`compiled ${first.episodes_processed} of ${k.episodes} episodes`);
      const bare = k === sizedLargest ? await physicalLimit(runtime, principal.workspace_id, k.subject) : null;
      if (bare) physical = { subject: k.subject, compile_s: Math.round(seconds * 100) / 100, ...bare, ratio: Math.round((bare.total_s / seconds) * 1000) / 1000 };
      // The steady state a running server reaches once autovacuum has passed: without this the
      // measurements below race autovacuum's pass over the rows the first compile just wrote.
      await runtime.pool.query('VACUUM ANALYZE');

      log(`compile: no-op recompiles of ${k.subject}`);
      const noopFn = await timeRuns(NOOP_RUNS, async () => {
        const r = await compileSubject(runtime.pool, principal.workspace_id, k.subject);
        if (r.episodes_processed !== 0 || r.state_hash !== first.state_hash) throw new Error('a no-op compile changed something');
      });
      const body = JSON.stringify({ subject: k.subject });
      const noopHttp = await timeRuns(NOOP_RUNS, async () => {
        const res = await fetch(`${http.url}/v1/compile`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
        if (res.status !== 200) throw new Error(`compile answered ${res.status}`);
        await res.arrayBuffer();
      });

      log(`compile: one-episode incremental compiles of ${k.subject}`);
      let next = k.episodes;
      const incremental: number[] = [];
      for (let i = -2; i < INCREMENTAL_RUNS; i += 1) {
        await runtime.ingest(principal, [episode(k.subject, next, k.keys, k.changeEvery)]);
        next += 1;
        const t0 = performance.now();
        const r = await compileSubject(runtime.pool, principal.workspace_id, k.subject);
        const ms = performance.now() - t0;
        if (r.episodes_processed !== 1) throw new Error(`an incremental compile processed ${r.episodes_processed} episodes`);
        if (i >= 0) incremental.push(ms);
      }
      results.push({
        name: k.name,
        subject: k.subject,
        episodes: k.episodes,
        keys: k.keys,
        memories: first.memories_created,
        first_compile_s: Math.round(seconds * 100) / 100,
        episodes_per_s: Math.round(k.episodes / seconds),
        first_compile_cpu_s: Math.round(cpuSeconds * 100) / 100,
        episodes_per_cpu_s: Math.round(k.episodes / cpuSeconds),
        noop_function: distribution(noopFn),
        noop_http: distribution(noopHttp),
        incremental: distribution(incremental),
      });
    }

    const sized = results.filter((r) => r.keys > 1);
    const largest = sized[sized.length - 1]!;
    const smallest = sized[0]!;
    const hot = results.find((r) => r.subject === 'bench:hot-key')!;
    const oneValue = results.find((r) => r.subject === 'bench:hot-key-one-value')!;
    const overruled = results.find((r) => r.subject === 'bench:hot-key-overruled')!;
    const growth = (f: (r: CompileCase) => number) => Math.round((f(largest) / f(smallest)) * 100) / 100;
    const targets: Target[] = [
      target(`no-op recompile median at ${largest.name} (function)`, largest.noop_function.median_ms, 5, 'max', 'ms'),
      target(`no-op recompile median at ${largest.name} (HTTP)`, largest.noop_http.median_ms, 5, 'max', 'ms'),
      target(`no-op growth ${smallest.name} → ${largest.name} (flat: median ratio)`, growth((r) => r.noop_function.median_ms), 2, 'max', '×'),
      target(`one-episode incremental compile median at ${largest.name}`, largest.incremental.median_ms, 20, 'max', 'ms'),
      target(`first compile at ${largest.name}`, largest.episodes_per_s, 10_000, 'min', 'episodes/s'),
      target(`one-episode incremental compile median, ${hot.name}`, hot.incremental.median_ms, 20, 'max', 'ms'),
      target(`one-episode incremental compile median, ${oneValue.name}`, oneValue.incremental.median_ms, 20, 'max', 'ms'),
      target(`one-episode incremental compile median, ${overruled.name}`, overruled.incremental.median_ms, 20, 'max', 'ms'),
      target(`first compile at ${largest.name} ÷ its physical limit (bare SQL: the same reads and writes)`, physical?.ratio ?? null, 0.3, 'min', ''),
    ];
    return {
      benchmark: 'compile',
      scale: SMALL ? 'small' : 'full',
      cases: results,
      physical_limit: physical,
      growth: {
        from: smallest.name,
        to: largest.name,
        history_ratio: largest.episodes / smallest.episodes,
        noop_function_median: growth((r) => r.noop_function.median_ms),
        noop_http_median: growth((r) => r.noop_http.median_ms),
        incremental_median: growth((r) => r.incremental.median_ms),
      },
      targets,
      met: Object.fromEntries(targets.map((t) => [t.metric, t.met])),
      notes: [
        `Histories ingested with the runtime's ingest in ${BATCH}-episode batches, CANON_COMPILE_DEBOUNCE_SECONDS=3600 and CANON_COMPILE_AFTER=1e9, so no background compile ran during the measurements.`,
        `${CLAIMS_PER_KEY} claims per key in every sized subject (keys = episodes / ${CLAIMS_PER_KEY}); each key's value changes at every fifth restatement with an explicit effective time, the others are duplicates.`,
        'Physical limit: right after the first compile of the largest subject, the same work as bare SQL in one transaction: its episodes read into this process (id and body), its claims read back, and every row the compile wrote for it (claims, memories, memory_values, evidence, claim_decisions, episode_markers) copied by INSERT … SELECT into empty tables of the same shape, indexes included. The copy runs inside PostgreSQL, so it is a floor the compile cannot reach; the ratio is that floor over the compile\'s wall time.',
        'Throughput: the first compile of the whole history, in wall time and in CPU of the compiling process (process.cpuUsage; PostgreSQL\'s own CPU is not in it) (chunks of CANON_COMPILE_CHUNK = 100,000 episodes per transaction). Then VACUUM ANALYZE (what autovacuum would do; otherwise the measurements race it). No-op: compileSubject on a subject with nothing pending, and POST /v1/compile over a loopback HTTP server. Incremental: one more episode ingested (untimed), then compileSubject timed.',
      ],
      machine: { ...machine(), postgres: await postgresVersion(runtime) },
      measured_at: new Date().toISOString(),
    };
  } finally {
    await http.close();
    await runtime.close();
    await c.dropDatabase(dbName);
    if (own) await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await benchCompile();
  const file = writeResult('compile', result);
  console.log(JSON.stringify(result, null, 2));
  console.error(`written to ${file}`);
  process.exit(0);
}

export interface PhysicalLimit {
  read_s: number;
  write_s: number;
  total_s: number;
  rows_written: number;
}

/**
 * The floor under a first compile: its reads and writes with nothing between them. Tables of
 * the same shape (LIKE … INCLUDING ALL) take a copy of every row the compile wrote.
 */
async function physicalLimit(runtime: Runtime, workspaceId: string, subject: string): Promise<PhysicalLimit> {
  const tables = ['claims', 'memories', 'memory_values', 'evidence', 'claim_decisions', 'episode_markers'] as const;
  const client = await runtime.pool.connect();
  try {
    await client.query('BEGIN');
    for (const t of tables) await client.query(`CREATE TABLE bare_${t} (LIKE ${t} INCLUDING ALL)`);
    const t0 = performance.now();
    await client.query('SELECT id, body FROM episodes WHERE workspace_id = $1 AND subject = $2 ORDER BY tx_id, position', [workspaceId, subject]);
    await client.query('SELECT memory_id, claim FROM claims WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
    const t1 = performance.now();
    let rows = 0;
    const ofSubject = `workspace_id = $1 AND memory_id IN (SELECT id FROM memories WHERE workspace_id = $1 AND subject = $2)`;
    for (const t of tables) {
      const where = t === 'evidence' || t === 'claim_decisions' ? ofSubject : 'workspace_id = $1 AND subject = $2';
      rows += (await client.query(`INSERT INTO bare_${t} SELECT * FROM ${t} WHERE ${where}`, [workspaceId, subject])).rowCount ?? 0;
    }
    const t2 = performance.now();
    return { read_s: round2((t1 - t0) / 1000), write_s: round2((t2 - t1) / 1000), total_s: round2((t2 - t0) / 1000), rows_written: rows };
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
  }
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
