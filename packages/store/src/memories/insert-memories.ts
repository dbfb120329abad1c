import type { Sql } from '../db.js';
import { type MemoryWrite, jsonRows } from './rows.js';

/**
 * Inserts new memories, one statement for the lot: the rows travel as one JSON array, so a
 * compile that creates 200 memories pays one round trip, not 200.
 */
export async function insertMemories(sql: Sql, workspaceId: string, writes: readonly MemoryWrite[]): Promise<void> {
  if (writes.length === 0) return;
  await sql.query(
    `INSERT INTO memories (workspace_id, id, subject, key, scope, owner, predicate, qualifiers, revision, etag, digest, status, timeline, summary, side, told_as_change)
     SELECT $1, m->>'id', m->>'subject', m->>'key', m->>'scope', m->>'owner', m->>'predicate', m->'qualifiers', (m->>'revision')::int,
       m->>'etag', m->>'digest', m->>'status', m->'timeline', m->'summary', m->'side', (m->>'told_as_change')::boolean
     FROM jsonb_array_elements($2::jsonb) AS m`,
    [workspaceId, jsonRows(writes.map((w) => ({ w })))],
  );
}
