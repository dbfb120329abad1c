import type { Sql } from '../db.js';
import { sqlLiteral } from '../literal.js';
import { type ApiKeyRecord, COLUMNS } from './rows.js';

/** The active key of a workspace by its id (a workspace's resolver names its key by id, never by secret). */
export async function findActiveApiKeyById(sql: Sql, workspaceId: string, id: string): Promise<ApiKeyRecord | null> {
  const { rows } = await sql.query<ApiKeyRecord>(`SELECT ${COLUMNS} FROM api_keys WHERE workspace_id = $1 AND id::text = $2 AND revoked_at IS NULL`, [workspaceId, id]);
  return rows[0] ?? null;
}

/**
 * The same question as a statement with its values written as literals, for a writer to send with
 * BEGIN: one row (`in_force`) when the key is active, none when it was revoked.
 */
export function keyInForceStatement(workspaceId: string, id: string): string {
  return `SELECT true AS in_force FROM api_keys WHERE workspace_id = ${sqlLiteral(workspaceId)} AND id::text = ${sqlLiteral(id)} AND revoked_at IS NULL`;
}
