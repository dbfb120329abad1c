import type { Sql } from '../db.js';

/** Erasure: the rows of these subjects carry values of what is erased (and name the subjects). */
export async function deleteChangesOfSubjects(sql: Sql, workspaceId: string, subjects: readonly string[]): Promise<number> {
  if (subjects.length === 0) return 0;
  const { rowCount } = await sql.query('DELETE FROM changes WHERE workspace_id = $1 AND subject = ANY($2::text[])', [workspaceId, subjects]);
  return rowCount ?? 0;
}
