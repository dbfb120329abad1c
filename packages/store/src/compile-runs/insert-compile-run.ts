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
