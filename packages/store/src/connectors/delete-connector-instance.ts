import type { Sql } from '../db.js';
import { COLUMNS, type ConnectorInstanceRow } from './rows.js';

export type DeleteConnectorInstanceResult = { ok: true; instance: ConnectorInstanceRow } | { ok: false; reason: 'not_found' };

export async function deleteConnectorInstance(sql: Sql, workspaceId: string, id: string): Promise<DeleteConnectorInstanceResult> {
  const { rows } = await sql.query<ConnectorInstanceRow>(
    `DELETE FROM connector_instances WHERE workspace_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [workspaceId, id],
  );
  const instance = rows[0];
  return instance ? { ok: true, instance } : { ok: false, reason: 'not_found' };
}
