import type { Sql } from '../db.js';

export async function insertErasedKeys(sql: Sql, workspaceId: string, erasureId: string, keyHashes: readonly string[]): Promise<void> {
  if (keyHashes.length === 0) return;
  await sql.query(
    `INSERT INTO erased_keys (workspace_id, key_hash, erasure_id)
     SELECT $1, h, $2 FROM unnest($3::text[]) AS h
     ON CONFLICT DO NOTHING`,
    [workspaceId, erasureId, keyHashes],
  );
}
