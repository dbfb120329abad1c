import type { Sql } from '../db.js';
import { MEMORY_RECORD, type MemoryWrite, jsonRows, timelineValues } from './rows.js';

/**
 * Inserts new memories, one statement for the lot: the rows travel as one JSON array, so a
 * compile that creates 200 memories pays one round trip, not 200. Each timeline is a `json`
 * parameter of its own, so its text goes to its column as sent, never through jsonb.
 */
export async function insertMemories(sql: Sql, workspaceId: string, writes: readonly MemoryWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const { json, timelines } = jsonRows(writes.map((w) => ({ w })));
  await sql.query(
    `INSERT INTO memories (workspace_id, id, subject, key, scope, owner, predicate, qualifiers, revision, etag, digest, status, timeline, summary, side, told_as_change, document_lineages, checkpoint, sealed)
     SELECT $1, m.id, m.subject, m.key, m.scope, m.owner, m.predicate, m.qualifiers, m.revision, m.etag, m.digest, m.status, t.timeline, m.summary, m.side, m.told_as_change, m.document_lineages, m.checkpoint, m.sealed
     FROM json_to_recordset($2::json) AS m(${MEMORY_RECORD}) JOIN ${timelineValues(3, timelines.length)} ON t.n = m.n`,
    [workspaceId, json, ...timelines],
  );
}
