// The processes of `bench/hostile.ts`, in plain JavaScript so that they run on the built
// packages (`dist/`, what `npm start` runs) under plain `node`: a server's worker does not load
// TypeScript through tsx, whose loader and on-the-fly transpiling held about 85 MB of the
// compiling process's resident memory before it compiled anything. Each prints one JSON line.
//
//   node bench/hostile-child.js dispute-ingest|dispute-compile|backlog <database url>
import { createRuntime, loadConfig } from '@canon/runtime';
import { applyV8Flags } from '@canon/runtime/heap';

// The heap settings `canon start` runs with (a server's worker is what this process stands for).
applyV8Flags();

const SMALL = process.env['BENCH_SCALE'] === 'small';
const DISPUTE = SMALL ? 2_000 : 10_000;
const BACKLOG = SMALL ? 200 : 1_000;

/** A runtime over this database, as `bench/cluster.ts`'s benchRuntime makes one. */
function runtimeOver(databaseUrl, env = {}, options = {}) {
  return createRuntime(loadConfig({ ...env, CANON_PORT: '0' }, { databaseUrl, poolSize: 20 }), options);
}

async function keys(runtime, n) {
  const out = [];
  for (let i = 0; i < n; i += 1) out.push(await runtime.authenticate((await runtime.createKey({ workspace: 'default', role: 'agent', user: `writer-${i}` })).key));
  return out;
}

/** The dispute's episodes: DISPUTE distinct values of one fact key, from 50 authors of equal standing. */
async function disputeIngest(databaseUrl) {
  const runtime = await runtimeOver(databaseUrl, {}, { queue: false });
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
 * One compile of the dispute's subject, in a process of its own (as a server's worker meets it
 * after a restart), so its peak RSS is the compile's and the runtime's, not the ingest's.
 */
async function disputeCompile(databaseUrl) {
  const runtime = await runtimeOver(databaseUrl, {}, { queue: false });
  const owner = await runtime.authenticate((await runtime.createKey({ workspace: 'default', role: 'owner' })).key);
  const before = process.memoryUsage().rss;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const { result } = await runtime.compile(owner, { subject: 'service:contested' });
  const compileMs = performance.now() - t0;
  // CPU time of this process: what the compile itself cost here, whatever else ran on the machine.
  const cpu = process.cpuUsage(cpu0);
  const { memories } = await runtime.memories(owner, 'service:contested');
  const sides = Math.max(0, ...memories.map((m) => m.conflict.length));
  console.log(
    JSON.stringify({
      compile_ms: Math.round(compileMs),
      compile_cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
      rss_before_compile_mb: Math.round(before / 2 ** 20),
      open_sides: sides,
      state_hash: result.state_hash,
    }),
  );
  await runtime.close();
}

/** The backlog: BACKLOG one-subject compile jobs queued at once, drained by this process's workers. */
async function backlog(databaseUrl) {
  const runtime = await runtimeOver(databaseUrl, { CANON_COMPILE_DEBOUNCE_SECONDS: '3600' });
  const owner = await runtime.authenticate((await runtime.createKey({ workspace: 'default', role: 'owner' })).key);
  const episodes = Array.from({ length: BACKLOG }, (_, i) => ({ idempotency_key: `b-${i}`, subject: `service:b${i}`, body: { claims: [{ predicate: 'replicas', value: i }] } }));
  for (let i = 0; i < episodes.length; i += 1000) await runtime.ingest(owner, episodes.slice(i, i + 1000));
  const t0 = performance.now();
  for (let i = 0; i < BACKLOG; i += 1) await runtime.compile(owner, { subject: `service:b${i}`, async: true });
  for (;;) {
    const { rows } = await runtime.pool.query("SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'compile-many' AND state = 'completed'");
    if (rows[0].n >= BACKLOG || performance.now() - t0 > 600_000) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const ms = performance.now() - t0;
  console.log(JSON.stringify({ jobs: BACKLOG, drain_ms: Math.round(ms), jobs_per_s: Math.round((BACKLOG / ms) * 10_000) / 10 }));
  await runtime.close();
}

const children = { 'dispute-ingest': disputeIngest, 'dispute-compile': disputeCompile, backlog };
const [, , kind, url] = process.argv;
const run = children[kind];
if (!run || !url) {
  console.error('usage: node bench/hostile-child.js dispute-ingest|dispute-compile|backlog <database url>');
  process.exit(2);
}
await run(url);
process.exit(0);
