import type { Sql } from '../db.js';
import { EPISODE_COLUMNS, type EpisodeDbRow, type LoggedEpisode, toEpisode } from './rows.js';

/** Episodes by id (the compile's pending set), in log order. */
export async function episodesByIds(sql: Sql, workspaceId: string, ids: readonly string[]): Promise<LoggedEpisode[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql.query<EpisodeDbRow>(
    `SELECT ${EPISODE_COLUMNS} FROM episodes WHERE workspace_id = $1 AND id = ANY($2::uuid[]) ORDER BY episodes.tx_id, episodes.position`,
    [workspaceId, ids],
  );
  return rows.map(toEpisode);
}
