import type { Sql } from '../db.js';

/** Opens a transaction as canon_system (`enterSystemRole`): BEGIN and the role in one round trip. */
export async function beginAsSystem(tx: Sql): Promise<void> {
  await tx.query(`BEGIN; SELECT set_config('role', 'canon_system', true)`);
}
