import type { Sql } from '../db.js';

/** Deletes the webhooks that follow one of these subjects only; returns how many went. */
export async function deleteWebhooksOfSubjects(sql: Sql, workspaceId: string, subjects: readonly string[]): Promise<number> {
  if (subjects.length === 0) return 0;
  const { rowCount } = await sql.query('DELETE FROM webhooks WHERE workspace_id = $1 AND subject = ANY($2::text[])', [workspaceId, subjects]);
  return rowCount ?? 0;
}
