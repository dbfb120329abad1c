import type { connectorInstances } from '../schema.js';

/** A cursor as stored (jsonb): whatever the connector said, JSON `null` included. */
export type StoredCursor = unknown;

export interface ConnectorCursorRef {
  workspaceId: string;
  instanceId: string;
}

/** A row of `connector_instances`; `schedule` is a cron expression, or null for an instance run only by hand. */
export type ConnectorInstanceRow = Omit<typeof connectorInstances.$inferSelect, 'config'> & { config: Record<string, unknown> };

export const COLUMNS = 'workspace_id, id, connector, config, schedule, created_at';
