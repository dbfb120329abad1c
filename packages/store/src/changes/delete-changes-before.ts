import type { Sql } from '../db.js';

/** Retention: the rows of every workspace changed before this instant. */
export async function deleteChangesBefore(sql: Sql, before: string): Promise<number> {
  const { rowCount } = await sql.query('DELETE FROM changes WHERE changed_at < $1', [before]);
  return rowCount ?? 0;
}
