import type { Sql } from '../db.js';

/** A cursor as stored (jsonb): whatever the connector said, JSON `null` included. */
export type StoredCursor = unknown;

export interface ConnectorCursorRef {
  workspaceId: string;
  instanceId: string;
}

/** The cursor of one connector instance, or null when it never committed a batch. */
export async function loadConnectorCursor(
  sql: Sql,
  ref: ConnectorCursorRef,
): Promise<{ cursor: StoredCursor; updated_at: string } | null> {
  const { rows } = await sql.query<{ cursor: StoredCursor; updated_at: string }>(
    'SELECT cursor, updated_at FROM connector_cursors WHERE workspace_id = $1 AND instance_id = $2',
    [ref.workspaceId, ref.instanceId],
  );
  return rows[0] ?? null;
}

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

/** Forgets a cursor: the next sync reads the source from the beginning. */
export async function deleteConnectorCursor(sql: Sql, ref: ConnectorCursorRef): Promise<{ deleted: boolean }> {
  const { rowCount } = await sql.query('DELETE FROM connector_cursors WHERE workspace_id = $1 AND instance_id = $2', [
    ref.workspaceId,
    ref.instanceId,
  ]);
  return { deleted: rowCount === 1 };
}
