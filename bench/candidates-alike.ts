import { benchRuntime, startBenchCluster } from './cluster.js';
import { distribution, machine, writeResult } from './harness.js';

/**
 * A subject of 500 keys worded alike (one sentence, its words capitalized 500 ways: a template
 * keeps case, so each is a key of its own and a candidate of every other): the first compile,
 * what the rows keep of their candidates, a compile that creates one more key and one that
 * changes a value. Not a stage of `npm run bench`; run on its own:
 *
 *   BENCH_DATABASE_URL=… tsx --conditions=source bench/candidates-alike.ts
 */
const DB = 'canon_bench_candidates_alike';
const KEYS = 500;
const WORDS = ['the', 'nightly', 'export', 'job', 'for', 'billing', 'always', 'runs', 'on', 'schedule'];
const wording = (i: number) => WORDS.map((w, k) => ((i >> k) & 1 ? w[0]!.toUpperCase() + w.slice(1) : w)).join(' ');

const c = await startBenchCluster();
try {
  const runtime = await benchRuntime(await c.createDatabase(DB), {}, { queue: false });
  try {
    const { key } = await runtime.createKey({ workspace: 'alike', role: 'owner', user: 'bench' });
    const p = await runtime.authenticate(key);
    const subject = 'service:alike';
    await runtime.ingest(p, Array.from({ length: KEYS }, (_, i) => ({ idempotency_key: `a-${i}`, subject, occurred_at: '2026-01-01T00:00:00Z', body: { text: `${wording(i)} Tuesday.` } })));
    const t0 = performance.now();
    await runtime.compile(p, { subject });
    const firstMs = Math.round(performance.now() - t0);
    const { rows } = await runtime.pool.query(
      `SELECT sum(pg_column_size(candidates))::int AS candidates_bytes, sum(pg_column_size(partner_sides))::int AS partner_sides_bytes, max(jsonb_array_length(candidates))::int AS longest_list
         FROM memories WHERE subject = $1`,
      [subject],
    );
    // One episode ingested (untimed), then its compile timed: ten that create a key, ten that change a value.
    const compiles = async (text: (k: number) => string, at: (k: number) => string, tag: string) => {
      const out: number[] = [];
      for (let k = 0; k < 10; k += 1) {
        await runtime.ingest(p, [{ idempotency_key: `${tag}-${k}`, subject, occurred_at: at(k), body: { text: text(k) } }]);
        const t = performance.now();
        await runtime.compile(p, { subject });
        out.push(performance.now() - t);
      }
      return out;
    };
    const creating = await compiles((k) => `${wording(KEYS + k)} Tuesday.`, () => '2026-01-02T00:00:00Z', 'b');
    const changing = await compiles((k) => `${wording(k)} ${k % 2 ? 'Monday' : 'Friday'}.`, (k) => `2026-01-03T00:00:0${k}Z`, 'c');
    const result = {
      benchmark: 'candidates-alike',
      keys: KEYS,
      first_compile_ms: firstMs,
      stored: rows[0],
      creating_compile: distribution(creating),
      changing_compile: distribution(changing),
      machine: machine(),
      measured_at: new Date().toISOString(),
    };
    writeResult('candidates-alike', result);
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await runtime.close();
    await c.dropDatabase(DB);
  }
} finally {
  await c.stop();
}
process.exit(0);
