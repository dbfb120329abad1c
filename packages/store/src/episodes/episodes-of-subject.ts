import type { Sql } from '../db.js';
import { EPISODE_COLUMNS, type EpisodeDbRow, type LoggedEpisode, toEpisode } from './rows.js';

/** Every episode of a subject (rebuild, verify), in log order. */
export async function episodesOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<LoggedEpisode[]> {
  const { rows } = await sql.query<EpisodeDbRow>(
    `SELECT ${EPISODE_COLUMNS} FROM episodes WHERE workspace_id = $1 AND subject = $2 ORDER BY episodes.tx_id, episodes.position`,
    [workspaceId, subject],
  );
  return rows.map(toEpisode);
}
