import type { Sql } from '../db.js';
import { BATCH_COUNT } from './batch-count.js';

/**
 * Marks every episode of a subject the caller can see as waiting (a rebuild starts from the
 * whole log), each with the scope and owner read from the episode in the same statement. Those
 * already waiting keep their rows, so the count carried by the new ones is of the new ones only.
 */
export async function insertPendingOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<void> {
  await sql.query(
    `INSERT INTO pending (workspace_id, subject, episode_id, scope, owner, batch_count)
     SELECT workspace_id, subject, id, scope, owner, ${BATCH_COUNT} FROM episodes e
     WHERE workspace_id = $1 AND subject = $2
       AND NOT EXISTS (SELECT 1 FROM pending p WHERE p.workspace_id = e.workspace_id AND p.subject = e.subject AND p.episode_id = e.id)
     WINDOW per_subject AS (PARTITION BY subject)
     ON CONFLICT DO NOTHING`,
    [workspaceId, subject],
  );
}
