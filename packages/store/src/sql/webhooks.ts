import type { Sql } from '../db.js';

export interface WebhookRow {
  workspace_id: string;
  id: string;
  url: string;
  subject: string | null;
  predicate: string | null;
  key_id: string;
  /** Where the dispatcher has queued deliveries up to (`<tx>.<position>`). */
  after: string;
  delivered: number;
  failed_attempts: number;
  dead_letters: number;
  last_error: string | null;
  last_attempt_at: string | null;
  last_delivered_at: string | null;
  created_at: string;
}

const ts = (c: string) => `to_char(${c} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${c}`;
const COLUMNS = `workspace_id, id, url, subject, predicate, key_id, after_tx::text || '.' || after_position AS after, delivered, failed_attempts,
  dead_letters, last_error, ${ts('last_attempt_at')}, ${ts('last_delivered_at')}, ${ts('created_at')}`;

export interface NewWebhook {
  id: string;
  url: string;
  subject: string | null;
  predicate: string | null;
  key_id: string;
  secret: string;
  after: { tx: string; position: string };
}

export async function insertWebhook(sql: Sql, workspaceId: string, w: NewWebhook): Promise<WebhookRow> {
  const { rows } = await sql.query<WebhookRow>(
    `INSERT INTO webhooks (workspace_id, id, url, subject, predicate, key_id, secret, after_tx, after_position)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text::xid8, $9::bigint) RETURNING ${COLUMNS}`,
    [workspaceId, w.id, w.url, w.subject, w.predicate, w.key_id, w.secret, w.after.tx, w.after.position],
  );
  return rows[0]!;
}

/** How many webhooks a workspace has. */
export async function countWebhooks(sql: Sql, workspaceId: string): Promise<number> {
  const { rows } = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM webhooks WHERE workspace_id = $1', [workspaceId]);
  return rows[0]!.n;
}

export async function listWebhooks(sql: Sql, workspaceId: string): Promise<WebhookRow[]> {
  const { rows } = await sql.query<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE workspace_id = $1 ORDER BY created_at, id`, [workspaceId]);
  return rows;
}

export async function deleteWebhook(sql: Sql, workspaceId: string, id: string): Promise<boolean> {
  const { rowCount } = await sql.query('DELETE FROM webhooks WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
  return (rowCount ?? 0) > 0;
}

/** Every webhook of every workspace (the dispatcher's round; system role). */
export async function allWebhookIds(sql: Sql): Promise<Array<{ workspace_id: string; id: string }>> {
  const { rows } = await sql.query<{ workspace_id: string; id: string }>('SELECT workspace_id, id FROM webhooks ORDER BY workspace_id, id');
  return rows;
}

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

export async function advanceWebhook(sql: Sql, workspaceId: string, id: string, after: { tx: string; position: string }): Promise<void> {
  await sql.query('UPDATE webhooks SET after_tx = $3::text::xid8, after_position = $4::bigint WHERE workspace_id = $1 AND id = $2', [workspaceId, id, after.tx, after.position]);
}

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

/** A webhook with its secret, for a delivery; null once removed. */
export async function webhookById(sql: Sql, workspaceId: string, id: string): Promise<(WebhookRow & { secret: string }) | null> {
  const { rows } = await sql.query<WebhookRow & { secret: string }>(`SELECT ${COLUMNS}, secret FROM webhooks WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
  return rows[0] ?? null;
}

/** Says why a webhook delivers nothing (its key revoked) without counting an attempt. */
export async function noteWebhookError(sql: Sql, workspaceId: string, id: string, error: string): Promise<void> {
  await sql.query('UPDATE webhooks SET last_error = $3 WHERE workspace_id = $1 AND id = $2 AND last_error IS DISTINCT FROM $3', [workspaceId, id, error]);
}
