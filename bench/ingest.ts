import { contentHash, EpisodeInput, toEnvelope } from '@canon/core';
import { newEpisodeId } from '@canon/runtime';
import { machine, pool, postgresVersion, startBenchServer, writeResult } from './harness.js';

/**
 * Ingest throughput: 100,000 episodes in 1,000-episode batches over HTTP, against the same
 * rows inserted by one direct SQL statement per batch into a copy of the episodes table with
 * the same indexes, in the same run. Three rounds, each HTTP then direct, each on keys of its own
 * (both tables kept through the rounds, so they grow alike);
 * the figures are the rounds' medians: one round's direct insert measured 48,800 episodes/s
 * where the next three measured 68,000–73,000, and a ratio over one round passed for met.
 */
const TOTAL = Number(process.env['BENCH_INGEST_TOTAL'] ?? (process.env['BENCH_SCALE'] === 'small' ? 20_000 : 100_000));
const BATCH = 1000;
const CONCURRENCY = 2;
const ROUNDS = Number(process.env['BENCH_INGEST_ROUNDS'] ?? 3);

const episodeFor = (i: number, round = 0) => ({
  idempotency_key: `bench-${round}-${i}`,
  subject: `service:s${i % 100}`,
  occurred_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
  body: { text: `The service s${i % 100} deploy window number ${i} is on Tuesday at 10:00` },
});

export async function benchIngest(log: (msg: string) => void = console.error) {
  // Compiles deferred (a long debounce, a huge compile-after): this measures the ingest path —
  // validation, the append, pending rows and the debounced job enqueue in the same transaction —
  // not the background compiles it schedules (bench/compile.ts measures those).
  const server = await startBenchServer({ CANON_COMPILE_DEBOUNCE_SECONDS: '3600', CANON_COMPILE_AFTER: '1000000000' });
  try {
    const rounds: Array<{ http: number; direct: number; ratio: number }> = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const { httpSeconds, sqlSeconds } = await oneRound(server, round, log);
      const http = TOTAL / httpSeconds;
      const direct = TOTAL / sqlSeconds;
      rounds.push({ http: Math.round(http), direct: Math.round(direct), ratio: Number((http / direct).toFixed(3)) });
      log(`ingest: round ${round + 1} of ${ROUNDS}: ${Math.round(http)} episodes/s over HTTP, ${Math.round(direct)} by direct SQL`);
    }
    await server.runtime.pool.query('DROP TABLE bench_episodes_copy');
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const http = median(rounds.map((r) => r.http));
    const direct = median(rounds.map((r) => r.direct));
    const ratio = median(rounds.map((r) => r.ratio));
    const result = {
      benchmark: 'ingest',
      episodes: TOTAL,
      batch_size: BATCH,
      concurrency: CONCURRENCY,
      // Medians over the rounds, each taken alone (the median ratio is not the ratio of the medians).
      http_episodes_per_s: http,
      direct_sql_episodes_per_s: direct,
      ratio_http_to_direct: ratio,
      rounds,
      compiles: 'deferred during the run (CANON_COMPILE_DEBOUNCE_SECONDS=3600, CANON_COMPILE_AFTER=1e9); each batch still enqueues its debounced compile jobs',
      targets: { http_episodes_per_s: 10_000, ratio_http_to_direct: 0.5 },
      met: { http_episodes_per_s: http >= 10_000, ratio_http_to_direct: ratio >= 0.5 },
      machine: { ...machine(), postgres: await postgresVersion(server.runtime) },
      measured_at: new Date().toISOString(),
    };
    return result;
  } finally {
    await server.close();
  }
}

/** One round: the batches over HTTP, then the same rows by direct SQL into a fresh copy of the table. */
async function oneRound(server: Awaited<ReturnType<typeof startBenchServer>>, round: number, log: (msg: string) => void) {
  const batches = Array.from({ length: Math.ceil(TOTAL / BATCH) }, (_, b) =>
    Array.from({ length: Math.min(BATCH, TOTAL - b * BATCH) }, (_, j) => episodeFor(b * BATCH + j, round)),
  );
  const bodies = batches.map((episodes) => JSON.stringify({ episodes }));

  log(`ingest: ${TOTAL} episodes over HTTP in ${batches.length} batches (${CONCURRENCY} clients), round ${round + 1}`);
  let t0 = performance.now();
  await pool(bodies, CONCURRENCY, async (body) => {
    const res = await fetch(`${server.url}/v1/episodes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
      body,
    });
    if (res.status !== 200) throw new Error(`ingest failed: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  });
  const httpSeconds = (performance.now() - t0) / 1000;

  log('ingest: the same rows by direct SQL into a copy of the table');
  // LIKE … INCLUDING ALL copies columns, defaults, identity and every index (not triggers). Made
  // once and kept through the rounds, as the episodes table is: both grow alike.
  if (round === 0) {
    await server.runtime.pool.query('DROP TABLE IF EXISTS bench_episodes_copy');
    await server.runtime.pool.query('CREATE TABLE bench_episodes_copy (LIKE episodes INCLUDING ALL)');
  }
  const workspace = 'bench-direct';
  // The ids Canon gives its episodes, time-ordered, a millisecond apart from batch to batch as
  // they are when sent: the same rows, landing on the same index pages.
  const started = Date.now();
  const rows = batches.map((b, n) =>
    b.map((raw) => {
      const env = toEnvelope(EpisodeInput.parse(raw), workspace, { role: 'owner', user: null });
      return { id: newEpisodeId(started + n), env, hash: contentHash(env) };
    }),
  );
  t0 = performance.now();
  await pool(rows, CONCURRENCY, async (batch) => {
    await server.runtime.pool.query(
      `INSERT INTO bench_episodes_copy (workspace_id, id, source, idempotency_key, subject, scope, owner, kind, body,
         occurred_at, occurred_at_defaulted, observed_at, sequence, lineage, snapshot, actor_role, actor_user, source_ref, content_hash)
       SELECT $1, u.id, u.source, u.k, u.subject, 'workspace', NULL, u.kind, u.body, u.occurred_at, false, NULL, NULL,
              u.lineage, false, 'owner', NULL, NULL, u.hash
       FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::timestamptz[], $9::text[], $10::text[])
         AS u(id, source, k, subject, kind, body, occurred_at, lineage, hash)
       ON CONFLICT (workspace_id, source, idempotency_key) DO NOTHING`,
      [
        workspace,
        batch.map((r) => r.id),
        batch.map((r) => r.env.source),
        batch.map((r) => r.env.idempotency_key),
        batch.map((r) => r.env.subject),
        batch.map((r) => r.env.kind),
        batch.map((r) => JSON.stringify(r.env.body)),
        batch.map((r) => r.env.occurred_at),
        batch.map((r) => r.env.lineage),
        batch.map((r) => r.hash),
      ],
    );
  });
  const sqlSeconds = (performance.now() - t0) / 1000;
  return { httpSeconds, sqlSeconds };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await benchIngest();
  const file = writeResult('ingest', result);
  console.log(JSON.stringify(result, null, 2));
  console.error(`written to ${file}`);
  process.exit(0);
}
