import type { Sql } from '../db.js';

/**
 * Retention: the progress of every workspace's jobs last reported before this instant. pg-boss
 * deletes a job itself after the same retention, and a job's progress is read only while the
 * job can still be found.
 */
export async function deleteJobProgressBefore(sql: Sql, before: string): Promise<number> {
  const { rowCount } = await sql.query('DELETE FROM job_progress WHERE updated_at < $1', [before]);
  return rowCount ?? 0;
}
