import { createApp } from '@canon/api';
import { createRuntime, loadConfig, type Config, type Principal, type Runtime, type RuntimeOptions } from '@canon/runtime';
import type { Role } from '@canon/core';
import { createTestDatabase, type TestDatabase } from './database.js';

export interface TestCanon {
  db: TestDatabase;
  runtime: Runtime;
  app: ReturnType<typeof createApp>;
  /** Creates a key and returns it with its principal. */
  key(role?: Role, opts?: { workspace?: string; user?: string }): Promise<{ key: string; principal: Principal }>;
  /** app.request with a bearer key and a JSON body. */
  request(path: string, init?: { method?: string; key?: string; json?: unknown; headers?: Record<string, string>; body?: string }): Promise<Response>;
  close(): Promise<void>;
}

/**
 * `createRuntime` as a test runs it: no schedule fires from it. A test fires a schedule by sending
 * its job; the default one, due at 03:00 UTC, would otherwise compile every subject under a test
 * that runs across that minute.
 */
export function createTestRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  return createRuntime(config, { schedules: false, ...options });
}

/** A runtime and app over a fresh cloned database; close() releases both. */
export async function startTestCanon(options: RuntimeOptions = {}, env: NodeJS.ProcessEnv = {}): Promise<TestCanon> {
  const db = await createTestDatabase();
  const runtime = await createTestRuntime(loadConfig(env, { databaseUrl: db.url, poolSize: 20 }), options);
  const app = createApp(runtime);
  return {
    db,
    runtime,
    app,
    async key(role = 'owner', opts = {}) {
      const created = await runtime.createKey({ workspace: opts.workspace ?? 'default', role, user: opts.user });
      return { key: created.key, principal: await runtime.authenticate(created.key) };
    },
    request(path, init = {}) {
      const headers: Record<string, string> = { ...(init.headers ?? {}) };
      if (init.key) headers['authorization'] = `Bearer ${init.key}`;
      let body: string | undefined = init.body;
      if (init.json !== undefined) {
        headers['content-type'] ??= 'application/json';
        body = JSON.stringify(init.json);
      }
      return Promise.resolve(app.request(path, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body }));
    },
    async close() {
      await runtime.close();
      await db.drop();
    },
  };
}

