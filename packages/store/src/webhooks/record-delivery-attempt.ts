import type { Sql } from '../db.js';

/** One delivery attempt's outcome, for `canon webhooks list`. */
export async function recordDeliveryAttempt(
  sql: Sql,
  workspaceId: string,
  id: string,
  outcome: { ok: true } | { ok: false; error: string; dead: boolean },
): Promise<void> {
  if (outcome.ok) {
    await sql.query(
      `UPDATE webhooks SET delivered = delivered + 1, last_attempt_at = now(), last_delivered_at = now() WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id],
    );
    return;
  }
  await sql.query(
    `UPDATE webhooks SET failed_attempts = failed_attempts + 1, dead_letters = dead_letters + $4::int, last_error = $3, last_attempt_at = now()
     WHERE workspace_id = $1 AND id = $2`,
    [workspaceId, id, outcome.error.slice(0, 500), outcome.dead ? 1 : 0],
  );
}
