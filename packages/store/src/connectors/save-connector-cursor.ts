import type { Sql } from '../db.js';
import type { ConnectorCursorRef, StoredCursor } from './rows.js';

export type SaveConnectorCursorResult = { ok: true } | { ok: false; reason: 'stale' };

/**
 * Saves a cursor if the stored one still equals `expected` (a missing row counts as `null`).
 * Meant to run inside the transaction of the batch it follows. The condition is what keeps two
 * overlapping runs of one instance from moving the cursor backwards: the slower run's commit
 * finds a cursor it did not read and is refused, its batch rolled back with it.
 */
export async function saveConnectorCursor(
  sql: Sql,
  ref: ConnectorCursorRef & { expected: StoredCursor; cursor: StoredCursor },
): Promise<SaveConnectorCursorResult> {
  const params = [ref.workspaceId, ref.instanceId, JSON.stringify(ref.cursor ?? null), JSON.stringify(ref.expected ?? null)];
  // jsonb equality is semantic (key order and spacing do not matter), so the comparison holds
  // however the cursor was serialized.
  const text =
    ref.expected === null || ref.expected === undefined
      ? `INSERT INTO connector_cursors (workspace_id, instance_id, cursor, updated_at)
         VALUES ($1, $2, $3::jsonb, now())
         ON CONFLICT (workspace_id, instance_id) DO UPDATE SET cursor = EXCLUDED.cursor, updated_at = now()
         WHERE connector_cursors.cursor = $4::jsonb`
      : `UPDATE connector_cursors SET cursor = $3::jsonb, updated_at = now()
         WHERE workspace_id = $1 AND instance_id = $2 AND cursor = $4::jsonb`;
  const { rowCount } = await sql.query(text, params);
  return rowCount === 1 ? { ok: true } : { ok: false, reason: 'stale' };
}
