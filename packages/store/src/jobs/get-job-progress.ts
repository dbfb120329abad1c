import type { Sql } from '../db.js';

export async function getJobProgress(sql: Sql, workspaceId: string, jobId: string): Promise<{ done: number; total: number } | null> {
  const { rows } = await sql.query<{ done: number; total: number }>(
    'SELECT done, total FROM job_progress WHERE workspace_id = $1 AND job_id = $2',
    [workspaceId, jobId],
  );
  return rows[0] ?? null;
}
