import type { Sql } from '../db.js';

/** Which of these memories still have a claim stored (own keys, as `memoryIdsOfEpisodes`). */
export async function memoryIdsWithClaims(sql: Sql, workspaceId: string, memoryIds: readonly string[]): Promise<string[]> {
  if (memoryIds.length === 0) return [];
  const { rows } = await sql.query<{ memory_id: string }>(
    'SELECT DISTINCT memory_id FROM claims WHERE workspace_id = $1 AND memory_id = ANY($2::text[]) ORDER BY memory_id',
    [workspaceId, memoryIds],
  );
  return rows.map((r) => r.memory_id);
}
