import type { Sql } from '../db.js';

/**
 * The jobs of a workspace that reported progress most recently, newest first: a running
 * many-subject job reports as it starts, so the one running is among the first few.
 */
export async function recentlyReportedJobs(sql: Sql, workspaceId: string, limit: number): Promise<string[]> {
  const { rows } = await sql.query<{ job_id: string }>(
    'SELECT job_id FROM job_progress WHERE workspace_id = $1 ORDER BY updated_at DESC, job_id DESC LIMIT $2',
    [workspaceId, limit],
  );
  return rows.map((r) => r.job_id);
}
