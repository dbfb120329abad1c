import type { Sql } from '../db.js';
import { type ApiKeyRecord, COLUMNS } from './rows.js';

/** Authentication: the active key with this hash, if any. */
export async function findActiveApiKey(sql: Sql, keyHash: string): Promise<ApiKeyRecord | null> {
  const { rows } = await sql.query<ApiKeyRecord>(
    `SELECT ${COLUMNS} FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL`,
    [keyHash],
  );
  return rows[0] ?? null;
}
