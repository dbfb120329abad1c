import type { Sql } from '../db.js';

/** Tombstones brought in by an import, keeping their erasure ids; how many were new. */
export async function insertTombstones(sql: Sql, workspaceId: string, rows: ReadonlyArray<{ key_hash: string; erasure_id: string }>): Promise<number> {
  if (rows.length === 0) return 0;
  const { rowCount } = await sql.query(
    `INSERT INTO erased_keys (workspace_id, key_hash, erasure_id)
     SELECT $1, u.key_hash, u.erasure_id FROM unnest($2::text[], $3::uuid[]) AS u(key_hash, erasure_id)
     ON CONFLICT DO NOTHING`,
    [workspaceId, rows.map((r) => r.key_hash), rows.map((r) => r.erasure_id)],
  );
  return rowCount ?? 0;
}
