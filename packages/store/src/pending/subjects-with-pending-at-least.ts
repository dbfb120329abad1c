import type { Sql } from '../db.js';

/** Of these subjects, those with at least `n` episodes waiting (one query for a whole batch). */
export async function subjectsWithPendingAtLeast(sql: Sql, workspaceId: string, subjects: readonly string[], n: number): Promise<string[]> {
  // Through canon_pending_batches_at_least (migration 0037): the backlog is every user's, summed
  // without the per-row personal-scope check from the rows that carry a batch's count, at most `n`
  // of them a subject. Inside the workspace's transaction only (`withWorkspace`).
  const { rows } = await sql.query<{ subject: string }>(`SELECT s AS subject FROM canon_pending_batches_at_least($1, $2::text[], $3) AS s`, [
    workspaceId,
    [...new Set(subjects)],
    n,
  ]);
  return rows.map((r) => r.subject);
}
