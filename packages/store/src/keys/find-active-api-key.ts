import pg from 'pg';
import type { Pool } from '../db.js';
import { SYSTEM_ROLE_STATEMENT } from '../session/enter-system-role.js';
import { type ApiKeyRecord, COLUMNS } from './rows.js';

/**
 * Authentication: the active key with this hash, if any. Every request asks it before anything
 * else, and before the key is found its workspace is unknown, so it reads as canon_system: the
 * transaction, the role and the lookup go as one simple query, one round trip. The hash is a
 * literal there (a simple query takes no parameters), escaped whole.
 */
export async function findActiveApiKey(pool: Pool, keyHash: string): Promise<ApiKeyRecord | null> {
  const client = await pool.connect();
  try {
    const results = (await client.query(
      `BEGIN; ${SYSTEM_ROLE_STATEMENT};
       SELECT ${COLUMNS} FROM api_keys WHERE key_hash = ${pg.escapeLiteral(keyHash)} AND revoked_at IS NULL;
       COMMIT`,
    )) as unknown as Array<pg.QueryResult<ApiKeyRecord>>;
    return results[2]!.rows[0] ?? null;
  } catch (err) {
    // A statement that failed leaves the transaction open and aborted on this connection.
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
