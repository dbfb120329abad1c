import type { Sql } from '../db.js';

/** All subjects of a workspace that have episodes (compiled or not), for `{all: true}`. */
export async function subjectsOfWorkspace(sql: Sql, workspaceId: string): Promise<string[]> {
  const { rows } = await sql.query<{ subject: string }>(
    `SELECT subject FROM subjects WHERE workspace_id = $1
     UNION SELECT DISTINCT subject FROM pending WHERE workspace_id = $1 ORDER BY 1`,
    [workspaceId],
  );
  return rows.map((r) => r.subject);
}
