import type { Sql } from '../db.js';
import { COLUMNS, type WebhookRow } from './rows.js';

/** A webhook with its secret, for a delivery; null once removed. */
export async function webhookById(sql: Sql, workspaceId: string, id: string): Promise<(WebhookRow & { secret: string }) | null> {
  const { rows } = await sql.query<WebhookRow & { secret: string }>(`SELECT ${COLUMNS}, secret FROM webhooks WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
  return rows[0] ?? null;
}
