import type { Sql } from '../db.js';

export interface ErasableEpisode {
  id: string;
  source: string;
  idempotency_key: string;
  subject: string;
}

/** The episodes an erasure targets: a subject's, or every one a user wrote or owns. */
export async function erasableEpisodes(
  sql: Sql,
  workspaceId: string,
  target: { subject: string } | { user: string },
): Promise<ErasableEpisode[]> {
  const { rows } =
    'subject' in target
      ? await sql.query<ErasableEpisode>(
          'SELECT id, source, idempotency_key, subject FROM episodes WHERE workspace_id = $1 AND subject = $2 ORDER BY tx_id, position',
          [workspaceId, target.subject],
        )
      : await sql.query<ErasableEpisode>(
          `SELECT id, source, idempotency_key, subject FROM episodes
           WHERE workspace_id = $1 AND (actor_user = $2 OR owner = $2) ORDER BY tx_id, position`,
          [workspaceId, target.user],
        );
  return rows;
}

/**
 * Deletes episodes: the one audited exception to the append-only log. The trigger of migration
 * 0001 lets a DELETE through only while the transaction-local `canon.erasure` is on, so the
 * setting is made here, in the caller's transaction, next to its audit row — never globally.
 * Their pending rows go too (they would point at nothing).
 */
export async function deleteEpisodes(sql: Sql, workspaceId: string, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  await sql.query(`SELECT set_config('canon.erasure', 'on', true)`);
  await sql.query('DELETE FROM pending WHERE workspace_id = $1 AND episode_id = ANY($2::uuid[])', [workspaceId, ids]);
  const { rowCount } = await sql.query('DELETE FROM episodes WHERE workspace_id = $1 AND id = ANY($2::uuid[])', [workspaceId, ids]);
  await sql.query(`SELECT set_config('canon.erasure', 'off', true)`);
  return rowCount ?? 0;
}

/** The compile audit of a subject names it: an erased subject leaves none behind. */
export async function deleteCompileRunsOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<void> {
  await sql.query('DELETE FROM compile_runs WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
}
