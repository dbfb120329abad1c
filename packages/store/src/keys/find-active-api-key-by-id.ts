import type { Sql } from '../db.js';
import { type ApiKeyRecord, COLUMNS } from './rows.js';

/** The active key of a workspace by its id (a workspace's resolver names its key by id, never by secret). */
export async function findActiveApiKeyById(sql: Sql, workspaceId: string, id: string): Promise<ApiKeyRecord | null> {
  const { rows } = await sql.query<ApiKeyRecord>(`SELECT ${COLUMNS} FROM api_keys WHERE workspace_id = $1 AND id::text = $2 AND revoked_at IS NULL`, [workspaceId, id]);
  return rows[0] ?? null;
}
