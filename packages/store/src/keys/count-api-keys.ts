import type { Sql } from '../db.js';

export async function countApiKeys(sql: Sql): Promise<number> {
  const { rows } = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys');
  return rows[0]?.n ?? 0;
}
