import type { Sql } from '../db.js';

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
