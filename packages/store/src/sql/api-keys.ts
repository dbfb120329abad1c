import type { Role } from '@canon/core';
import type { Sql } from '../db.js';
import type { apiKeys } from '../schema.js';

/** A key as the store hands it out: its row without the hash; `sources` are the reserved sources it may write (design §2). */
export type ApiKeyRecord = Omit<typeof apiKeys.$inferSelect, 'key_hash' | 'role'> & { role: Role };

const COLUMNS = 'id, workspace_id, role, user_id, prefix, label, sources, created_at, revoked_at';

export async function ensureWorkspace(sql: Sql, workspaceId: string): Promise<{ created: boolean }> {
  const { rowCount } = await sql.query(
    'INSERT INTO workspaces (id) VALUES ($1) ON CONFLICT (id) DO NOTHING',
    [workspaceId],
  );
  return { created: rowCount === 1 };
}

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

/** Authentication: the active key with this hash, if any. */
export async function findActiveApiKey(sql: Sql, keyHash: string): Promise<ApiKeyRecord | null> {
  const { rows } = await sql.query<ApiKeyRecord>(
    `SELECT ${COLUMNS} FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL`,
    [keyHash],
  );
  return rows[0] ?? null;
}

/** The active key of a workspace by its id (a workspace's resolver names its key by id, never by secret). */
export async function findActiveApiKeyById(sql: Sql, workspaceId: string, id: string): Promise<ApiKeyRecord | null> {
  const { rows } = await sql.query<ApiKeyRecord>(`SELECT ${COLUMNS} FROM api_keys WHERE workspace_id = $1 AND id::text = $2 AND revoked_at IS NULL`, [workspaceId, id]);
  return rows[0] ?? null;
}

export async function listApiKeys(sql: Sql, workspaceId?: string): Promise<ApiKeyRecord[]> {
  const { rows } = await sql.query<ApiKeyRecord>(
    `SELECT ${COLUMNS} FROM api_keys WHERE ($1::text IS NULL OR workspace_id = $1)
     ORDER BY workspace_id, created_at, id`,
    [workspaceId ?? null],
  );
  return rows;
}

export type RevokeResult = { ok: true; key: ApiKeyRecord } | { ok: false; reason: 'not_found' };

export async function revokeApiKey(sql: Sql, id: string): Promise<RevokeResult> {
  const { rows } = await sql.query<ApiKeyRecord>(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [id],
  );
  return rows[0] ? { ok: true, key: rows[0] } : { ok: false, reason: 'not_found' };
}

export async function countApiKeys(sql: Sql): Promise<number> {
  const { rows } = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys');
  return rows[0]?.n ?? 0;
}
