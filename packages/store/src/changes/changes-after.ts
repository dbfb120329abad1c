import type { Sql } from '../db.js';
import { parseCursor } from '../episodes/cursor.js';
import { CHANGE_COLUMNS, type ChangeRow } from './rows.js';

export interface ChangesQuery {
  /** A cursor from the feed (`<tx>.<position>`), or null for its start. */
  after: string | null;
  subject?: string | undefined;
  predicate?: string | undefined;
  limit: number;
}

export type ChangesPage = { ok: true; changes: ChangeRow[] } | { ok: false; reason: 'bad_cursor' };

/**
 * A page of the feed after a cursor, in commit order, as far as it is settled: only rows of
 * transactions older than the oldest one still in flight, so a compile that commits later can
 * never land behind a cursor a reader already holds. What the transaction's scope may not see
 * (another user's personal memories) is left out by row-level security.
 */
export async function changesAfter(sql: Sql, workspaceId: string, q: ChangesQuery): Promise<ChangesPage> {
  let tx = '0';
  let position = '0';
  if (q.after !== null) {
    const c = parseCursor(q.after);
    if (!c) return { ok: false, reason: 'bad_cursor' };
    tx = c.tx;
    position = c.position;
  }
  const { rows } = await sql.query<ChangeRow>(
    `SELECT ${CHANGE_COLUMNS} FROM changes
     WHERE workspace_id = $1
       AND ($2::text IS NULL OR subject = $2)
       AND ($3::text IS NULL OR predicate = $3)
       AND (tx_id, position) > ($4::text::xid8, $5::bigint)
       AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
     ORDER BY tx_id, position
     LIMIT $6`,
    [workspaceId, q.subject ?? null, q.predicate ?? null, tx, position, q.limit],
  );
  return { ok: true, changes: rows };
}
