import type { Sql } from '../db.js';

/**
 * Sets each subject's backlog from its pending rows, every user's; a subject with none has no row
 * left. Sent by the transaction that took or removed pending rows (a compile, an erasure) as late
 * as it can: the rows stay locked until it commits. A row an ingest under way has added to is left
 * as it is, not waited for (the subject's next compile sets it).
 */
export async function recountBacklogs(sql: Sql, workspaceId: string, subjects: readonly string[]): Promise<void> {
  if (subjects.length === 0) return;
  await sql.query('SELECT canon_backlog_recount($1, $2::text[])', [workspaceId, [...subjects]]);
}
