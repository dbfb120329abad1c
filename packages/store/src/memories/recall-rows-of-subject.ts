import type { Sql } from '../db.js';
import { type MemoryRecallRow, RECALL_COLUMNS } from './rows.js';

/**
 * One page of a subject's memories in key order (bytewise, as JavaScript compares the keys of a
 * refold), after the key `after` (exclusive).
 */
export async function recallRowsOfSubject(sql: Sql, workspaceId: string, subject: string, page: { after: string | null; limit: number }): Promise<MemoryRecallRow[]> {
  // Two spellings, so the planner reads the page from memories_subject_key_idx either way.
  const { rows } =
    page.after === null
      ? await sql.query<MemoryRecallRow>(`SELECT ${RECALL_COLUMNS} FROM memories WHERE workspace_id = $1 AND subject = $2 ORDER BY key COLLATE "C" LIMIT $3`, [
          workspaceId,
          subject,
          page.limit,
        ])
      : await sql.query<MemoryRecallRow>(
          `SELECT ${RECALL_COLUMNS} FROM memories WHERE workspace_id = $1 AND subject = $2 AND key COLLATE "C" > $3 ORDER BY key COLLATE "C" LIMIT $4`,
          [workspaceId, subject, page.after, page.limit],
        );
  return rows;
}
