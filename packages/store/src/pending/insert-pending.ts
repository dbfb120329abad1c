import type { Sql } from '../db.js';

/** Marks episodes as waiting for a compile of their subject (same transaction as the ingest). */
export async function insertPending(sql: Sql, workspaceId: string, rows: ReadonlyArray<{ subject: string; episode_id: string }>): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(
    `INSERT INTO pending (workspace_id, subject, episode_id)
     SELECT $1, u.subject, u.episode_id FROM unnest($2::text[], $3::uuid[]) AS u(subject, episode_id)
     ON CONFLICT DO NOTHING`,
    [workspaceId, rows.map((r) => r.subject), rows.map((r) => r.episode_id)],
  );
}
