import { serve, type ServerType } from '@hono/node-server';
import { createApp } from '@canon/api';
import { createLogger, createRuntime, isUnavailable, log, superviseDatabase, useLogger, type Config } from '@canon/runtime';
import { removeServerRecord, writeDevKey, writeServerRecord } from '../home.js';

/** `canon start`: database, migrations, queue and the HTTP API in one process. */
export async function start(config: Config): Promise<void> {
  // A person at a terminal reads lines; anything else (a container, a supervisor, a pipe) gets
  // one JSON object per line. Either way stdout is the log, and stderr stays for a fatal line.
  const pretty = process.stdout.isTTY === true;
  useLogger(createLogger({ level: config.logLevel, pretty }));
  // A server outlives one stray rejected promise (a database dying mid-operation is the usual
  // cause): it is logged, and requests go on being answered.
  process.on('unhandledRejection', (err) => log().error({ event: 'unhandled_rejection', err }, 'unhandled rejection'));

  const runtime = await createRuntime(config, { schedules: config.jobs.fireSchedules });
  const created = await runtime.bootstrap();
  if (created) writeDevKey(config, created.key);

  // Canon owns the PostgreSQL it started: when it dies, it is restarted; when it cannot be, this
  // process stops with a non-zero code so that whatever supervises Canon starts it afresh.
  let giveUp: (err: unknown) => void = () => undefined;
  const gaveUp = new Promise<unknown>((resolve) => (giveUp = resolve));
  const owned = runtime.embedded && !runtime.embedded.attached ? runtime.embedded : null;
  const supervisor = superviseDatabase({ pool: runtime.pool, embedded: owned, logger: log, onGiveUp: (err) => giveUp(err) });
  runtime.boss?.on('error', (err) => {
    if (isUnavailable(err)) supervisor.noteUnavailable();
  });

  const app = createApp(runtime, {
    liveness: () => (supervisor.live ? { live: true } : { live: false, reason: 'the embedded PostgreSQL could not be restarted' }),
    onUnavailable: () => supervisor.noteUnavailable(),
  });
  const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host}:${port}`;
  writeServerRecord(config, { url, pid: process.pid, database: config.databaseUrl ? 'external' : 'embedded' });

  const database = runtime.embedded ? `embedded PostgreSQL${runtime.embedded.attached ? ', attached' : ''}` : 'DATABASE_URL';
  if (pretty) {
    // The welcome a person reads, with the new owner key: shown on a terminal only, never in a
    // log that a collector keeps.
    console.log(`Canon is serving ${url}`);
    console.log(`  inspector: ${url}/inspect (sign in with an API key)`);
    console.log(`  data folder: ${config.home} (${database})`);
    if (created) {
      console.log(`  owner key of workspace "default" (shown once, also in ${config.home}/dev-key):`);
      console.log(`  ${created.key}`);
    } else {
      console.log(`  API keys: canon keys list (the first one is in ${config.home}/dev-key)`);
    }
  } else {
    log().info({ event: 'serving', url, home: config.home, database, log_level: config.logLevel, schedules: config.jobs.fireSchedules ? 'on' : 'off' }, `Canon is serving ${url}`);
    if (created) log().info({ event: 'owner_key_created', file: `${config.home}/dev-key` }, `owner key of workspace "default" written to ${config.home}/dev-key`);
  }

  // Serve until SIGINT or SIGTERM (or until the database cannot be brought back), then stop in
  // order: no new requests (in-flight ones finish), the queue (active jobs get a grace period),
  // the pool, and last the embedded PostgreSQL, so nothing still talking to the database sees it
  // go away.
  const reason = await Promise.race([
    new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    }),
    gaveUp.then((err) => ({ err })),
  ]);
  // A second signal while stopping is absorbed: the stop is already under way.
  const absorb = () => undefined;
  process.on('SIGINT', absorb);
  process.on('SIGTERM', absorb);
  supervisor.stop();
  if (typeof reason === 'string') log().info({ event: 'stopping', signal: reason }, `${reason}: stopping`);
  removeServerRecord(config);
  // Open change streams would hold the server for its whole grace period: end them first, each
  // with a clean end of stream, so followers reconnect (with Last-Event-ID) to another server.
  runtime.stopFollowing();
  await closeServer(server);
  await runtime.close();
  if (typeof reason !== 'string') {
    // main prints this as the one line on stderr and exits 1.
    throw new Error(`the embedded PostgreSQL exited and could not be restarted (see ${config.home}/postgres.log); exiting for a supervisor to restart Canon`, { cause: reason.err });
  }
  log().info({ event: 'stopped' }, 'stopped');
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
