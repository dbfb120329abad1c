import type { z } from 'zod';

/**
 * Base of the connector errors. `message` is one line naming what to fix; `transient` says
 * whether the runner may try again (a 5xx, a reset connection) or must stop (bad token, bad
 * config, rewritten history).
 */
export class ConnectorError extends Error {
  override readonly name: string = 'ConnectorError';
  readonly code: string;
  readonly transient: boolean;

  constructor(code: string, message: string, options: { transient?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.transient = options.transient ?? false;
  }
}

export class ConnectorConfigError extends ConnectorError {
  override readonly name = 'ConnectorConfigError';
  readonly issues: readonly z.core.$ZodIssue[];

  constructor(connectorId: string, issues: readonly z.core.$ZodIssue[]) {
    const detail = issues.map((i) => `${i.path.join('.') || '(config)'}: ${i.message}`).join('; ');
    super('invalid_config', `${connectorId} connector config is invalid: ${detail}`);
    this.issues = issues;
  }
}

/**
 * The sink refused an item: its key is stored with a different envelope (design §2, a key means
 * one event). `index` is the item's position in the batch that was committed.
 */
export class KeyConflictError extends ConnectorError {
  override readonly name = 'KeyConflictError';
  readonly index: number;
  readonly idempotencyKey: string;
  readonly storedEpisodeId: string;

  constructor(index: number, idempotencyKey: string, storedEpisodeId: string) {
    super(
      'key_conflict',
      `item ${index}: key ${idempotencyKey} is already stored as episode ${storedEpisodeId} with different content`,
    );
    this.index = index;
    this.idempotencyKey = idempotencyKey;
    this.storedEpisodeId = storedEpisodeId;
  }
}

/** Thrown by the runner when its signal aborts; `summary` holds what was committed before. */
export class ConnectorAbortedError extends ConnectorError {
  override readonly name = 'ConnectorAbortedError';
  readonly summary: unknown;

  constructor(summary: unknown, cause: unknown) {
    super('aborted', 'connector run aborted', { cause });
    this.summary = summary;
  }
}

const TRANSIENT_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'UND_ERR_SOCKET']);

/** True for errors worth another try: flagged transient, 429/5xx statuses, network resets. */
export function isTransient(error: unknown): boolean {
  if (error instanceof ConnectorError) return error.transient;
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { status?: unknown; code?: unknown; transient?: unknown };
  if (e.transient === true) return true;
  if (typeof e.status === 'number') return e.status === 429 || e.status >= 500;
  return typeof e.code === 'string' && TRANSIENT_CODES.has(e.code);
}
