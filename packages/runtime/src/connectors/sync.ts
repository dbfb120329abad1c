import { ensureWorkspace } from '@canon/store';
import { runConnector, type ConnectorSink, type RetryOptions, type RunProgress, type RunSummary } from '@canon/connector-kit';
import { ValidationError } from '@canon/core';
import { CreateKeyInput } from '../auth/keys.js';
import type { Runtime } from '../surface.js';
import { compileMany } from '../compile/jobs.js';
import { WORKSPACE_VIEW } from '../compile/seen-by.js';
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
  /**
   * Episodes this compile read. None while the run created some: they were compiled already (a
   * server's workers compile what a run writes as it arrives), so the counts below are zero.
   */
  episodes_processed: number;
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
 * Where a run's batches go and how what they wrote is compiled: this process's database
 * (`syncConnector`), or a server's over HTTP (the CLI, when CANON_URL is set).
 */
export interface ConnectorDestination {
  /** The workspace written; a server's is its key's, known once the cursor was read. */
  workspaceId(): string;
  /** Before a run that writes. */
  prepare?(): Promise<void>;
  /** The sink of the instance; `onWritten` hears the subjects each commit wrote. */
  sink(instanceId: string, connector: string, onWritten: (subjects: readonly string[]) => void): ConnectorSink;
  compile(subjects: string[]): Promise<SyncCompileSummary>;
}

/** The options of a run whatever its destination; the workspace is the destination's. */
export type ConnectorRunOptions = Omit<SyncConnectorOptions, 'workspace'>;

/**
 * Runs one connector into PostgreSQL: pages the source, appends each batch with the `connector`
 * role and saves the instance's cursor in the batch's transaction. Returns the kit's summary.
 */
export async function syncConnector(runtime: ConnectorRuntime, options: SyncConnectorOptions): Promise<SyncConnectorResult> {
  const workspace = checkWorkspaceId(options.workspace);
  return runConnectorTo(postgresDestination(runtime, workspace), options);
}

function postgresDestination(runtime: ConnectorRuntime, workspace: string): ConnectorDestination {
  return {
    workspaceId: () => workspace,
    // The workspace row must exist before the first episode references it; a dry run leaves
    // the database as it found it.
    async prepare() {
      await ensureWorkspace(runtime.pool, workspace);
    },
    sink(instanceId, connector, onWritten) {
      const tracking: ConnectorRuntime = {
        pool: runtime.pool,
        async ingest(principal, items, ingestOptions) {
          const result = await runtime.ingest(principal, items, ingestOptions);
          onWritten(result.subjects);
          return result;
        },
      };
      return createPostgresSink(tracking, { workspaceId: workspace, instanceId, connector });
    },
    async compile(subjects) {
      const many = await compileMany(runtime.pool, workspace, subjects, null, runtime.config?.jobs.compileChunk, undefined, undefined, WORKSPACE_VIEW);
      const { episodes_processed, memories_created, memories_updated, conflicts_opened, tombstoned } = many.totals;
      return { subjects: many.subjects, episodes_processed, memories_created, memories_updated, conflicts_opened, tombstoned, failed: many.failed.length };
    },
  };
}

/** One run of a connector into a destination; with `compile: 'wait'`, what it wrote is compiled before it returns. */
export async function runConnectorTo(destination: ConnectorDestination, options: ConnectorRunOptions): Promise<SyncConnectorResult> {
  const entry = registeredConnector(options.connector);
  const config = entry.normalize(options.config);
  const instanceId = checkInstanceId(options.instanceId ?? (await entry.defaultInstanceId(config, options.signal)));
  const connector = entry.definition.create(config);
  const dryRun = options.dryRun ?? false;
  if (!dryRun) await destination.prepare?.();
  const written = new Set<string>();
  const sink = destination.sink(instanceId, options.connector, (subjects) => {
    for (const subject of subjects) written.add(subject);
  });
  const summary = await runConnector(connector, sink, {
    dryRun,
    since: options.since,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
  });
  const result: SyncConnectorResult = { ...summary, workspace_id: destination.workspaceId(), instance_id: instanceId };
  if (options.compile !== 'wait' || dryRun) return result;
  return { ...result, compiled: await destination.compile([...written].sort()) };
}

/** The same rule as for keys: lowercase letters, digits, "_" and "-". */
export function checkWorkspaceId(workspace: string): string {
  const parsed = CreateKeyInput.shape.workspace.safeParse(workspace);
  if (!parsed.success) throw new ValidationError(`workspace ${JSON.stringify(workspace)}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}
