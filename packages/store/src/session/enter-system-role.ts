import type { Sql } from '../db.js';

/** The statement that switches a transaction to canon_system, to its end. */
export const SYSTEM_ROLE_STATEMENT = `SELECT set_config('role', 'canon_system', true)`;

/** The role for work across workspaces (jobs, authentication, administration), to the transaction's end. */
export async function enterSystemRole(tx: Sql): Promise<void> {
  await tx.query(SYSTEM_ROLE_STATEMENT);
}
