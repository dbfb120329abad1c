import type { Sql } from '../db.js';
import { sqlLiteral } from '../literal.js';

/**
 * What a transaction may see, as row-level security reads it: the workspace, the user whose
 * personal rows it may touch (none: '' ), and whether every user's personal rows are visible
 * (compiles and erasure act on a subject as a whole).
 */
export interface SessionScope {
  workspace_id: string;
  user: string | null;
  all_users: boolean;
}

/**
 * Confines an open transaction to a workspace: from here to its end it runs as the non-owner role
 * canon_app, which the policies of migration 0011 limit to rows whose workspace_id equals
 * `canon.workspace_id` and — for a personal row — whose owner is `canon.user` (unless
 * `canon.all_users` is on). set_config(…, true): all of it ends with the transaction.
 */
export async function enterScope(tx: Sql, scope: SessionScope): Promise<void> {
  await tx.query(scopeStatement(scope));
}

/**
 * The statement `enterScope` runs, with the settings written as literals so that `beginInScope`
 * can send it after BEGIN in the same simple query (which takes no parameters), each value a
 * literal (`sqlLiteral`).
 */
export function scopeStatement(scope: SessionScope): string {
  return `SELECT set_config('canon.workspace_id', ${sqlLiteral(scope.workspace_id)}, true), set_config('canon.user', ${sqlLiteral(scope.user ?? '')}, true),
            set_config('canon.all_users', ${sqlLiteral(scope.all_users ? 'on' : 'off')}, true), set_config('role', 'canon_app', true)`;
}
