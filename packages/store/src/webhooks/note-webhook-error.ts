import type { Sql } from '../db.js';

/** Says why a webhook delivers nothing (its key revoked) without counting an attempt. */
export async function noteWebhookError(sql: Sql, workspaceId: string, id: string, error: string): Promise<void> {
  await sql.query('UPDATE webhooks SET last_error = $3 WHERE workspace_id = $1 AND id = $2 AND last_error IS DISTINCT FROM $3', [workspaceId, id, error]);
}
