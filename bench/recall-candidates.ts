import { createApp, serveOnLoopback } from '@canon/api';
import { benchRuntime, startBenchCluster, type BenchCluster } from './cluster.js';
import { distribution, SMALL, target, timeRuns, writeResult, type Distribution } from './harness.js';

/**
 * Recall of one subject holding 1,000 memories written as free text, many of them worded near
 * each other, so recall shows candidates (issue 19): GET /v1/subjects/{s}/memories must stay
 * under 10 ms p95 with every memory's candidates and their kinds computed on read. Recall answers
 * a page (100 memories by default); reading the whole subject, page after page, is reported too.
 */
const MEMORIES = 1000;
const RUNS = SMALL ? 100 : 300;
const DB = 'canon_bench_recall_candidates';
const SUBJECT = 'service:paraphrased';

const THINGS = [
  'staging deploy', 'production deploy', 'nightly backup', 'audit export', 'search reindex', 'cache warmup', 'billing batch', 'security scan', 'load test', 'schema migration',
  'invoice sync', 'log rotation', 'index compaction', 'report digest', 'fixture refresh', 'quota review', 'token sweep', 'image prune', 'vendor sync', 'budget review',
];
const OWNERS = ['platform', 'payments', 'search', 'growth', 'infra', 'mobile', 'data', 'security', 'support', 'web'];
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
// Five ways to say one thing: four of each five land near another wording of the same fact.
const PHRASINGS = [
  (thing: string, owner: string, day: string) => `The ${owner} ${thing} runs on ${day}.`,
  (thing: string, owner: string, day: string) => `The ${owner} ${thing} now happens on ${day}.`,
  (thing: string, owner: string, day: string) => `We do the ${owner} ${thing} every ${day}.`,
  (thing: string, owner: string, day: string) => `${owner} schedules the ${thing} for ${day}.`,
  (thing: string, owner: string, day: string) => `Heads up: ${owner} ${thing} takes place on ${day}.`,
];

export async function benchRecallCandidates(log: (msg: string) => void = console.error, cluster?: BenchCluster): Promise<Record<string, unknown>> {
  const own = !cluster;
  const c = cluster ?? (await startBenchCluster());
  try {
    const runtime = await benchRuntime(await c.createDatabase(DB), {}, { queue: false });
    const http = await serveOnLoopback(createApp(runtime));
    try {
      const { key } = await runtime.createKey({ workspace: 'bench-candidates', role: 'member', user: 'bench' });
      const principal = await runtime.authenticate(key);
      const episodes = [];
      // 20 things × 10 owners × 5 wordings: 1,000 distinct templates, 200 facts said five ways.
      for (let i = 0; i < MEMORIES; i += 1) {
        const thing = THINGS[i % THINGS.length]!;
        const owner = OWNERS[Math.floor(i / THINGS.length) % OWNERS.length]!;
        const phrasing = PHRASINGS[Math.floor(i / (THINGS.length * OWNERS.length)) % PHRASINGS.length]!;
        const text = phrasing(thing, owner, WEEKDAYS[(i * 7) % WEEKDAYS.length]!);
        episodes.push({ idempotency_key: `c-${i}`, subject: SUBJECT, occurred_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(), body: { text } });
      }
      log(`recall-candidates: ingesting and compiling ${MEMORIES} statements of one subject`);
      let t0 = performance.now();
      for (let i = 0; i < episodes.length; i += 500) await runtime.ingest(principal, episodes.slice(i, i + 500));
      const compiled = await runtime.compile(principal, { subject: SUBJECT });
      const compileMs = performance.now() - t0;
      const headers = { authorization: `Bearer ${key}` };
      const get = async (query = '') => {
        const res = await fetch(`${http.url}/v1/subjects/${encodeURIComponent(SUBJECT)}/memories${query}`, { headers });
        if (res.status !== 200) throw new Error(`recall answered ${res.status}`);
        return (await res.json()) as { memories: Array<{ id: string; predicate: string; candidates: Array<{ memory_id: string }> }>; next: string | null };
      };
      const everyPage = async () => {
        let page = await get();
        while (page.next !== null) page = await get(`?after=${encodeURIComponent(page.next)}`);
      };
      const first = await get('?limit=1000');
      const memories = first.memories.length;
      const withCandidates = first.memories.filter((m) => m.candidates.length > 0).length;
      const candidates = first.memories.reduce((n, m) => n + m.candidates.length, 0) / 2;
      // Which fact each template says (its thing and owner): a pair of two wordings of one fact is
      // a true candidate, anything else a false one. 200 facts said five ways: 2,000 true pairs.
      const factOf = new Map<string, string>();
      for (let i = 0; i < MEMORIES; i += 1) {
        const thing = THINGS[i % THINGS.length]!;
        const owner = OWNERS[Math.floor(i / THINGS.length) % OWNERS.length]!;
        const phrasing = PHRASINGS[Math.floor(i / (THINGS.length * OWNERS.length)) % PHRASINGS.length]!;
        factOf.set(phrasing(thing, owner, '{weekday}').replace(/\.$/, ''), `${thing}|${owner}`);
      }
      const byId = new Map(first.memories.map((m) => [m.id, m] as const));
      let truePairs = 0;
      for (const m of first.memories) for (const c of m.candidates) if (factOf.get(m.predicate) !== undefined && factOf.get(m.predicate) === factOf.get(byId.get(c.memory_id)?.predicate ?? '')) truePairs += 1;
      truePairs /= 2;
      const possible = (MEMORIES / PHRASINGS.length) * ((PHRASINGS.length * (PHRASINGS.length - 1)) / 2);
      log(`recall-candidates: ${memories} memories, ${withCandidates} with candidates (${candidates} pairs, ${truePairs} of them two wordings of one fact, of ${possible})`);
      t0 = performance.now();
      const measured: Record<string, Distribution> = {
        memories_http: distribution(await timeRuns(RUNS, () => get())),
        memories_function: distribution(await timeRuns(RUNS, () => runtime.memories(principal, SUBJECT))),
        every_page_http: distribution(await timeRuns(Math.ceil(RUNS / 10), everyPage)),
      };
      const result = {
        benchmark: 'recall-candidates',
        memories,
        memories_with_candidates: withCandidates,
        candidate_pairs: candidates,
        // Two wordings of one fact (its thing and owner) among the pairs shown, and of those possible.
        true_pairs: truePairs,
        false_pairs: candidates - truePairs,
        true_pairs_possible: possible,
        compile_ms: Math.round(compileMs),
        compile: compiled,
        runs: RUNS,
        measured,
        page: 100,
        targets: [target(`recall of a subject of ${memories} memories with candidates (a page of 100), HTTP p95`, measured['memories_http']!.p95_ms, 10, 'max', 'ms')],
        measured_at: new Date().toISOString(),
      };
      return result;
    } finally {
      await http.close();
      await runtime.close();
      await c.dropDatabase(DB);
    }
  } finally {
    if (own) await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await benchRecallCandidates();
  writeResult('recall-candidates', result);
  console.log(JSON.stringify(result, null, 2));
  process.exit(0);
}
