import type { Sql } from '../db.js';
import { COLUMNS, type ConnectorInstanceRow } from './rows.js';

/** Instances of one workspace, or of all when `workspaceId` is undefined. */
export async function listConnectorInstances(sql: Sql, workspaceId?: string): Promise<ConnectorInstanceRow[]> {
  const { rows } = await sql.query<ConnectorInstanceRow>(
    `SELECT ${COLUMNS} FROM connector_instances WHERE ($1::text IS NULL OR workspace_id = $1)
     ORDER BY workspace_id, id`,
    [workspaceId ?? null],
  );
  return rows;
}
