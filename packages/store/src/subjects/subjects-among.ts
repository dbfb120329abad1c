import type { Sql } from '../db.js';

/**
 * Which of these subjects exist in the workspace (compiled, or with episodes waiting), as the
 * transaction's scope sees them: a lookup per name, not a list of every subject, which a
 * workspace with a long backlog waiting made a scan of its whole pending table on every request.
 */
export async function subjectsAmong(sql: Sql, workspaceId: string, subjects: readonly string[]): Promise<string[]> {
  if (subjects.length === 0) return [];
  const { rows } = await sql.query<{ subject: string }>(
    `SELECT s AS subject FROM unnest($2::text[]) AS s
     WHERE EXISTS (SELECT 1 FROM subjects WHERE workspace_id = $1 AND subject = s)
        OR EXISTS (SELECT 1 FROM pending WHERE workspace_id = $1 AND subject = s)
     ORDER BY 1`,
    [workspaceId, [...new Set(subjects)]],
  );
  return rows.map((r) => r.subject);
}
