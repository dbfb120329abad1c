import type { Sql } from '../db.js';
import { COLUMNS, type MemoryRow } from './rows.js';

/** Memory rows by id; with `checkpoint`, each with where its fold may resume (a compile's read). */
export async function memoriesByIds(sql: Sql, workspaceId: string, ids: readonly string[], options: { checkpoint?: boolean } = {}): Promise<Map<string, MemoryRow>> {
  const out = new Map<string, MemoryRow>();
  if (ids.length === 0) return out;
  const { rows } = await sql.query<MemoryRow>(`SELECT ${COLUMNS}${options.checkpoint ? ', checkpoint, told_as_change' : ''} FROM memories WHERE workspace_id = $1 AND id = ANY($2::text[])`, [
    workspaceId,
    ids,
  ]);
  for (const r of rows) out.set(r.id, r);
  return out;
}
