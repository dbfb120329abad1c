import type { Sql } from '../db.js';

/** The role for work across workspaces (jobs, authentication, administration), to the transaction's end. */
export async function enterSystemRole(tx: Sql): Promise<void> {
  await tx.query(`SELECT set_config('role', 'canon_system', true)`);
}
