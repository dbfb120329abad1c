import type { Sql } from '../db.js';
import { EPISODE_COLUMNS, type EpisodeDbRow, type LoggedEpisode, toEpisode } from './rows.js';

/**
 * Episodes by id (the compile's pending set), in log order: each looked up by its primary key. As
 * `id = ANY(…)`, the plan hung on the table's statistics, and a first compile runs right after a
 * backfill, before any are gathered: the planner took the workspace's few hundred rows it guessed
 * for a scan of its whole log, 140,000 rows filtered for every 500 read (6.8 s of a 100,000-episode
 * compile's 12.5 s, against 1.2 s once analyzed). A lookup per id (`LIMIT 1`, so the subquery stays
 * one) is the primary key's plan whatever the statistics say. (`tx_id` comes out as text: its
 * order is the `xid8`'s.)
 */
export async function episodesByIds(sql: Sql, workspaceId: string, ids: readonly string[]): Promise<LoggedEpisode[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql.query<EpisodeDbRow>(
    `SELECT episodes.* FROM unnest($2::uuid[]) AS wanted(id)
     CROSS JOIN LATERAL (SELECT ${EPISODE_COLUMNS} FROM episodes WHERE workspace_id = $1 AND id = wanted.id LIMIT 1) AS episodes
     ORDER BY episodes.tx_id::xid8, episodes.position`,
    [workspaceId, ids],
  );
  return rows.map(toEpisode);
}
