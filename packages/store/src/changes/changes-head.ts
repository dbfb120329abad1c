import type { Sql } from '../db.js';

/**
 * Where the settled feed of a workspace ends now: a webhook created here receives what comes
 * after. A row of a transaction still in flight sorts after it (its tx_id is not below xmin).
 */
export async function changesHead(sql: Sql, workspaceId: string): Promise<{ tx: string; position: string }> {
  const { rows } = await sql.query<{ tx: string; position: string }>(
    `SELECT tx_id::text AS tx, position::text AS position FROM changes
     WHERE workspace_id = $1 AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
     ORDER BY changes.tx_id DESC, changes.position DESC LIMIT 1`,
    [workspaceId],
  );
  return rows[0] ?? { tx: '0', position: '0' };
}
