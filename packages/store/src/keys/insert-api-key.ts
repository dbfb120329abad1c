import type { Role } from '@canon/core';
import type { Sql } from '../db.js';
import { type ApiKeyRecord, COLUMNS } from './rows.js';

export async function insertApiKey(
  sql: Sql,
  key: { id: string; workspace_id: string; role: Role; user_id: string | null; key_hash: string; prefix: string; label: string | null; sources?: readonly string[] },
): Promise<ApiKeyRecord> {
  const { rows } = await sql.query<ApiKeyRecord>(
    `INSERT INTO api_keys (workspace_id, id, role, user_id, key_hash, prefix, label, sources)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text[]) RETURNING ${COLUMNS}`,
    [key.workspace_id, key.id, key.role, key.user_id, key.key_hash, key.prefix, key.label, [...(key.sources ?? [])]],
  );
  return rows[0]!;
}
