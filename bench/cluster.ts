import path from 'node:path';
import pg from 'pg';
import { createRuntime, loadConfig, startEmbeddedPostgres, type EmbeddedDatabase, type Runtime, type RuntimeOptions } from '@canon/runtime';
import { applyV8Flags } from '@canon/runtime/heap';

// A benchmark runs the runtime in its own process: with the heap settings `canon start` runs it with.
applyV8Flags();

/**
 * The benchmarks' PostgreSQL: BENCH_DATABASE_URL (any PostgreSQL 15+, a maintenance database
 * such as `postgres`) when set, else an embedded one kept in `.canon-bench/` at the repository
 * root, so a seeded template (the recall benchmark's million memories) survives between runs.
 * Every benchmark works in a database of its own, created here and dropped afterwards.
 */
export const BENCH_HOME = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '.canon-bench');

export interface BenchCluster {
  adminUrl: string;
  urlOf(database: string): string;
  query<T extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<T>>;
  /** A fresh database, empty or copied from a template. */
  createDatabase(name: string, template?: string): Promise<string>;
  dropDatabase(name: string): Promise<void>;
  databaseExists(name: string): Promise<boolean>;
  stop(): Promise<void>;
}

export async function startBenchCluster(): Promise<BenchCluster> {
  let embedded: EmbeddedDatabase | null = null;
  let adminUrl = process.env['BENCH_DATABASE_URL'];
  if (!adminUrl) {
    embedded = await startEmbeddedPostgres({ home: BENCH_HOME, database: 'postgres', maxConnections: 300 });
    adminUrl = embedded.url;
  }
  const admin = new pg.Pool({ connectionString: adminUrl, max: 2 });
  const urlOf = (database: string) => {
    const u = new URL(adminUrl);
    u.pathname = `/${database}`;
    return u.toString();
  };
  const ident = (name: string) => {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a plain database name: ${name}`);
    return name;
  };
  return {
    adminUrl,
    urlOf,
    query: (text, values) => admin.query(text, values),
    async createDatabase(name, template) {
      await admin.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${ident(name)}${template ? ` TEMPLATE ${ident(template)}` : ''}`);
      return urlOf(name);
    },
    async dropDatabase(name) {
      await admin.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
    },
    async databaseExists(name) {
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      return rowCount === 1;
    },
    async stop() {
      await admin.end();
      await embedded?.stop();
    },
  };
}

/** A runtime over one database of the cluster, with the environment's settings and these overrides. */
export async function benchRuntime(databaseUrl: string, env: NodeJS.ProcessEnv = {}, options: RuntimeOptions = {}): Promise<Runtime> {
  const config = loadConfig({ ...env, CANON_PORT: '0' }, { databaseUrl, poolSize: 20 });
  return createRuntime(config, options);
}
