import pg from 'pg';
import type { Sql } from '../db.js';

/**
 * Which of these subjects exist in the workspace (compiled, or with episodes waiting), as the
 * transaction's scope sees them: a lookup per name, not a list of every subject. Scalar
 * subqueries, not EXISTS: PostgreSQL turned `EXISTS … OR EXISTS …` into hashed subplans that
 * read every subject and every pending row of the workspace, each through its row-level-security
 * policy, to answer for one name.
 */
export async function subjectsAmong(sql: Sql, workspaceId: string, subjects: readonly string[]): Promise<string[]> {
  if (subjects.length === 0) return [];
  const { rows } = await sql.query<{ subject: string }>(
    `SELECT s AS subject FROM unnest($2::text[]) AS s
     WHERE (SELECT true FROM subjects x WHERE x.workspace_id = $1 AND x.subject = s LIMIT 1)
        OR (SELECT true FROM pending p WHERE p.workspace_id = $1 AND p.subject = s LIMIT 1)
     ORDER BY 1`,
    [workspaceId, [...new Set(subjects)]],
  );
  return rows.map((r) => r.subject);
}

/**
 * `subjectsAmong` for one subject as a statement of literals (its row: `seen`), for a caller that
 * sends it with BEGIN and the scope in one simple query, which takes no parameters.
 */
export function subjectSeenStatement(workspaceId: string, subject: string): string {
  const ws = pg.escapeLiteral(workspaceId);
  const s = pg.escapeLiteral(subject);
  return `SELECT coalesce((SELECT true FROM subjects x WHERE x.workspace_id = ${ws} AND x.subject = ${s} LIMIT 1)
            OR (SELECT true FROM pending p WHERE p.workspace_id = ${ws} AND p.subject = ${s} LIMIT 1), false) AS seen`;
}
