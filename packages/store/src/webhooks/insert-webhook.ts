import type { Sql } from '../db.js';
import { COLUMNS, type WebhookRow } from './rows.js';

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
