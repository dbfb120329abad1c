import type { Sql } from '../db.js';
import { COLUMNS, type WebhookRow } from './rows.js';

/**
 * The webhook, locked for this transaction's dispatch — or null when another dispatcher holds it
 * (it is doing this same work) or it was removed. The secret comes with it, for signing.
 */
export async function lockWebhook(sql: Sql, workspaceId: string, id: string, wait: boolean): Promise<(WebhookRow & { secret: string }) | null> {
  const { rows } = await sql.query<WebhookRow & { secret: string }>(
    `SELECT ${COLUMNS}, secret FROM webhooks WHERE workspace_id = $1 AND id = $2 FOR UPDATE ${wait ? '' : 'SKIP LOCKED'}`,
    [workspaceId, id],
  );
  return rows[0] ?? null;
}
