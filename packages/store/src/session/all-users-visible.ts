import type { Sql } from '../db.js';

/** Whether every user's rows are visible to the open transaction. */
export async function allUsersVisible(tx: Sql): Promise<boolean> {
  const { rows } = await tx.query<{ v: string | null }>(`SELECT current_setting('canon.all_users', true) AS v`);
  return rows[0]?.v === 'on';
}
