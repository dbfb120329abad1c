import { serve, type ServerType } from '@hono/node-server';
import { createApp } from '@canon/api';
import { createRuntime, type Config } from '@canon/runtime';
import { removeServerRecord, writeDevKey, writeServerRecord } from '../home.js';

/** `canon start`: database, migrations, queue and the HTTP API in one process. */
export async function start(config: Config): Promise<void> {
  const runtime = await createRuntime(config);
  const created = await runtime.bootstrap();
  if (created) writeDevKey(config, created.key);

  const app = createApp(runtime, { onInternalError: (err) => console.error('[canon] internal error:', err) });
  const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host}:${port}`;
  writeServerRecord(config, { url, pid: process.pid });

  console.log(`Canon is serving ${url}`);
  console.log(`  inspector: ${url}/inspect (sign in with an API key)`);
  console.log(`  data folder: ${config.home}${runtime.embedded ? ` (embedded PostgreSQL${runtime.embedded.attached ? ', attached' : ''})` : ' (DATABASE_URL)'}`);
  if (created) {
    console.log(`  owner key of workspace "default" (shown once, also in ${config.home}/dev-key):`);
    console.log(`  ${created.key}`);
  } else {
    console.log(`  API keys: canon keys list (the first one is in ${config.home}/dev-key)`);
  }

  // Serve until SIGINT or SIGTERM, then stop in order: no new requests (in-flight ones finish),
  // the queue (active jobs get a grace period), the pool, and last the embedded PostgreSQL, so
  // nothing still talking to the database sees it go away.
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  // A second signal while stopping is absorbed: the stop is already under way.
  const absorb = () => undefined;
  process.on('SIGINT', absorb);
  process.on('SIGTERM', absorb);
  console.log(`\n${signal}: stopping`);
  removeServerRecord(config);
  await closeServer(server);
  await runtime.close();
  console.log('stopped');
}

/** Stops accepting connections and waits for the open requests, at most `graceMs`, then drops them. */
async function closeServer(server: ServerType, graceMs = 10_000): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  if ('closeIdleConnections' in server) server.closeIdleConnections();
  const timer = setTimeout(() => {
    if ('closeAllConnections' in server) server.closeAllConnections();
  }, graceMs);
  await closed;
  clearTimeout(timer);
}
