import type pg from 'pg';
import type { Sql } from '../db.js';
import { scopeStatement, type SessionScope } from './enter-scope.js';
import { SYSTEM_ROLE_STATEMENT } from './enter-system-role.js';

/**
 * Reads in one round trip: `enterScope`'s statement (or, for `'system'`, the canon_system role,
 * across workspaces: authentication, before a key's workspace is known) and then `statements`
 * (statements of literals, such as `recallPageStatement`) sent as one simple query. Returns the
 * results of `statements`, in order.
 *
 * PostgreSQL runs the statements of one simple query as one implicit transaction, so the
 * transaction-local settings hold for every statement after them and end with the last — as
 * after a COMMIT, with no BEGIN or COMMIT to wait for. An error ends that transaction too and
 * leaves the connection idle. `sql` is a pool, or a connection outside any transaction (inside
 * one, the settings would outlive the read).
 */
export async function readInScope(sql: Sql, scope: SessionScope | 'system', statements: readonly string[]): Promise<pg.QueryResult[]> {
  if (statements.length === 0) return [];
  const setting = scope === 'system' ? SYSTEM_ROLE_STATEMENT : scopeStatement(scope);
  const results = (await sql.query([setting, ...statements].join('; '))) as unknown as pg.QueryResult[];
  return results.slice(1);
}
