import { UnauthorizedError, ValidationError } from '@canon/core/errors';
import { httpPort } from '@canon/client';
import type { CanonPort, Config, RuntimeOptions } from '@canon/runtime';
import { readDevKey, runningServer, writeDevKey } from './home.js';
import { baselineWasmOnly } from './wasm-tiers.js';

function httpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * The server a command talks to over HTTP: CANON_URL with CANON_API_KEY (or the dev key); else,
 * unless only a server named in CANON_URL will do (a connector run), the server running on this
 * CANON_HOME, with the dev key; null: none.
 */
export function serverPort(config: Config, env: NodeJS.ProcessEnv = process.env, options: { named?: boolean } = {}): CanonPort | null {
  const named = env['CANON_URL'];
  if (named && !httpUrl(named)) throw new ValidationError(`CANON_URL: not an http:// or https:// URL: ${JSON.stringify(named.slice(0, 200))}`);
  const url = named || (options.named ? undefined : runningServer(config)?.url);
  if (!url) return null;
  const key = env['CANON_API_KEY'] || (options.named ? null : readDevKey(config));
  if (!key) throw new UnauthorizedError(named ? 'set CANON_API_KEY to an API key of the server at CANON_URL' : 'set CANON_API_KEY to an API key of that server');
  baselineWasmOnly();
  return httpPort({ baseUrl: url, apiKey: key });
}

/**
 * The port a command, `canon mcp` and `canon inspect` work through: CANON_URL (+ CANON_API_KEY)
 * → that server; else a server running on this CANON_HOME → it, with the dev key; else a runtime
 * in this process on the same database, as the key's principal. The runtime is imported only
 * here, so a command that talks to a server never loads it.
 */
export async function openPort(config: Config, options: RuntimeOptions = { queue: true, schedules: false }, env: NodeJS.ProcessEnv = process.env): Promise<CanonPort> {
  const remote = serverPort(config, env);
  if (remote) return remote;
  // With the queue and no server, this process works the queue while it lives, so an async
  // compile it starts (or one left queued) gets done; a command fires no schedule (`schedules`).
  const { localPort } = await import('@canon/runtime');
  const runtime = await localRuntime(config, options);
  try {
    let bearer = env['CANON_API_KEY'] || readDevKey(config);
    if (!bearer) {
      // A fresh database: mint the owner key `canon start` would, and keep it where it would.
      const created = await runtime.bootstrap();
      if (!created) throw new UnauthorizedError('set CANON_API_KEY (no dev key in CANON_HOME)');
      writeDevKey(config, created.key);
      bearer = created.key;
    }
    const principal = await runtime.authenticate(bearer);
    return localPort(runtime, principal, () => runtime.close());
  } catch (err) {
    await runtime.close();
    throw err;
  }
}

/** Runs fn with the port for this configuration and closes it, whatever happens. */
export async function withPort(config: Config, fn: (port: CanonPort) => Promise<void>): Promise<void> {
  const port = await openPort(config);
  try {
    await fn(port);
  } finally {
    await port.close();
  }
}

/**
 * A runtime in this process on this configuration's database. A server running on this CANON_HOME
 * with DATABASE_URL set keeps its data there, not in the CANON_HOME's embedded database: without
 * DATABASE_URL this command would start that embedded one and write where no one reads, so it
 * says so instead.
 */
export async function localRuntime(config: Config, options: RuntimeOptions, onDatabaseOnly?: string) {
  const server = runningServer(config);
  if (server?.database === 'external' && !config.databaseUrl) {
    // A command that only ever works on the database (`canon keys`) is not told to go through the
    // server: CANON_URL would change nothing for it.
    const otherwise = onDatabaseOnly ? ` (${onDatabaseOnly} works on the database itself, never through a server)` : ', or CANON_URL and CANON_API_KEY to go through the server';
    throw new ValidationError(
      `the server running on this CANON_HOME (pid ${server.pid}) keeps its data in DATABASE_URL's database: set DATABASE_URL for this command too${otherwise}`,
    );
  }
  const { createRuntime } = await import('@canon/runtime');
  return createRuntime(config, options);
}
