import type { Sql } from '../db.js';

/** An episode waiting for a compile of its subject, with the episode's own scope and owner. */
export interface PendingRow {
  subject: string;
  episode_id: string;
  scope: 'workspace' | 'personal';
  owner: string | null;
}

/**
 * Marks episodes as waiting for a compile of their subject (same transaction as the ingest).
 * Each row carries its episode's scope and owner, which pending's personal-scope policy reads
 * (migration 0023): the caller passes them from the envelopes it has just appended.
 */
export async function insertPending(sql: Sql, workspaceId: string, rows: ReadonlyArray<PendingRow>): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(
    `INSERT INTO pending (workspace_id, subject, episode_id, scope, owner)
     SELECT $1, u.subject, u.episode_id, u.scope, u.owner FROM unnest($2::text[], $3::uuid[], $4::text[], $5::text[]) AS u(subject, episode_id, scope, owner)
     ON CONFLICT DO NOTHING`,
    [workspaceId, rows.map((r) => r.subject), rows.map((r) => r.episode_id), rows.map((r) => r.scope), rows.map((r) => r.owner)],
  );
}
