import { ensureWorkspace } from '@canon/store';
import { runConnector, type RetryOptions, type RunProgress, type RunSummary } from '@canon/connector-kit';
import { ValidationError } from '@canon/core';
import { CreateKeyInput } from '../keys.js';
import type { Runtime } from '../surface.js';
import { compileMany } from '../jobs.js';
import { createPostgresSink } from './postgres-sink.js';
import { checkInstanceId, registeredConnector } from './registry.js';

export interface SyncConnectorOptions {
  /** The workspace the episodes go to (created if new, like `canon keys create`). */
  workspace: string;
  /** `git`, `github` or `workspace`. */
  connector: string;
  /** The connector's raw configuration; parsed by its schema. */
  config: unknown;
  /** Names the cursor; default `github:<owner>/<repo>`, `workspace:<root id>`, `git:<repo id>`. */
  instanceId?: string | undefined;
  /** Read the source and count what would be written; write nothing, not even the cursor. */
  dryRun?: boolean;
  since?: string | undefined;
  onProgress?: (progress: RunProgress) => void;
  signal?: AbortSignal;
  retry?: Partial<RetryOptions>;
  /**
   * `wait`: compile the subjects the run wrote before returning, so memory is current when it
   * returns — for a run in a process with no worker (the CLI). The compile jobs ingest queued
   * stay queued for a server's workers, which then find nothing pending.
   */
  compile?: 'wait' | undefined;
}

/** What the compile after a run did (`compile: 'wait'`), summed over the subjects it wrote. */
export interface SyncCompileSummary {
  subjects: number;
  memories_created: number;
  memories_updated: number;
  conflicts_opened: number;
  tombstoned: number;
  failed: number;
}

export interface SyncConnectorResult extends RunSummary {
  workspace_id: string;
  instance_id: string;
  compiled?: SyncCompileSummary;
}

/** The pieces of a runtime a connector run needs (a test may wrap `ingest`). */
export type ConnectorRuntime = Pick<Runtime, 'pool' | 'ingest'> & Partial<Pick<Runtime, 'config'>>;

/**
 * Runs one connector into PostgreSQL: pages the source, appends each batch with the `connector`
 * role and saves the instance's cursor in the batch's transaction. Returns the kit's summary.
 */
export async function syncConnector(runtime: ConnectorRuntime, options: SyncConnectorOptions): Promise<SyncConnectorResult> {
  checkWorkspaceId(options.workspace);
  const entry = registeredConnector(options.connector);
  const config = entry.normalize(options.config);
  const instanceId = checkInstanceId(options.instanceId ?? (await entry.defaultInstanceId(config, options.signal)));
  const connector = entry.definition.create(config);
  const dryRun = options.dryRun ?? false;
  // The workspace row must exist before the first episode references it; a dry run leaves
  // the database as it found it.
  if (!dryRun) await ensureWorkspace(runtime.pool, options.workspace);
  const written = new Set<string>();
  const tracking: ConnectorRuntime = {
    pool: runtime.pool,
    async ingest(principal, items, ingestOptions) {
      const result = await runtime.ingest(principal, items, ingestOptions);
      for (const subject of result.subjects) written.add(subject);
      return result;
    },
  };
  const sink = createPostgresSink(tracking, { workspaceId: options.workspace, instanceId, connector: options.connector });
  const summary = await runConnector(connector, sink, {
    dryRun,
    since: options.since,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
  });
  const result: SyncConnectorResult = { ...summary, workspace_id: options.workspace, instance_id: instanceId };
  if (options.compile !== 'wait' || dryRun) return result;
  const many = await compileMany(runtime.pool, options.workspace, [...written].sort(), null, runtime.config?.jobs.compileChunk);
  const { memories_created, memories_updated, conflicts_opened, tombstoned } = many.totals;
  return { ...result, compiled: { subjects: many.subjects, memories_created, memories_updated, conflicts_opened, tombstoned, failed: many.failed.length } };
}

/** The same rule as for keys: lowercase letters, digits, "_" and "-". */
export function checkWorkspaceId(workspace: string): string {
  const parsed = CreateKeyInput.shape.workspace.safeParse(workspace);
  if (!parsed.success) throw new ValidationError(`workspace ${JSON.stringify(workspace)}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}
