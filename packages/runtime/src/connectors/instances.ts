import { CanonError, NotFoundError, ValidationError } from '@canon/core';
import {
  deleteConnectorCursor,
  deleteConnectorInstance,
  ensureWorkspace,
  findConnectorInstance,
  insertConnectorInstance,
  listConnectorInstances as listInstanceRows,
  type ConnectorInstanceRow,
} from '@canon/store';
import type { Runtime } from '../surface.js';
import { withSystem } from '../auth/scope.js';
import { checkInstanceId, registeredConnector } from './registry.js';
import { bossDb, checkSchedule } from '../compile/jobs.js';
import { connectorScheduleKey, CONNECTOR_RUN_QUEUE, ensureConnectorQueue, type ConnectorRunJobData } from './schedules.js';
import { checkWorkspaceId, syncConnector, type ConnectorRuntime, type SyncConnectorOptions, type SyncConnectorResult } from './sync.js';

export type ConnectorInstance = ConnectorInstanceRow;

export interface AddConnectorInstanceOptions {
  workspace: string;
  connector: string;
  config: unknown;
  instanceId?: string | undefined;
  /** A cron expression (pg-boss `schedule`); none: the instance runs only on demand. */
  schedule?: string | null | undefined;
  /** The time zone the cron expression is read in; default UTC. */
  tz?: string | undefined;
}

type InstanceRuntime = Pick<Runtime, 'pool' | 'boss'>;

function needBoss(runtime: InstanceRuntime, what: string) {
  if (!runtime.boss) throw new ValidationError(`${what} needs the job queue: start the runtime with the queue on`);
  return runtime.boss;
}

/**
 * Registers an instance and, with a cron expression, its pg-boss schedule — in one transaction,
 * so an instance never exists without the schedule it was given, nor a schedule without its
 * instance. The configuration is validated now and stored with absolute paths.
 */
export async function addConnectorInstance(runtime: InstanceRuntime, options: AddConnectorInstanceOptions): Promise<ConnectorInstance> {
  const workspace = checkWorkspaceId(options.workspace);
  const entry = registeredConnector(options.connector);
  const config = entry.normalize(options.config);
  if (config['token'] !== undefined) {
    // A stored instance would keep the secret in plain text in connector_instances.
    throw new ValidationError('a token is not stored with a connector instance: set GITHUB_TOKEN in the environment of the worker');
  }
  const instanceId = checkInstanceId(options.instanceId ?? (await entry.defaultInstanceId(config)));
  const schedule = options.schedule ?? null;
  const boss = schedule === null ? null : needBoss(runtime, 'a scheduled instance');
  if (boss) await ensureConnectorQueue(boss);
  // The same rule as the compile schedule's, named as the command line names it.
  if (boss && schedule !== null) checkSchedule(boss, schedule, options.tz ?? 'UTC', { cron: '--every', timeZone: '--tz' });

  return withSystem(runtime.pool, async (tx) => {
    await ensureWorkspace(tx, workspace);
    const inserted = await insertConnectorInstance(tx, { workspace_id: workspace, id: instanceId, connector: entry.definition.id, config, schedule });
    if (!inserted.ok) {
      throw new CanonError('conflict', `connector instance ${instanceId} already exists in workspace ${workspace}; remove it first`);
    }
    if (boss && schedule !== null) {
      const key = connectorScheduleKey(workspace, instanceId);
      const data: ConnectorRunJobData = { workspace_id: workspace, instance_id: instanceId };
      try {
        await boss.schedule(CONNECTOR_RUN_QUEUE, schedule, data, { key, singletonKey: key, tz: options.tz ?? 'UTC', db: bossDb(tx) });
      } catch (err) {
        // pg-boss asserts the expression and zone before writing: a person's typo, not a crash.
        throw new ValidationError(`schedule ${JSON.stringify(schedule)}: ${(err as Error).message}`, [], { cause: err });
      }
    }
    return inserted.instance;
  });
}

export function listConnectorInstances(runtime: Pick<Runtime, 'pool'>, workspace?: string): Promise<ConnectorInstance[]> {
  return listInstanceRows(runtime.pool, workspace);
}

/**
 * Removes an instance and its schedule in one transaction. Its cursor is kept: adding the same
 * instance id again resumes where it stopped (a workspace's cursor is also the inventory its
 * keys chain from, so forgetting it would re-create every edited file).
 */
export async function removeConnectorInstance(
  runtime: InstanceRuntime,
  options: { workspace: string; instanceId: string },
): Promise<ConnectorInstance> {
  return withSystem(runtime.pool, async (tx) => {
    const deleted = await deleteConnectorInstance(tx, options.workspace, options.instanceId);
    if (!deleted.ok) throw new NotFoundError(`no connector instance ${options.instanceId} in workspace ${options.workspace}`);
    if (deleted.instance.schedule !== null) {
      const boss = needBoss(runtime, 'removing a scheduled instance');
      await boss.unschedule(CONNECTOR_RUN_QUEUE, connectorScheduleKey(options.workspace, options.instanceId), { db: bossDb(tx) });
    }
    return deleted.instance;
  });
}

export interface RunConnectorInstanceOptions extends Pick<SyncConnectorOptions, 'dryRun' | 'onProgress' | 'signal' | 'retry' | 'compile'> {
  workspace: string;
  instanceId: string;
}

/** Runs a registered instance now, with its stored configuration and cursor. */
export async function runConnectorInstance(runtime: ConnectorRuntime, options: RunConnectorInstanceOptions): Promise<SyncConnectorResult> {
  const instance = await findConnectorInstance(runtime.pool, options.workspace, options.instanceId);
  if (!instance) throw new NotFoundError(`no connector instance ${options.instanceId} in workspace ${options.workspace}`);
  return syncConnector(runtime, {
    workspace: instance.workspace_id,
    connector: instance.connector,
    config: instance.config,
    instanceId: instance.id,
    dryRun: options.dryRun,
    onProgress: options.onProgress,
    signal: options.signal,
    retry: options.retry,
    compile: options.compile,
  });
}

/**
 * Forgets an instance's cursor (registered or one-shot): the next sync reads the source from the
 * beginning, and what was stored comes back as duplicates. The way out of a rewritten git
 * history. Not for a workspace whose files changed since: its keys chain from the cursor, so
 * edited files would be stored again as new first versions.
 */
export async function resetConnectorCursor(
  runtime: Pick<Runtime, 'pool'>,
  options: { workspace: string; instanceId: string },
): Promise<{ reset: boolean }> {
  const { deleted } = await deleteConnectorCursor(runtime.pool, { workspaceId: options.workspace, instanceId: options.instanceId });
  return { reset: deleted };
}
