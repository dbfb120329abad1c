import type { Config } from '@canon/runtime';
import type { CanonClient } from './client.js';

// The command modules are loaded to build the command table, for `canon --help` too; the
// client, the core and zod behind it are loaded only when a command runs.

export async function connect(config: Config): Promise<CanonClient> {
  return (await import('./client.js')).connect(config);
}

export async function withClient(config: Config, fn: (client: CanonClient) => Promise<void>): Promise<void> {
  return (await import('./client.js')).withClient(config, fn);
}

/** The core's ValidationError, for a command that refuses its own arguments. */
export async function invalid(message: string): Promise<Error> {
  return new (await import('@canon/core')).ValidationError(message);
}
