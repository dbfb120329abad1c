import type { Sql } from '../db.js';
import type { ConnectorCursorRef } from './rows.js';

/** Forgets a cursor: the next sync reads the source from the beginning. */
export async function deleteConnectorCursor(sql: Sql, ref: ConnectorCursorRef): Promise<{ deleted: boolean }> {
  const { rowCount } = await sql.query('DELETE FROM connector_cursors WHERE workspace_id = $1 AND instance_id = $2', [
    ref.workspaceId,
    ref.instanceId,
  ]);
  return { deleted: rowCount === 1 };
}
