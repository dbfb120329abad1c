import type { Sql } from '../db.js';
import { sqlState } from '../errors.js';

/** SQLSTATE 57014: the statement was cancelled, here by its statement timeout. */
const QUERY_CANCELED = '57014';

/** Thrown when a statement ran past the transaction's statement timeout and was stopped. */
export class StatementTimeoutError extends Error {
  constructor(cause: unknown) {
    super('a statement ran past its statement timeout and was stopped', { cause });
  }
}

/**
 * Runs fn with a statement timeout for the rest of the transaction: a statement running longer is
 * stopped by the server, whether or not its client is still waiting — a request whose client gave
 * up would otherwise keep its connection, and its share of the pool every workspace uses, busy.
 */
export async function withStatementTimeout<T>(tx: Sql, milliseconds: number, fn: () => Promise<T>): Promise<T> {
  await tx.query(`SELECT set_config('statement_timeout', $1, true)`, [`${Math.max(1, Math.round(milliseconds))}ms`]);
  try {
    return await fn();
  } catch (err) {
    throw sqlState(err) === QUERY_CANCELED ? new StatementTimeoutError(err) : err;
  }
}
