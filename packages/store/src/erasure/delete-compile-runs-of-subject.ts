import type { Sql } from '../db.js';

/** The compile audit of a subject names it: an erased subject leaves none behind. */
export async function deleteCompileRunsOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<void> {
  await sql.query('DELETE FROM compile_runs WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
}
