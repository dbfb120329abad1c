import type { Sql } from '../db.js';

/**
 * Tombstones of erased episodes (design §8): content-free hashes of (workspace, source, key).
 * Ingest asks which keys of a batch were erased, so a re-sync answers `erased` for those.
 */
export async function erasedKeysAmong(sql: Sql, workspaceId: string, keyHashes: readonly string[]): Promise<Set<string>> {
  if (keyHashes.length === 0) return new Set();
  const { rows } = await sql.query<{ key_hash: string }>(
    'SELECT key_hash FROM erased_keys WHERE workspace_id = $1 AND key_hash = ANY($2::text[])',
    [workspaceId, keyHashes],
  );
  return new Set(rows.map((r) => r.key_hash));
}
