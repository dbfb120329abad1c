import type { Sql } from '../db.js';
import { EPISODE_COLUMNS, type EpisodeDbRow, type LoggedEpisode, toEpisode } from './rows.js';

/** The stored episodes for these (source, key) pairs — the verification read of ingest. */
export async function findEpisodesByKeys(
  sql: Sql,
  workspaceId: string,
  keys: ReadonlyArray<{ source: string; idempotency_key: string }>,
): Promise<LoggedEpisode[]> {
  // One unique-index probe per key (LATERAL): a semi-join may instead read every episode of
  // the workspace, which makes each batch of a large workspace's re-import cost its whole log.
  const { rows } = await sql.query<EpisodeDbRow>(
    `SELECT e.* FROM unnest($2::text[], $3::text[]) AS k(source, idempotency_key)
     CROSS JOIN LATERAL (
       SELECT ${EPISODE_COLUMNS} FROM episodes
       WHERE workspace_id = $1 AND source = k.source AND idempotency_key = k.idempotency_key
     ) e`,
    [workspaceId, keys.map((k) => k.source), keys.map((k) => k.idempotency_key)],
  );
  return rows.map(toEpisode);
}
