import type { Sql } from '../db.js';
import { SYSTEM_ROLE_STATEMENT } from './enter-system-role.js';

/** Opens a transaction as canon_system (`enterSystemRole`): BEGIN and the role in one round trip. */
export async function beginAsSystem(tx: Sql): Promise<void> {
  await tx.query(`BEGIN; ${SYSTEM_ROLE_STATEMENT}`);
}
