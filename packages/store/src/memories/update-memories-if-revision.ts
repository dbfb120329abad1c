import type { Sql } from '../db.js';
import { MEMORY_RECORD, type MemoryWrite, jsonRows, timelineValues } from './rows.js';

export type ConditionalUpdate = { ok: true } | { ok: false; reason: 'stale'; id: string };

/**
 * Writes recomputed timelines, each only if its row is still the revision that was read: one
 * statement for the lot. Stale when any row was not written (the caller's transaction fails).
 */
export async function updateMemoriesIfRevision(
  sql: Sql,
  workspaceId: string,
  updates: ReadonlyArray<{ write: MemoryWrite; expected: { revision: number; etag: string } }>,
): Promise<ConditionalUpdate> {
  if (updates.length === 0) return { ok: true };
  const { json, timelines } = jsonRows(updates.map((u) => ({ w: u.write, expected: u.expected })));
  const { rows } = await sql.query<{ id: string }>(
    `UPDATE memories SET revision = m.revision, etag = m.etag, digest = m.digest, status = m.status,
       timeline = t.timeline, summary = m.summary, side = m.side, told_as_change = m.told_as_change, document_lineages = m.document_lineages,
       checkpoint = m.checkpoint, sealed = m.sealed
     FROM json_to_recordset($2::json) AS m(${MEMORY_RECORD}, expected_revision int, expected_etag text)
     JOIN ${timelineValues(3, timelines.length)} ON t.n = m.n
     WHERE memories.workspace_id = $1 AND memories.id = m.id
       AND memories.revision = m.expected_revision AND memories.etag = m.expected_etag
     RETURNING memories.id`,
    [workspaceId, json, ...timelines],
  );
  if (rows.length === updates.length) return { ok: true };
  const written = new Set(rows.map((r) => r.id));
  return { ok: false, reason: 'stale', id: updates.find((u) => !written.has(u.write.timeline.memory_id))!.write.timeline.memory_id };
}
