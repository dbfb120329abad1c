import type { CanonPort, Config } from '@canon/runtime';

// The command modules are loaded to build the command table, for `canon --help` too; the
// port, the client, the core and zod behind them are loaded only when a command runs.

export async function openPort(config: Config): Promise<CanonPort> {
  return (await import('./port.js')).openPort(config);
}

export async function withPort(config: Config, fn: (port: CanonPort) => Promise<void>): Promise<void> {
  return (await import('./port.js')).withPort(config, fn);
}

/** The core's ValidationError, for a command that refuses its own arguments. */
export async function invalid(message: string): Promise<Error> {
  return new (await import('@canon/core')).ValidationError(message);
}

/** How a command's action is wrapped (one-line errors, exit codes): see main.ts. */
export type Run = <A extends unknown[]>(fn: (...args: A) => Promise<void>) => (...args: A) => Promise<void>;
