import type { Sql } from '../db.js';
import { SQLSTATE } from '../errors.js';
import { withTimeoutSetting } from './with-timeout-setting.js';

/** Thrown when a statement ran past the transaction's statement timeout and was stopped (SQLSTATE 57014). */
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
export function withStatementTimeout<T>(tx: Sql, milliseconds: number, fn: () => Promise<T>): Promise<T> {
  return withTimeoutSetting(tx, 'statement_timeout', milliseconds, SQLSTATE.queryCanceled, (cause) => new StatementTimeoutError(cause), fn);
}
