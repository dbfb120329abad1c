import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApp, serveOnLoopback } from '@canon/api';
import { createRuntime, loadConfig, type Runtime } from '@canon/runtime';
import { benchRuntime, startBenchCluster } from './cluster.js';

export const RESULTS = path.join(path.dirname(new URL(import.meta.url).pathname), 'results');

export interface BenchServer {
  runtime: Runtime;
  url: string;
  key: string;
  close(): Promise<void>;
}

/**
 * A real server on a loopback port over a database of its own: DATABASE_URL when set, else an
 * embedded PostgreSQL in a fresh temporary CANON_HOME (removed at the end).
 */
export async function startBenchServer(env: NodeJS.ProcessEnv = {}): Promise<BenchServer> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-bench-'));
  fs.chmodSync(home, 0o755);
  const config = loadConfig({ ...process.env, ...env, CANON_HOME: home, CANON_PORT: '0' });
  const runtime = await createRuntime(config);
  const { key } = await runtime.createKey({ workspace: `bench-${Date.now()}`, role: 'owner' });
  const server = await serveOnLoopback(createApp(runtime));
  return {
    runtime,
    url: server.url,
    key,
    async close() {
      await server.close();
      await runtime.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

export function machine() {
  return {
    cores: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memory_gib: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
}

export async function postgresVersion(runtime: Runtime): Promise<string> {
  const { rows } = await runtime.pool.query<{ v: string }>('SELECT current_setting(\'server_version\') AS v');
  return rows[0]?.v ?? 'unknown';
}

export function writeResult(name: string, result: unknown): string {
  fs.mkdirSync(RESULTS, { recursive: true });
  const file = path.join(RESULTS, `${name}.json`);
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/** Runs `tasks` with at most `concurrency` in flight. */
export async function pool<T>(items: T[], concurrency: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

export interface Distribution {
  runs: number;
  median_ms: number;
  p95_ms: number;
  min_ms: number;
  max_ms: number;
}

/** Milliseconds of each run, summarised (two decimals). */
export function distribution(samples: readonly number[]): Distribution {
  const sorted = [...samples].sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 100) / 100;
  return { runs: sorted.length, median_ms: r(percentile(sorted, 50)), p95_ms: r(percentile(sorted, 95)), min_ms: r(sorted[0] ?? NaN), max_ms: r(sorted[sorted.length - 1] ?? NaN) };
}

/**
 * Unmeasured runs before each measure. A measure that starts in a fresh process meets code V8 has
 * not compiled yet: the first 15–20 reads of a recall page over HTTP took 8–11 ms against 3.5–4
 * after, so with three warm-up reads the p95 of 200 was the warm-up's, not the server's.
 */
export const WARMUP_RUNS = 30;

/** Runs fn `runs` times after `warmup` unmeasured runs; the wall time of each measured run. */
export async function timeRuns(runs: number, fn: (i: number) => Promise<unknown>, warmup = WARMUP_RUNS): Promise<number[]> {
  for (let i = 0; i < warmup; i += 1) await fn(-1 - i);
  const out: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return out;
}

/** `BENCH_SCALE=small` runs every benchmark at a size that finishes in a minute or two. */
export const SMALL = process.env['BENCH_SCALE'] === 'small';

/** A target as reported: the goal, the measured value, whether it was met and by how much it was missed. */
export interface Target {
  metric: string;
  goal: string;
  limit: number;
  direction: 'max' | 'min';
  measured: number | null;
  met: boolean | null;
  /** Missed by: measured / limit (max) or limit / measured (min), when not met. */
  missed_by: string | null;
}

export function target(metric: string, measured: number | null, limit: number, direction: 'max' | 'min', unit: string): Target {
  const goal = `${direction === 'max' ? '<' : '≥'} ${limit} ${unit}`.trim();
  if (measured === null || Number.isNaN(measured)) return { metric, goal, limit, direction, measured: null, met: null, missed_by: null };
  const met = direction === 'max' ? measured < limit : measured >= limit;
  const factor = direction === 'max' ? measured / limit : limit / measured;
  const times = factor < 1.1 ? factor.toFixed(2) : factor.toFixed(1);
  return { metric, goal, limit, direction, measured, met, missed_by: met ? null : `${times}× (${measured} vs ${`${limit} ${unit}`.trim()})` };
}

/**
 * A fresh database of the bench PostgreSQL, a runtime over it and that runtime served on a
 * loopback port, for the length of `fn`; everything is dropped and stopped afterwards.
 */
export async function withServedRuntime<T>(dbName: string, fn: (runtime: Runtime, url: string) => Promise<T>): Promise<T> {
  const cluster = await startBenchCluster();
  const runtime = await benchRuntime(await cluster.createDatabase(dbName));
  const server = await serveOnLoopback(createApp(runtime));
  try {
    return await fn(runtime, server.url);
  } finally {
    await server.close();
    await runtime.close();
    await cluster.dropDatabase(dbName);
    await cluster.stop();
  }
}
