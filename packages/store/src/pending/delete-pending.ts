import type { Sql } from '../db.js';

export async function deletePending(sql: Sql, workspaceId: string, subject: string, episodeIds: readonly string[]): Promise<void> {
  await sql.query('DELETE FROM pending WHERE workspace_id = $1 AND subject = $2 AND episode_id = ANY($3::uuid[])', [
    workspaceId,
    subject,
    episodeIds,
  ]);
}
