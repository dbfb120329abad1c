import type { Sql } from '../db.js';
import { HELD_TWICE_AT } from '../memories/conflicted-memories.js';

/**
 * Subjects with episode, memory, pending and open-conflict counts — of the rows the transaction
 * may see: under row-level security a subject shows only when one of its episodes is visible,
 * and its counts leave out other users' personal episodes and memories. So the counts are taken
 * from the rows, not from the subject's totals (which span every user). Open conflicts are those
 * of `at` (now): a dispute a scheduled change ends, or one that opens later, is not open now.
 */
export async function listSubjects(sql: Sql, workspaceId: string, at: string): Promise<Array<{ subject: string; episodes: number; memories: number; pending: number; open_conflicts: number }>> {
  const { rows } = await sql.query<{ subject: string; episodes: number; memories: number; pending: number; open_conflicts: number }>(
    `WITH s AS (SELECT subject FROM subjects WHERE workspace_id = $1 UNION SELECT DISTINCT subject FROM pending WHERE workspace_id = $1)
     SELECT s.subject,
       (SELECT count(*)::int FROM episodes e WHERE e.workspace_id = $1 AND e.subject = s.subject) AS episodes,
       (SELECT count(*)::int FROM memories m WHERE m.workspace_id = $1 AND m.subject = s.subject) AS memories,
       (SELECT count(*)::int FROM pending p WHERE p.workspace_id = $1 AND p.subject = s.subject) AS pending,
       (SELECT count(*)::int FROM memories m WHERE m.workspace_id = $1 AND m.subject = s.subject
          AND m.id IN (${HELD_TWICE_AT('$1', 's.subject', '$2')}) AND m.timeline->'policy'->>'cardinality' = 'one') AS open_conflicts
     FROM s ORDER BY s.subject`,
    [workspaceId, at],
  );
  return rows;
}
