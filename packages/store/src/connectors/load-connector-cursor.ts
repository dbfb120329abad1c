import type { Sql } from '../db.js';
import type { ConnectorCursorRef, StoredCursor } from './rows.js';

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
