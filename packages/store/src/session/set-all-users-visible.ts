import type { Sql } from '../db.js';

export async function setAllUsersVisible(tx: Sql, on: boolean): Promise<void> {
  await tx.query(`SELECT set_config('canon.all_users', $1, true)`, [on ? 'on' : 'off']);
}
