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

export const COLUMNS = `workspace_id, id, url, subject, predicate, key_id, after_tx::text || '.' || after_position AS after, delivered, failed_attempts,
  dead_letters, last_error, ${ts('last_attempt_at')}, ${ts('last_delivered_at')}, ${ts('created_at')}`;
