import type { Sql } from '../db.js';

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
  await tx.query(
    `SELECT set_config('canon.workspace_id', $1, true), set_config('canon.user', $2, true),
            set_config('canon.all_users', $3, true), set_config('role', 'canon_app', true)`,
    [scope.workspace_id, scope.user ?? '', scope.all_users ? 'on' : 'off'],
  );
}
