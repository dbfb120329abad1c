import { PgBoss } from 'pg-boss';
import { ValidationError } from '@canon/core';
import { createPool, listEpisodes, migrateDatabase, type LoggedEpisode, type Pool } from '@canon/store';
import { z } from 'zod';
import type { Config } from './config.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded-postgres.js';
import { ingestEpisodes, type IngestResult } from './ingest.js';
import type { PoolClient } from '@canon/store';
import { authenticate, bootstrapOwnerKey, createApiKey, listKeys, revokeKey, type CreatedKey, type CreateKeyInput } from './keys.js';
import type { Principal } from './principal.js';
import { registerConnectorWorkers } from './connectors/workers.js';

export interface IngestOptions {
  inTransaction?: (tx: PoolClient) => Promise<void>;
}

export interface RuntimeOptions {
  /** Start pg-boss (and with it, later, the workers). CLI one-shots that only read may skip it. */
  queue?: boolean;
  /** Apply migrations at start (under the migration lock). */
  migrate?: boolean;
}

export const ListEpisodesParams = z.object({
  subject: z.string().min(1).max(512).optional(),
  after: z.string().max(64).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export interface Runtime {
  readonly config: Config;
  readonly pool: Pool;
  readonly databaseUrl: string;
  readonly embedded: EmbeddedDatabase | null;
  readonly boss: PgBoss | null;
  authenticate(bearer: string | undefined): Promise<Principal>;
  /**
   * Appends a batch (all or nothing). `inTransaction` runs inside the same transaction after the
   * rows are in — a connector saves its cursor there, so cursor and batch commit together.
   */
  ingest(principal: Principal, items: readonly unknown[], options?: IngestOptions): Promise<IngestResult>;
  listEpisodes(
    principal: Principal,
    params: z.input<typeof ListEpisodesParams>,
  ): Promise<{ episodes: LoggedEpisode[]; next: string | null }>;
  createKey(input: CreateKeyInput): Promise<CreatedKey>;
  listKeys(workspace?: string): ReturnType<typeof listKeys>;
  revokeKey(id: string): ReturnType<typeof revokeKey>;
  bootstrap(): Promise<CreatedKey | null>;
  readiness(): Promise<{ database: boolean; queue: boolean }>;
  close(): Promise<void>;
}

/** The composition root: every shell (HTTP, CLI, MCP, jobs) calls these same functions. */
export async function createRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const embedded = config.databaseUrl ? null : await startEmbeddedPostgres({ home: config.home, port: config.pgPort });
  const databaseUrl = config.databaseUrl ?? embedded!.url;
  const pool = createPool(databaseUrl, { max: config.poolSize });
  let boss: PgBoss | null = null;
  try {
    if (options.migrate !== false) await migrateDatabase(pool);
    if (options.queue !== false) {
      boss = new PgBoss({ connectionString: databaseUrl, schema: 'pgboss', max: 4 });
      boss.on('error', () => undefined);
      await boss.start();
    }
  } catch (err) {
    await pool.end().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw err;
  }

  let closed = false;
  const runtime: Runtime = {
    config,
    pool,
    databaseUrl,
    embedded,
    boss,
    authenticate: (bearer) => authenticate(pool, bearer),
    ingest: (principal, items, ingestOptions = {}) =>
      ingestEpisodes(pool, principal, items, async (tx) => {
        await ingestOptions.inTransaction?.(tx);
      }),
    async listEpisodes(principal, params) {
      const parsed = ListEpisodesParams.safeParse(params);
      if (!parsed.success) throw new ValidationError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      const result = await listEpisodes(pool, { workspaceId: principal.workspace_id, ...parsed.data });
      if (!result.ok) throw new ValidationError('after: not a cursor returned by this API');
      return { episodes: result.episodes, next: result.next };
    },
    createKey: (input) => createApiKey(pool, input),
    listKeys: (workspace) => listKeys(pool, workspace),
    revokeKey: (id) => revokeKey(pool, id),
    bootstrap: () => bootstrapOwnerKey(pool),
    async readiness() {
      const database = await pool.query('SELECT 1').then(() => true, () => false);
      return { database, queue: boss !== null };
    },
    async close() {
      if (closed) return;
      closed = true;
      await boss?.stop({ graceful: true, timeout: 5000 }).catch(() => undefined);
      await pool.end().catch(() => undefined);
      await embedded?.stop().catch(() => undefined);
    },
  };
  // Workers need the runtime they run against, so they are registered once it exists.
  if (boss) await registerConnectorWorkers(runtime);
  return runtime;
}
