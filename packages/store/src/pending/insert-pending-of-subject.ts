import type { Sql } from '../db.js';

/**
 * Marks every episode of a subject the caller can see as waiting (a rebuild starts from the
 * whole log), each with the scope and owner read from the episode in the same statement.
 */
export async function insertPendingOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<void> {
  await sql.query(
    `INSERT INTO pending (workspace_id, subject, episode_id, scope, owner)
     SELECT workspace_id, subject, id, scope, owner FROM episodes WHERE workspace_id = $1 AND subject = $2
     ON CONFLICT DO NOTHING`,
    [workspaceId, subject],
  );
}
