import type { Sql } from '../db.js';
import { sqlState } from '../errors.js';

/**
 * Runs fn with one of PostgreSQL's timeouts set for the rest of the transaction, turning the error
 * the server raises when it runs out (its SQLSTATE) into the caller's own; other errors pass.
 */
export async function withTimeoutSetting<T>(
  tx: Sql,
  setting: 'lock_timeout' | 'statement_timeout',
  milliseconds: number,
  raised: string,
  wrap: (cause: unknown) => Error,
  fn: () => Promise<T>,
): Promise<T> {
  await tx.query(`SELECT set_config($1, $2, true)`, [setting, `${Math.max(1, Math.round(milliseconds))}ms`]);
  try {
    return await fn();
  } catch (err) {
    throw sqlState(err) === raised ? wrap(err) : err;
  }
}
