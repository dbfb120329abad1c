import type { Sql } from '../db.js';

export async function totalPending(sql: Sql): Promise<number> {
  const { rows } = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM pending');
  return rows[0]?.n ?? 0;
}
