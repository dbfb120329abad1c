import type { Sql } from '../db.js';
import { type ApiKeyRecord, COLUMNS } from './rows.js';

export async function listApiKeys(sql: Sql, workspaceId?: string): Promise<ApiKeyRecord[]> {
  const { rows } = await sql.query<ApiKeyRecord>(
    `SELECT ${COLUMNS} FROM api_keys WHERE ($1::text IS NULL OR workspace_id = $1)
     ORDER BY workspace_id, created_at, id`,
    [workspaceId ?? null],
  );
  return rows;
}
