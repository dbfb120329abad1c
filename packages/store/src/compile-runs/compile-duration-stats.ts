import type { Sql } from '../db.js';

/** Compile durations for /metrics: count and sum per kind since the process started reading. */
export async function compileDurationStats(sql: Sql): Promise<Array<{ kind: string; count: number; sum_ms: number }>> {
  const { rows } = await sql.query<{ kind: string; count: number; sum_ms: number }>(
    'SELECT kind, count(*)::int AS count, coalesce(sum(duration_ms), 0)::float8 AS sum_ms FROM compile_runs GROUP BY kind ORDER BY kind',
  );
  return rows;
}
