import type { Sql } from '../db.js';
import { SQLSTATE, sqlState } from '../errors.js';
import type { connectorInstances } from '../schema.js';

/** A row of `connector_instances`; `schedule` is a cron expression, or null for an instance run only by hand. */
export type ConnectorInstanceRow = Omit<typeof connectorInstances.$inferSelect, 'config'> & { config: Record<string, unknown> };

const COLUMNS = 'workspace_id, id, connector, config, schedule, created_at';

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

export async function findConnectorInstance(sql: Sql, workspaceId: string, id: string): Promise<ConnectorInstanceRow | null> {
  const { rows } = await sql.query<ConnectorInstanceRow>(
    `SELECT ${COLUMNS} FROM connector_instances WHERE workspace_id = $1 AND id = $2`,
    [workspaceId, id],
  );
  return rows[0] ?? null;
}

/** Instances of one workspace, or of all when `workspaceId` is undefined. */
export async function listConnectorInstances(sql: Sql, workspaceId?: string): Promise<ConnectorInstanceRow[]> {
  const { rows } = await sql.query<ConnectorInstanceRow>(
    `SELECT ${COLUMNS} FROM connector_instances WHERE ($1::text IS NULL OR workspace_id = $1)
     ORDER BY workspace_id, id`,
    [workspaceId ?? null],
  );
  return rows;
}

export type DeleteConnectorInstanceResult = { ok: true; instance: ConnectorInstanceRow } | { ok: false; reason: 'not_found' };

export async function deleteConnectorInstance(sql: Sql, workspaceId: string, id: string): Promise<DeleteConnectorInstanceResult> {
  const { rows } = await sql.query<ConnectorInstanceRow>(
    `DELETE FROM connector_instances WHERE workspace_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [workspaceId, id],
  );
  const instance = rows[0];
  return instance ? { ok: true, instance } : { ok: false, reason: 'not_found' };
}
