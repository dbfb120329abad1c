import type { FoldCheckpoint } from '@canon/core';
import type { Sql } from '../db.js';
import type { ConditionalUpdate } from './update-memories-if-revision.js';

/**
 * Sets the checkpoints of memories whose timelines a compile left as they were, each only if its
 * row is still the revision that was read: one statement for the lot.
 */
export async function updateCheckpoints(
  sql: Sql,
  workspaceId: string,
  updates: ReadonlyArray<{ id: string; checkpoint: FoldCheckpoint | null; expected: { revision: number; etag: string } }>,
): Promise<ConditionalUpdate> {
  if (updates.length === 0) return { ok: true };
  const rows = updates.map((u) => ({ id: u.id, checkpoint: u.checkpoint, revision: u.expected.revision, etag: u.expected.etag }));
  const { rows: written } = await sql.query<{ id: string }>(
    `UPDATE memories SET checkpoint = m.checkpoint
     FROM json_to_recordset($2::json) AS m(id text, checkpoint json, revision int, etag text)
     WHERE memories.workspace_id = $1 AND memories.id = m.id AND memories.revision = m.revision AND memories.etag = m.etag
     RETURNING memories.id`,
    [workspaceId, JSON.stringify(rows)],
  );
  if (written.length === updates.length) return { ok: true };
  const ids = new Set(written.map((r) => r.id));
  return { ok: false, reason: 'stale', id: updates.find((u) => !ids.has(u.id))!.id };
}
