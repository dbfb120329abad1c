import { basename, resolve } from 'node:path';
import { ValidationError } from '@canon/core';
import { ConnectorConfigError, type ConnectorDefinition } from '@canon/connector-kit';
import { gitConnector, resolveRepoId, type GitConfig } from '@canon/connector-git';
import { githubConnector, type GithubConfig } from '@canon/connector-github';
import { workspaceConnector, type WorkspaceConfig } from '@canon/connector-workspace';

export type ConnectorId = 'git' | 'github' | 'workspace';

/**
 * What the runtime knows about a connector beyond its kit definition: how a raw configuration
 * is made fit to store (absolute paths, so a worker with another working directory reads the
 * same folder) and the instance id it gets when none is given.
 */
export interface RegisteredConnector {
  readonly definition: ConnectorDefinition<unknown, unknown>;
  /** Parses (ConnectorConfigError → ValidationError) and normalizes; the result is what is stored. */
  normalize(raw: unknown): Record<string, unknown>;
  /** `github:<owner>/<repo>`, `workspace:<root id>`, `git:<repo id>`. */
  defaultInstanceId(config: Record<string, unknown>, signal?: AbortSignal): Promise<string>;
}

function parsed<C>(definition: ConnectorDefinition<C, unknown>, raw: unknown): C {
  try {
    return definition.create(raw).config as C;
  } catch (err) {
    if (err instanceof ConnectorConfigError) throw new ValidationError(err.message, [], { cause: err });
    throw err;
  }
}

/**
 * The configuration as given (defaults stay unstated, so they follow the connector's code) with
 * its folder made absolute. Called after parsing, so `raw` is known to be an object.
 */
function withAbsolutePath(raw: unknown, path: string): Record<string, unknown> {
  return { ...(raw as Record<string, unknown>), path: resolve(path) };
}

const registered: Record<ConnectorId, RegisteredConnector> = {
  git: {
    definition: gitConnector as ConnectorDefinition<unknown, unknown>,
    normalize(raw) {
      return withAbsolutePath(raw, parsed<GitConfig>(gitConnector, raw).path);
    },
    async defaultInstanceId(config, signal) {
      const c = config as GitConfig;
      return `git:${await resolveRepoId(c.path, c.id, signal)}`;
    },
  },
  github: {
    definition: githubConnector as ConnectorDefinition<unknown, unknown>,
    normalize(raw) {
      parsed<GithubConfig>(githubConnector, raw);
      return { ...(raw as Record<string, unknown>) };
    },
    async defaultInstanceId(config) {
      return `github:${(config as GithubConfig).repo}`;
    },
  },
  workspace: {
    definition: workspaceConnector as ConnectorDefinition<unknown, unknown>,
    normalize(raw) {
      return withAbsolutePath(raw, parsed<WorkspaceConfig>(workspaceConnector, raw).path);
    },
    async defaultInstanceId(config) {
      const c = config as WorkspaceConfig;
      return `workspace:${c.id ?? basename(resolve(c.path))}`;
    },
  },
};

/** The connectors this runtime can run, by id (the episode `source`). */
export const CONNECTOR_IDS: readonly ConnectorId[] = Object.freeze(Object.keys(registered).sort() as ConnectorId[]);

export function registeredConnector(id: string): RegisteredConnector {
  if (!Object.hasOwn(registered, id)) {
    throw new ValidationError(`unknown connector ${JSON.stringify(id)}; known: ${CONNECTOR_IDS.join(', ')}`);
  }
  return registered[id as ConnectorId];
}

/** Instance ids name a cursor and a pg-boss schedule key: printable, no spaces, bounded. */
export function checkInstanceId(id: string): string {
  if (!/^[^\s\u0000-\u001f\u007f]{1,200}$/u.test(id)) {
    throw new ValidationError(`instance id ${JSON.stringify(id)}: 1 to 200 printable characters, no spaces`);
  }
  return id;
}

/**
 * A connector's id is a reserved source (design §2): only keys bound to it, and the runs of the
 * connector itself, may write episodes with it. Every connector registered here is reserved.
 */
export function isReservedSource(source: string): boolean {
  return Object.hasOwn(registered, source);
}

/**
 * The connector an instance belongs to: its registered row's, else the one its id starts with
 * (`github:acme/api`, as a run names it by default); null when neither names a connector.
 */
export function connectorOfInstance(instanceId: string, registered: string | null | undefined): ConnectorId | null {
  const named = registered ?? (instanceId.includes(':') ? instanceId.slice(0, instanceId.indexOf(':')) : '');
  return isReservedSource(named) ? (named as ConnectorId) : null;
}
