import type { Pool } from '../db.js';
import { readInScope } from '../session/read-in-scope.js';
import { type ApiKeyRecord, COLUMNS } from './rows.js';
import { sqlLiteral } from '../literal.js';

/**
 * Authentication: the active key with this hash, if any. Every request asks it before anything
 * else, and before the key is found its workspace is unknown, so it reads as canon_system: the
 * role and the lookup go as one simple query, one round trip. The hash is a literal there (a
 * simple query takes no parameters), escaped whole.
 */
export async function findActiveApiKey(pool: Pool, keyHash: string): Promise<ApiKeyRecord | null> {
  const [read] = await readInScope(pool, 'system', [`SELECT ${COLUMNS} FROM api_keys WHERE key_hash = ${sqlLiteral(keyHash)} AND revoked_at IS NULL`]);
  return (read!.rows[0] as ApiKeyRecord | undefined) ?? null;
}
