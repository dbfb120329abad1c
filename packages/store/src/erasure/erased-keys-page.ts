import type { Sql } from '../db.js';

/**
 * A page of a workspace's erasure tombstones, in key-hash order after `after`: what an export
 * carries besides the log, so an import refuses the erased keys as the source does.
 */
export async function erasedKeysPage(
  sql: Sql,
  workspaceId: string,
  after: string | null,
  limit: number,
): Promise<Array<{ key_hash: string; erasure_id: string }>> {
  const { rows } = await sql.query<{ key_hash: string; erasure_id: string }>(
    `SELECT key_hash, erasure_id FROM erased_keys
     WHERE workspace_id = $1 AND ($2::text IS NULL OR key_hash > $2)
     ORDER BY key_hash LIMIT $3`,
    [workspaceId, after, limit],
  );
  return rows;
}
