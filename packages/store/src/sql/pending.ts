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

/** The next pending episodes of a subject, oldest first. The caller holds the subject's lock. */
export async function takePending(sql: Sql, workspaceId: string, subject: string, limit: number): Promise<string[]> {
  const { rows } = await sql.query<{ episode_id: string }>(
    `SELECT episode_id FROM pending WHERE workspace_id = $1 AND subject = $2
     ORDER BY created_at, episode_id LIMIT $3`,
    [workspaceId, subject, limit],
  );
  return rows.map((r) => r.episode_id);
}

export async function deletePending(sql: Sql, workspaceId: string, subject: string, episodeIds: readonly string[]): Promise<void> {
  await sql.query('DELETE FROM pending WHERE workspace_id = $1 AND subject = $2 AND episode_id = ANY($3::uuid[])', [
    workspaceId,
    subject,
    episodeIds,
  ]);
}

/** Of these subjects, those with at least `n` episodes waiting (one query for a whole batch). */
export async function subjectsWithPendingAtLeast(sql: Sql, workspaceId: string, subjects: readonly string[], n: number): Promise<string[]> {
  // Through canon_pending_at_least (migration 0017): the backlog is every user's, counted from the
  // index without the per-row personal-scope check, and at most `n` rows a subject. Inside the
  // workspace's transaction only (`withWorkspace`).
  const { rows } = await sql.query<{ subject: string }>(`SELECT s AS subject FROM canon_pending_at_least($1, $2::text[], $3) AS s`, [
    workspaceId,
    [...new Set(subjects)],
    n,
  ]);
  return rows.map((r) => r.subject);
}

/** Every (workspace, subject) with episodes waiting: what the nightly compile visits. */
export async function subjectsWithPending(sql: Sql, workspaceId?: string): Promise<Array<{ workspace_id: string; subject: string }>> {
  const { rows } = await sql.query<{ workspace_id: string; subject: string }>(
    `SELECT DISTINCT workspace_id, subject FROM pending WHERE ($1::text IS NULL OR workspace_id = $1) ORDER BY 1, 2`,
    [workspaceId ?? null],
  );
  return rows;
}

export async function totalPending(sql: Sql): Promise<number> {
  const { rows } = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM pending');
  return rows[0]?.n ?? 0;
}
