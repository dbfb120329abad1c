import type { Sql } from '../db.js';
import { type ApiKeyRecord, COLUMNS } from './rows.js';

export type RevokeResult = { ok: true; key: ApiKeyRecord } | { ok: false; reason: 'not_found' };

export async function revokeApiKey(sql: Sql, id: string): Promise<RevokeResult> {
  const { rows } = await sql.query<ApiKeyRecord>(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [id],
  );
  return rows[0] ? { ok: true, key: rows[0] } : { ok: false, reason: 'not_found' };
}
