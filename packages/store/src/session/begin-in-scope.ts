import pg from 'pg';
import type { Sql } from '../db.js';
import type { SessionScope } from './enter-scope.js';

/**
 * Opens a transaction already confined to a scope: BEGIN and `enterScope`'s settings in one
 * round trip. Two statements in one simple query take no parameters, so the settings are written
 * as literals, each escaped whole (`escapeLiteral` quotes and doubles what needs it, backslashes
 * included); a NUL, which no literal may hold, never reaches here (the door refuses it).
 */
export async function beginInScope(tx: Sql, scope: SessionScope): Promise<void> {
  const lit = (v: string) => pg.escapeLiteral(v);
  await tx.query(
    `BEGIN; SELECT set_config('canon.workspace_id', ${lit(scope.workspace_id)}, true), set_config('canon.user', ${lit(scope.user ?? '')}, true),
            set_config('canon.all_users', ${lit(scope.all_users ? 'on' : 'off')}, true), set_config('role', 'canon_app', true)`,
  );
}
