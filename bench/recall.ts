import { createApp, serveOnLoopback } from '@canon/api';
import { type Principal, type Runtime } from '@canon/runtime';
import { compileMany, withWorkspace } from '@canon/runtime/internals';
import { benchRuntime, startBenchCluster, type BenchCluster } from './cluster.js';
import { distribution, machine, postgresVersion, SMALL, target, timeRuns, writeResult, type Distribution } from './harness.js';

/**
 * Recall latency (issue 5) on a workspace of 1,000,000 memories over 10,000 subjects.
 *
 * The workspace is seeded once, through the real path: episodes ingested with the runtime's
 * ingest, then the real compile of every subject. The seeded database becomes a template
 * (`canon_bench_recall_v1`) in the bench PostgreSQL kept in `.canon-bench/`; every run clones
 * it (`CREATE DATABASE … TEMPLATE …`) and measures on the clone.
 */
const SUBJECTS = SMALL ? 1000 : 10_000;
const MEMORIES_PER_SUBJECT = 100;
const TEMPLATE = SMALL ? 'canon_bench_recall_small_v1' : 'canon_bench_recall_v1';
const RUN_DB = 'canon_bench_recall_run';
const WORKSPACE = 'bench-recall';
const RUNS = 200;
// Search across the workspace ranks a window of 100 matches (migration 0015), no longer every
// match: it runs as many times as the other measures.
const SEARCH_RUNS = RUNS;

const COMPONENTS = ['api', 'database', 'cache', 'queue', 'scheduler', 'gateway', 'storage', 'search', 'billing', 'auth'];
const ATTRIBUTES = ['owner team', 'deploy day', 'timeout', 'region', 'version', 'runbook', 'alert channel', 'budget', 'retention', 'replicas'];
const WORDS = ['alpha', 'bravo', 'canary', 'delta', 'ember', 'falcon', 'granite', 'harbor', 'indigo', 'juniper', 'kestrel', 'lumen', 'meadow', 'nimbus', 'orchid', 'pioneer'];

/** A small deterministic generator (mulberry32) so every seed and every run asks the same things. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const subjectName = (j: number) => `service:svc-${String(j).padStart(5, '0')}`;
const predicate = (k: number) => `${COMPONENTS[k % 10]} ${ATTRIBUTES[Math.floor(k / 10) % 10]}`;
const valueOf = (j: number, k: number, version: number) => `${WORDS[(j * 7 + k * 3 + version) % WORDS.length]} ${(j + k) % 97}`;

/**
 * A subject's episodes: the first states keys 0–59, the second restates 40–59 (the same values:
 * duplicates, from another source) and adds 60–99, the third changes ten keys at an explicit
 * time. 100 memories, some with two values in their timeline and evidence from two sources.
 */
function subjectEpisodes(j: number) {
  const subject = subjectName(j);
  const base = Date.UTC(2025, 0, 1) + (j % 1000) * 60_000;
  const claim = (k: number, version = 0) => ({ predicate: predicate(k), value: valueOf(j, k, version), text: `The ${predicate(k)} of ${subject} is ${valueOf(j, k, version)}` });
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
  const at = (days: number) => new Date(base + days * 86_400_000).toISOString();
  return [
    { idempotency_key: `${subject}#1`, subject, kind: 'claim', occurred_at: at(0), body: { claims: range(0, 60).map((k) => claim(k)) } },
    { idempotency_key: `${subject}#2`, subject, source: 'mcp', kind: 'claim', occurred_at: at(1), body: { claims: range(40, 100).map((k) => claim(k)) } },
    {
      idempotency_key: `${subject}#3`,
      subject,
      kind: 'claim',
      occurred_at: at(2),
      body: { claims: range(0, 10).map((k) => ({ ...claim(k, 1), effective_from: at(2) })) },
    },
  ];
}

interface SeedInfo {
  key: string;
  subjects: number;
  memories: number;
  episodes: number;
  ingest_s: number;
  compile_s: number;
  seeded_at: string;
}

