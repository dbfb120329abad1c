import type { Sql } from '../db.js';
import { EPISODE_COLUMNS, type EpisodeDbRow, type LoggedEpisode, toEpisode } from './rows.js';

/** The link episodes of a subject (design §1): few, read whole by every compile of the subject. */
export async function linkEpisodesOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<LoggedEpisode[]> {
  const { rows } = await sql.query<EpisodeDbRow>(
    `SELECT ${EPISODE_COLUMNS} FROM episodes WHERE workspace_id = $1 AND subject = $2 AND kind = 'link' ORDER BY episodes.tx_id, episodes.position`,
    [workspaceId, subject],
  );
  return rows.map(toEpisode);
}
