import type { Sql } from '../db.js';

export async function advanceWebhook(sql: Sql, workspaceId: string, id: string, after: { tx: string; position: string }): Promise<void> {
  await sql.query('UPDATE webhooks SET after_tx = $3::text::xid8, after_position = $4::bigint WHERE workspace_id = $1 AND id = $2', [workspaceId, id, after.tx, after.position]);
}