/** Seeds the template once (ingest + real compile), or returns what an earlier seed recorded. */
async function ensureTemplate(cluster: BenchCluster, log: (msg: string) => void): Promise<SeedInfo & { reused: boolean }> {
  if (await cluster.databaseExists(TEMPLATE)) {
    // Bring a template seeded under older migrations up to date (the seed itself stays).
    const runtime = await benchRuntime(cluster.urlOf(TEMPLATE), {}, { queue: false });
    try {
      const { rows } = await runtime.pool.query<{ info: SeedInfo }>('SELECT info FROM bench_seed_info');
      // A migration may have written rows (0015 fills memory_value_terms): what autovacuum would
      // do before long, done now, so index-only scans are measured as they run in service.
      // Quick when nothing changed.
      await runtime.pool.query('VACUUM ANALYZE');
      if (rows[0]) return { ...rows[0].info, reused: true };
    } finally {
      await runtime.close();
    }
  }
  const seedDb = `${TEMPLATE}_seeding`;
  const runtime = await benchRuntime(await cluster.createDatabase(seedDb), {}, { queue: false });
  try {
    const { key } = await runtime.createKey({ workspace: WORKSPACE, role: 'owner' });
    const principal = await runtime.authenticate(key);
    log(`recall: seeding ${SUBJECTS} subjects × ${MEMORIES_PER_SUBJECT} memories (once; kept as template ${TEMPLATE})`);
    let t0 = performance.now();
    const perBatch = Math.floor(1000 / 3);
    for (let j = 0; j < SUBJECTS; j += perBatch) {
      const episodes = Array.from({ length: Math.min(perBatch, SUBJECTS - j) }, (_, i) => subjectEpisodes(j + i)).flat();
      await runtime.ingest(principal, episodes);
    }
    const ingestSeconds = (performance.now() - t0) / 1000;
    t0 = performance.now();
    const names = Array.from({ length: SUBJECTS }, (_, j) => subjectName(j));
    let memories = 0;
    for (let j = 0; j < names.length; j += 250) {
      const many = await compileMany(runtime.pool, principal.workspace_id, names.slice(j, j + 250));
      memories += many.totals.memories_created;
      // Fresh statistics as the tables grow (autovacuum would get there, later): plans chosen
      // on empty tables turn into sequential scans over a growing history.
      if (j % 1000 === 0) await runtime.pool.query('ANALYZE');
      log(`recall: compiled ${Math.min(j + 250, names.length)}/${names.length} subjects (${memories} memories, ${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    }
    const compileSeconds = (performance.now() - t0) / 1000;
    const info: SeedInfo = {
      key,
      subjects: SUBJECTS,
      memories,
      episodes: SUBJECTS * 3,
      ingest_s: Math.round(ingestSeconds * 10) / 10,
      compile_s: Math.round(compileSeconds * 10) / 10,
      seeded_at: new Date().toISOString(),
    };
    await runtime.pool.query('CREATE TABLE bench_seed_info (info jsonb NOT NULL)');
    await runtime.pool.query('INSERT INTO bench_seed_info VALUES ($1)', [JSON.stringify(info)]);
    await runtime.pool.query('VACUUM ANALYZE');
    await runtime.close();
    // Renamed only once complete: an interrupted seed never passes for a template.
    await cluster.query(`ALTER DATABASE ${seedDb} RENAME TO ${TEMPLATE}`);
    return { ...info, reused: false };
  } finally {
    await runtime.close();
  }
}

/** What a request runs as: the role inside the runtime's workspace transaction, and RLS on the memories table. */
async function securityContext(runtime: Runtime, principal: Principal) {
  const role = await withWorkspace(runtime.pool, principal.workspace_id, async (tx) => (await tx.query<{ r: string }>('SELECT current_user AS r')).rows[0]!.r);
  const { rows } = await runtime.pool.query<{ rls: boolean; forced: boolean }>(
    `SELECT relrowsecurity AS rls, relforcerowsecurity AS forced FROM pg_class WHERE relname = 'memories' AND relnamespace = 'public'::regnamespace`,
  );
  return { request_role: role, memories_rls_enabled: rows[0]?.rls ?? false, memories_rls_forced: rows[0]?.forced ?? false };
}

export async function benchRecall(log: (msg: string) => void = console.error, cluster?: BenchCluster): Promise<Record<string, unknown>> {
  const own = !cluster;
  const c = cluster ?? (await startBenchCluster());
  try {
    const seed = await ensureTemplate(c, log);
    log(`recall: cloning ${TEMPLATE}`);
    let t0 = performance.now();
    const url = await c.createDatabase(RUN_DB, TEMPLATE);
    const cloneSeconds = (performance.now() - t0) / 1000;
    const runtime = await benchRuntime(url, {}, { queue: false });
    const http = await serveOnLoopback(createApp(runtime));
    try {
      const principal = await runtime.authenticate(seed.key);
      const security = await securityContext(runtime, principal);
      const random = rng(42);
      const pick = () => subjectName(Math.floor(random() * SUBJECTS));
      const headers = { authorization: `Bearer ${seed.key}`, 'content-type': 'application/json' };
      const get = async (path: string) => {
        const res = await fetch(`${http.url}${path}`, { headers });
        if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
        return res.json() as Promise<Record<string, unknown>>;
      };
      const check = (await get(`/v1/subjects/${encodeURIComponent(pick())}/memories`)) as { memories: unknown[] };
      if (check.memories.length !== MEMORIES_PER_SUBJECT) throw new Error(`a subject has ${check.memories.length} memories, not ${MEMORIES_PER_SUBJECT}`);

      const measured: Record<string, Distribution | string> = {};
      log('recall: memories');
      measured['memories_http'] = distribution(await timeRuns(RUNS, () => get(`/v1/subjects/${encodeURIComponent(pick())}/memories`)));
      measured['memories_function'] = distribution(await timeRuns(RUNS, () => runtime.memories(principal, pick())));

      const r = runtime as Runtime & {
        search?: (p: Principal, params: { q: string; subject?: string; limit?: number }) => Promise<unknown>;
        context?: (p: Principal, req: { subject: string; task: string; max_tokens: number }) => Promise<unknown>;
      };
      const query = () => `${COMPONENTS[Math.floor(random() * 10)]} ${ATTRIBUTES[Math.floor(random() * 10)]!.split(' ')[0]}`;
      if (typeof r.search === 'function') {
        log('recall: search');
        measured['search_workspace_http'] = distribution(await timeRuns(SEARCH_RUNS, () => get(`/v1/search?q=${encodeURIComponent(query())}&limit=20`)));
        measured['search_subject_http'] = distribution(
          await timeRuns(SEARCH_RUNS, () => get(`/v1/search?q=${encodeURIComponent(query())}&subject=${encodeURIComponent(pick())}&limit=20`)),
        );
      } else {
        measured['search_workspace_http'] = 'not measured: search is not in this build';
      }
      if (typeof r.context === 'function') {
        log('recall: context');
        measured['context_http'] = distribution(
          await timeRuns(RUNS, async () => {
            const res = await fetch(`${http.url}/v1/context`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ subject: pick(), task: `Change the ${query()} before the next deploy`, max_tokens: 2000 }),
            });
            if (res.status !== 200) throw new Error(`context answered ${res.status}: ${await res.text()}`);
            await res.arrayBuffer();
          }),
        );
      } else {
        measured['context_http'] = 'not measured: context is not in this build';
      }
      const p95 = (k: string) => {
        const d = measured[k];
        return typeof d === 'object' ? d.p95_ms : null;
      };
      const targets = [
        target('memories p95 (HTTP)', p95('memories_http'), 10, 'max', 'ms'),
        target('context p95 (HTTP)', p95('context_http'), 50, 'max', 'ms'),
        target('search across the workspace p95 (HTTP)', p95('search_workspace_http'), 50, 'max', 'ms'),
      ];
      t0 = performance.now();
      return {
        benchmark: 'recall',
        scale: SMALL ? 'small' : 'full',
        workspace: { subjects: seed.subjects, memories: seed.memories, episodes: seed.episodes },
        seed: {
          template: TEMPLATE,
          reused: seed.reused,
          how: 'episodes ingested with the runtime ingest, then the real compile of every subject (compileMany, two at a time)',
          ingest_s: seed.ingest_s,
          compile_s: seed.compile_s,
          seeded_at: seed.seeded_at,
          clone_s: Math.round(cloneSeconds * 10) / 10,
        },
        security,
        runs_per_measure: RUNS,
        search_runs_per_measure: SEARCH_RUNS,
        measured,
        targets,
        met: Object.fromEntries(targets.map((t) => [t.metric, t.met])),
        machine: { ...machine(), postgres: await postgresVersion(runtime) },
        measured_at: new Date().toISOString(),
      };
    } finally {
      await http.close();
      await runtime.close();
      await c.dropDatabase(RUN_DB);
    }
  } finally {
    if (own) await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await benchRecall();
  const file = writeResult('recall', result);
  console.log(JSON.stringify(result, null, 2));
  console.error(`written to ${file}`);
  process.exit(0);
}
