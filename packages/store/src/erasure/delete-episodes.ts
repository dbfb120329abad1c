import type { Sql } from '../db.js';

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
