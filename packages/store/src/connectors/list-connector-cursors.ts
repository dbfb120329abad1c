import type { Sql } from '../db.js';
import type { StoredCursor } from './rows.js';

/** Every connector cursor of a workspace, by instance id: what an erasure tells of its subjects. */
export async function listConnectorCursors(sql: Sql, workspaceId: string): Promise<Array<{ instance_id: string; cursor: StoredCursor }>> {
  const { rows } = await sql.query<{ instance_id: string; cursor: StoredCursor }>(
    'SELECT instance_id, cursor FROM connector_cursors WHERE workspace_id = $1 ORDER BY instance_id',
    [workspaceId],
  );
  return rows;
}
