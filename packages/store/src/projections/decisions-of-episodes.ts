import type { Timeline } from '@canon/core';
import type { Sql } from '../db.js';

type Decision = Timeline['decisions'][number];

/** What the compile decided about one claim of an episode, and in which memory. */
export interface EpisodeDecision {
  episode_id: string;
  memory_id: string;
  index: number;
  kind: Decision['kind'];
  target: Decision['target'];
  reason: string;
}

/**
 * The decisions of these episodes' claims, from the memories of each episode's subject: what
 * an ingest that waited for its compile answers for each claim. Ordered by episode, claim, memory.
 */
export async function decisionsOfEpisodes(sql: Sql, workspaceId: string, episodeIds: readonly string[]): Promise<EpisodeDecision[]> {
  if (episodeIds.length === 0) return [];
  const { rows } = await sql.query<EpisodeDecision>(
    `SELECT e.id AS episode_id, d.memory_id, d.claim_index AS index, d.kind, d.target, d.reason
       FROM episodes e
       JOIN memories m ON m.workspace_id = e.workspace_id AND m.subject = e.subject
       JOIN claim_decisions d ON d.workspace_id = m.workspace_id AND d.memory_id = m.id
                          AND d.source = e.source AND d.idempotency_key = e.idempotency_key
      WHERE e.workspace_id = $1 AND e.id = ANY($2::uuid[])
      ORDER BY e.id, d.claim_index, d.memory_id`,
    [workspaceId, [...new Set(episodeIds)]],
  );
  return rows;
}
