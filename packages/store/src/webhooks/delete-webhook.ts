import type { Sql } from '../db.js';

export async function deleteWebhook(sql: Sql, workspaceId: string, id: string): Promise<boolean> {
  const { rowCount } = await sql.query('DELETE FROM webhooks WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
  return (rowCount ?? 0) > 0;
}
