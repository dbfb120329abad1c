import type { Sql } from '../db.js';

/**
 * The memories these episodes' stored claims are on, each key's own (not a linked group's): an
 * erasure of a user reads what the user's episodes stated before it deletes them, to find the
 * links that name only those words afterwards.
 */
export async function memoryIdsOfEpisodes(sql: Sql, workspaceId: string, episodeIds: readonly string[]): Promise<string[]> {
  if (episodeIds.length === 0) return [];
  const { rows } = await sql.query<{ memory_id: string }>(
    'SELECT DISTINCT memory_id FROM claims WHERE workspace_id = $1 AND episode_id = ANY($2::uuid[]) ORDER BY memory_id',
    [workspaceId, episodeIds],
  );
  return rows.map((r) => r.memory_id);
}

