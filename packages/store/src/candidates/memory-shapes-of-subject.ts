import type { Sql } from '../db.js';
import type { MemoryShapeRow } from './rows.js';

/** Every memory of a subject, light: no timeline, only what candidates are computed from. */
export async function memoryShapesOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<MemoryShapeRow[]> {
  const { rows } = await sql.query<MemoryShapeRow>(
    `SELECT id, key,
            CASE WHEN predicate <> 'note' THEN NULL
                 WHEN sealed IS NULL THEN timeline->'values'->0->>'value'
                 -- Its first value is in its first sealed block (looked up only for a row that has one).
                 ELSE COALESCE(
                   (SELECT b.items->0->>'value' FROM memory_blocks b WHERE b.workspace_id = memories.workspace_id AND b.memory_id = memories.id AND b.kind = 'values' AND b.n = 0),
                   timeline->'values'->0->>'value') END AS note_text,
            told_as_change, document_lineages, candidates
       FROM memories WHERE workspace_id = $1 AND subject = $2 ORDER BY id`,
    [workspaceId, subject],
  );
  return rows;
}
