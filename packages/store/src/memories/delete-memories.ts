import type { Sql } from '../db.js';

/**
 * Removes memories and their projections: a key linked into another memory lives on in that
 * memory's timeline (`linked`), not as a row of its own.
 */
export async function deleteMemories(sql: Sql, workspaceId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  for (const table of ['evidence', 'claim_decisions', 'memory_values', 'memory_blocks']) {
    await sql.query(`DELETE FROM ${table} WHERE workspace_id = $1 AND memory_id = ANY($2::text[])`, [workspaceId, ids]);
  }
  await sql.query('DELETE FROM memories WHERE workspace_id = $1 AND id = ANY($2::text[])', [workspaceId, ids]);
}
