import type { Sql } from '../db.js';
import { SQLSTATE, sqlState } from '../errors.js';
import { COLUMNS, type ConnectorInstanceRow } from './rows.js';

export type InsertConnectorInstanceResult = { ok: true; instance: ConnectorInstanceRow } | { ok: false; reason: 'exists' };

export async function insertConnectorInstance(
  sql: Sql,
  instance: Pick<ConnectorInstanceRow, 'workspace_id' | 'id' | 'connector' | 'config' | 'schedule'>,
): Promise<InsertConnectorInstanceResult> {
  try {
    const { rows } = await sql.query<ConnectorInstanceRow>(
      `INSERT INTO connector_instances (workspace_id, id, connector, config, schedule)
       VALUES ($1, $2, $3, $4::jsonb, $5) RETURNING ${COLUMNS}`,
      [instance.workspace_id, instance.id, instance.connector, JSON.stringify(instance.config), instance.schedule],
    );
    return { ok: true, instance: rows[0]! };
  } catch (err) {
    if (sqlState(err) === SQLSTATE.uniqueViolation) return { ok: false, reason: 'exists' };
    throw err;
  }
}
