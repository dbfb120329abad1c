import type { Sql } from '../db.js';
import { SQLSTATE } from '../errors.js';
import { withTimeoutSetting } from './with-timeout-setting.js';

/** Thrown when a lock was not granted within the transaction's lock timeout (SQLSTATE 55P03). */
export class LockTimeoutError extends Error {
  constructor(cause: unknown) {
    super('a lock was not granted within the lock timeout', { cause });
  }
}

/**
 * Runs fn with a lock timeout for the rest of the transaction: a statement waiting longer for a
 * lock fails, the transaction is aborted, and the caller gets a LockTimeoutError to answer "busy,
 * retry" with — instead of holding a connection behind a long compile.
 */
export function withLockTimeout<T>(tx: Sql, milliseconds: number, fn: () => Promise<T>): Promise<T> {
  return withTimeoutSetting(tx, 'lock_timeout', milliseconds, SQLSTATE.lockNotAvailable, (cause) => new LockTimeoutError(cause), fn);
}
