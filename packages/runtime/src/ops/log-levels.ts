import type { LevelWithSilent } from 'pino';

// Apart from the logger so that reading the configuration (every CLI command does) does not
// load pino.
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const satisfies readonly LevelWithSilent[];
export type LogLevel = (typeof LOG_LEVELS)[number];
