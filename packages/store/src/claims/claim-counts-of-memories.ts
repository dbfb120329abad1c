import type { Sql } from '../db.js';

/**
 * How many claims each of these memories has (those with none are absent): a compile checks that
 * the claims it holds are all of a key's before it folds them without reading them back. Through
 * canon_claim_counts (migration 0031): counted from the index, in a compile's transaction only.
 */
export async function claimCountsOfMemories(sql: Sql, workspaceId: string, memoryIds: readonly string[]): Promise<Map<string, number>> {
  if (memoryIds.length === 0) return new Map();
  const { rows } = await sql.query<{ memory_id: string; n: number }>(
    'SELECT memory_id, n FROM canon_claim_counts($1, $2::text[])',
    [workspaceId, memoryIds],
  );
  return new Map(rows.map((r) => [r.memory_id, r.n]));
}
