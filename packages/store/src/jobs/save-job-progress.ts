import type { Sql } from '../db.js';

/**
 * Workers of one job report as they finish, and their transactions may commit out of order: a
 * count never goes down, so a late, smaller report cannot hide a larger one.
 */
export async function saveJobProgress(sql: Sql, workspaceId: string, jobId: string, done: number, total: number): Promise<void> {
  await sql.query(
    `INSERT INTO job_progress (workspace_id, job_id, done, total) VALUES ($1, $2, $3, $4)
     ON CONFLICT (workspace_id, job_id) DO UPDATE SET done = GREATEST(job_progress.done, EXCLUDED.done), total = EXCLUDED.total, updated_at = now()`,
    [workspaceId, jobId, done, total],
  );
}
