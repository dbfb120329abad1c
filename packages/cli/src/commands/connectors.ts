import {
  addConnectorInstance,
  listConnectorInstances,
  removeConnectorInstance,
  resetConnectorCursor,
  runConnectorInstance,
  type Config,
  type ConnectorInstance,
} from '@canon/runtime';
import fs from 'node:fs';
import path from 'node:path';
import { NotFoundError, ValidationError } from '@canon/core';
import { localRuntime, serverPort } from '../port.js';
import { runToServer, runWithProgress, type ConnectorTarget } from './sync.js';

/**
 * Instances (their configuration, tokens included, and schedules) live in the database of the
 * machine that runs them; the HTTP API serves none of it. With CANON_URL set, acting on this
 * machine's database instead would be the wrong database, silently: refused.
 */
function localOnly(command: 'add' | 'list' | 'remove' | 'reset'): void {
  if (process.env['CANON_URL']) {
    throw new ValidationError(
      `canon connectors ${command} works on the database of the machine it runs on, not on CANON_URL; run it there; \`canon sync\` and \`canon connectors run\` feed the server at CANON_URL`,
    );
  }
}

export interface AddOptions {
  workspace: string;
  /** Instance id; default `github:<owner>/<repo>`, `workspace:<root id>`, `git:<repo id>`. */
  instance?: string;
  every?: string;
  tz?: string;
  json?: boolean;
}

/**
 * `canon connectors add <connector> … [--every CRON]`: registers an instance (and its pg-boss
 * schedule). Starts the queue to write the schedule, but no workers: this process exits at once.
 */
export async function connectorsAdd(config: Config, target: ConnectorTarget, opts: AddOptions): Promise<void> {
  localOnly('add');
  const runtime = await localRuntime(config, { queue: opts.every !== undefined, workers: false, schedules: false }, 'canon connectors add');
  try {
    const instance = await addConnectorInstance(runtime, {
      workspace: opts.workspace,
      connector: target.connector,
      config: target.config,
      instanceId: opts.instance,
      schedule: opts.every ?? null,
      tz: opts.tz,
    });
    if (opts.json) console.log(JSON.stringify(instance));
    else {
      console.log(
        `added ${instance.id} (${instance.connector}) to workspace ${instance.workspace_id}` +
          (instance.schedule ? `, runs on "${instance.schedule}"${opts.tz ? ` (${opts.tz})` : ' (UTC)'} by a running \`canon start\`` : ', runs with `canon connectors run`'),
      );
    }
  } finally {
    await runtime.close();
  }
}

export async function connectorsList(config: Config, opts: { workspace?: string; json?: boolean }): Promise<void> {
  localOnly('list');
  const runtime = await localRuntime(config, { queue: false });
  try {
    const instances = await listConnectorInstances(runtime, opts.workspace);
    if (opts.json) {
      console.log(JSON.stringify(instances));
      return;
    }
    if (instances.length === 0) {
      console.log('no connector instances (add one with `canon connectors add`)');
      return;
    }
    console.table(
      instances.map((i) => ({
        workspace: i.workspace_id,
        id: i.id,
        connector: i.connector,
        schedule: i.schedule ?? '',
        config: JSON.stringify(i.config),
        created: i.created_at,
      })),
    );
  } finally {
    await runtime.close();
  }
}

/**
 * `canon connectors run ID`: runs the instance now and compiles what it wrote. The instance (its
 * configuration and token) is read from this machine's database; with CANON_URL the run feeds
 * that server through its port, as `canon sync` does, and the server keeps the cursor.
 */
export async function connectorsRun(config: Config, id: string, opts: { workspace: string; dryRun?: boolean; json?: boolean }): Promise<void> {
  const server = serverPort(config, process.env, { named: true });
  if (!server) {
    return runWithProgress(config, `run ${id}`, opts, (runtime, run) =>
      runConnectorInstance(runtime, { workspace: opts.workspace, instanceId: id, ...run, compile: 'wait' }),
    );
  }
  // No database on this machine holds no instance: say so rather than create one to look in.
  if (!config.databaseUrl && !fs.existsSync(path.join(config.home, 'pg', 'PG_VERSION'))) {
    throw new NotFoundError(`no connector instance ${id} on this machine: add it with \`canon connectors add\` (without CANON_URL), then run it with CANON_URL set`);
  }
  const runtime = await localRuntime(config, { queue: false });
  let instance: ConnectorInstance | undefined;
  try {
    instance = (await listConnectorInstances(runtime, opts.workspace)).find((i) => i.id === id);
  } finally {
    await runtime.close();
  }
  if (!instance) throw new NotFoundError(`no connector instance ${id} in workspace ${opts.workspace} on this machine`);
  const target = { connector: instance.connector as ConnectorTarget['connector'], config: instance.config };
  return runToServer(server, `run ${id}`, target, { ...opts, instanceId: instance.id, serverWorkspace: undefined });
}

/** `canon connectors remove ID`: the instance and its schedule go; its cursor stays. */
export async function connectorsRemove(config: Config, id: string, opts: { workspace: string; json?: boolean }): Promise<void> {
  localOnly('remove');
  const runtime = await localRuntime(config, { queue: true, workers: false, schedules: false });
  try {
    const removed = await removeConnectorInstance(runtime, { workspace: opts.workspace, instanceId: id });
    if (opts.json) console.log(JSON.stringify(removed));
    else console.log(`removed ${removed.id} from workspace ${removed.workspace_id}${removed.schedule ? ' and its schedule' : ''}`);
  } finally {
    await runtime.close();
  }
}

/** `canon connectors reset ID`: the next sync of that instance id reads from the beginning. */
export async function connectorsReset(config: Config, id: string, opts: { workspace: string }): Promise<void> {
  localOnly('reset');
  const runtime = await localRuntime(config, { queue: false });
  try {
    const { reset } = await resetConnectorCursor(runtime, { workspace: opts.workspace, instanceId: id });
    console.log(reset ? `forgot the cursor of ${id}: its next sync reads from the beginning` : `${id} has no cursor in workspace ${opts.workspace}`);
  } finally {
    await runtime.close();
  }
}
