import type { Sql } from '../db.js';
import { COLUMNS, type WebhookRow } from './rows.js';

export async function listWebhooks(sql: Sql, workspaceId: string): Promise<WebhookRow[]> {
  const { rows } = await sql.query<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE workspace_id = $1 ORDER BY created_at, id`, [workspaceId]);
  return rows;
}
