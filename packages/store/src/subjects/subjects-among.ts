import type { Sql } from '../db.js';
import { sqlLiteral } from '../literal.js';

/**
 * Which of these subjects exist in the workspace (compiled, or with episodes waiting), as the
 * transaction's scope sees them: a lookup per name, not a list of every subject. Scalar
 * subqueries, not EXISTS: PostgreSQL turned `EXISTS … OR EXISTS …` into hashed subplans that
 * read every subject and every pending row of the workspace, each through its row-level-security
 * policy, to answer for one name.
 */
export async function subjectsAmong(sql: Sql, workspaceId: string, subjects: readonly string[]): Promise<string[]> {
  if (subjects.length === 0) return [];
  const { rows } = await sql.query<{ subject: string }>(`SELECT s AS subject FROM unnest($2::text[]) AS s WHERE ${seenIn('$1', 's')} ORDER BY 1`, [
    workspaceId,
    [...new Set(subjects)],
  ]);
  return rows.map((r) => r.subject);
}

/** Whether the subject `subject` (an SQL expression) exists in the workspace `workspace`, as the scope sees it. */
function seenIn(workspace: string, subject: string): string {
  return `coalesce((SELECT true FROM subjects x WHERE x.workspace_id = ${workspace} AND x.subject = ${subject} LIMIT 1)
            OR (SELECT true FROM pending p WHERE p.workspace_id = ${workspace} AND p.subject = ${subject} LIMIT 1), false)`;
}

/**
 * `subjectsAmong` for one subject as a statement of literals (its row: `seen`), for a caller that
 * sends it with BEGIN and the scope in one simple query, which takes no parameters.
 */
export function subjectSeenStatement(workspaceId: string, subject: string): string {
  return `SELECT ${seenIn(sqlLiteral(workspaceId), sqlLiteral(subject))} AS seen`;
}
