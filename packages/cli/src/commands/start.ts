import { serve } from '@hono/node-server';
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

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping`);
    removeServerRecord(config);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await runtime.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  // Serve until a signal ends the process.
  await new Promise<never>(() => undefined);
}
