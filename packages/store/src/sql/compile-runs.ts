import type { Sql } from '../db.js';
import type { compileRuns } from '../schema.js';

/** A row of `compile_runs` as written (the database stamps `finished_at`). */
export type CompileRunRow = Omit<typeof compileRuns.$inferSelect, 'finished_at' | 'kind' | 'result' | 'job_id'> & {
  kind: 'compile' | 'rebuild' | 'proposal';
  job_id: string | null;
  result: Record<string, unknown>;
};

export async function insertCompileRun(sql: Sql, run: CompileRunRow): Promise<void> {
  await sql.query(
    `INSERT INTO compile_runs (workspace_id, id, subject, kind, job_id, started_at, duration_ms, result)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [run.workspace_id, run.id, run.subject, run.kind, run.job_id, run.started_at, run.duration_ms, JSON.stringify(run.result)],
  );
}

/** Compile durations for /metrics: count and sum per kind since the process started reading. */
export async function compileDurationStats(sql: Sql): Promise<Array<{ kind: string; count: number; sum_ms: number }>> {
  const { rows } = await sql.query<{ kind: string; count: number; sum_ms: number }>(
    'SELECT kind, count(*)::int AS count, coalesce(sum(duration_ms), 0)::float8 AS sum_ms FROM compile_runs GROUP BY kind ORDER BY kind',
  );
  return rows;
}
