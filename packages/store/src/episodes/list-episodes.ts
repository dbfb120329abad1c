import type { Sql } from '../db.js';
import { parseCursor } from './cursor.js';
import { EPISODE_COLUMNS, type EpisodeDbRow, type LoggedEpisode, toEpisode } from './rows.js';

export interface ListEpisodesQuery {
  workspaceId: string;
  subject?: string | undefined;
  /** An opaque `log_position` from an earlier page. */
  after?: string | undefined;
  limit: number;
  /**
   * false: do not wait for older transactions (a scan of what is committed now, which may pass
   * over a row an in-flight transaction commits later below the cursor). Default true.
   */
  settled?: boolean;
}

export type ListEpisodesResult =
  | { ok: true; episodes: LoggedEpisode[]; next: string | null }
  | { ok: false; reason: 'bad_cursor' };

/**
 * Pages the log in commit order. Only rows of transactions older than the oldest one still in
 * flight are returned, so a row committed later with a smaller position can never be skipped
 * by a reader whose cursor already moved past it.
 */
export async function listEpisodes(sql: Sql, q: ListEpisodesQuery): Promise<ListEpisodesResult> {
  let afterTx = '0';
  let afterPos = '0';
  if (q.after) {
    const cursor = parseCursor(q.after);
    if (!cursor) return { ok: false, reason: 'bad_cursor' };
    afterTx = cursor.tx;
    afterPos = cursor.position;
  }
  const { rows } = await sql.query<EpisodeDbRow>(
    `SELECT ${EPISODE_COLUMNS} FROM episodes
     WHERE workspace_id = $1
       AND ($2::text IS NULL OR subject = $2)
       AND (tx_id, position) > ($3::text::xid8, $4::bigint)
       ${q.settled === false ? '' : 'AND tx_id < pg_snapshot_xmin(pg_current_snapshot())'}
     ORDER BY episodes.tx_id, episodes.position
     LIMIT $5`,
    [q.workspaceId, q.subject ?? null, afterTx, afterPos, q.limit],
  );
  const episodes = rows.map(toEpisode);
  const last = episodes.at(-1);
  return { ok: true, episodes, next: episodes.length === q.limit && last ? last.log_position : null };
}
