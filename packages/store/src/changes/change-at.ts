import type { Sql } from '../db.js';
import { parseCursor } from '../episodes/cursor.js';
import { CHANGE_COLUMNS, type ChangeRow } from './rows.js';

/** One change by its cursor, as the transaction's scope may see it; null when gone (erased) or hidden. */
export async function changeAt(sql: Sql, workspaceId: string, cursor: string): Promise<ChangeRow | null> {
  const c = parseCursor(cursor);
  if (!c) return null;
  const { rows } = await sql.query<ChangeRow>(`SELECT ${CHANGE_COLUMNS} FROM changes WHERE workspace_id = $1 AND tx_id = $2::text::xid8 AND position = $3::bigint`, [
    workspaceId,
    c.tx,
    c.position,
  ]);
  return rows[0] ?? null;
}
