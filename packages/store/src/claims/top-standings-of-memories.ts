import type { Sql } from '../db.js';
import { CLAIM_AT } from './stored-claim.js';

/**
 * The highest standing among each memory's claims (those with none are absent): a link between
 * two keys is in force only from a writer standing at least that high on both (design §4: a
 * statement below the values it would change changes nothing).
 */
export async function topStandingsOfMemories(sql: Sql, workspaceId: string, memoryIds: readonly string[]): Promise<Map<string, number>> {
  if (memoryIds.length === 0) return new Map();
  const { rows } = await sql.query<{ memory_id: string; top: number }>(
    `SELECT memory_id, max(coalesce(claim->>'standing', claim->>${CLAIM_AT.standing})::int) AS top FROM claims
     WHERE workspace_id = $1 AND memory_id = ANY($2::text[]) GROUP BY memory_id`,
    [workspaceId, memoryIds],
  );
  return new Map(rows.map((r) => [r.memory_id, Number(r.top)]));
}
