import type { Sql } from '../db.js';

/** The next pending episodes of a subject, oldest first. The caller holds the subject's lock. */
export async function takePending(sql: Sql, workspaceId: string, subject: string, limit: number): Promise<string[]> {
  const { rows } = await sql.query<{ episode_id: string }>(
    `SELECT episode_id FROM pending WHERE workspace_id = $1 AND subject = $2
     ORDER BY created_at, episode_id LIMIT $3`,
    [workspaceId, subject, limit],
  );
  return rows.map((r) => r.episode_id);
}
