import type { Sql } from '../db.js';
import { COLUMNS, type ConnectorInstanceRow } from './rows.js';

export async function findConnectorInstance(sql: Sql, workspaceId: string, id: string): Promise<ConnectorInstanceRow | null> {
  const { rows } = await sql.query<ConnectorInstanceRow>(
    `SELECT ${COLUMNS} FROM connector_instances WHERE workspace_id = $1 AND id = $2`,
    [workspaceId, id],
  );
  return rows[0] ?? null;
}
