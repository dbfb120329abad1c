import type { Sql } from '../db.js';

/**
 * How many claims each of these memories has (those with none are absent): a compile checks that
 * the claims it holds are all of a key's before it folds them without reading them back.
 */
export async function claimCountsOfMemories(sql: Sql, workspaceId: string, memoryIds: readonly string[]): Promise<Map<string, number>> {
  if (memoryIds.length === 0) return new Map();
  const { rows } = await sql.query<{ memory_id: string; n: number }>(
    'SELECT memory_id, count(*)::int AS n FROM claims WHERE workspace_id = $1 AND memory_id = ANY($2::text[]) GROUP BY memory_id',
    [workspaceId, memoryIds],
  );
  return new Map(rows.map((r) => [r.memory_id, r.n]));
}
