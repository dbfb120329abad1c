import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { createApp } from '@canon/api';
import { createRuntime, loadConfig, type Runtime } from '@canon/runtime';

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
export async function startBenchServer(): Promise<BenchServer> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-bench-'));
  fs.chmodSync(home, 0o755);
  const config = loadConfig({ ...process.env, CANON_HOME: home, CANON_PORT: '0' });
  const runtime = await createRuntime(config);
  const { key } = await runtime.createKey({ workspace: `bench-${Date.now()}`, role: 'owner' });
  const app = createApp(runtime);
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    runtime,
    url: `http://127.0.0.1:${port}`,
    key,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
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
