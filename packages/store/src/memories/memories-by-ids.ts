import type { Sql } from '../db.js';
import { COLUMNS, type MemoryRow } from './rows.js';

export async function memoriesByIds(sql: Sql, workspaceId: string, ids: readonly string[]): Promise<Map<string, MemoryRow>> {
  const out = new Map<string, MemoryRow>();
  if (ids.length === 0) return out;
  const { rows } = await sql.query<MemoryRow>(`SELECT ${COLUMNS} FROM memories WHERE workspace_id = $1 AND id = ANY($2::text[])`, [
    workspaceId,
    ids,
  ]);
  for (const r of rows) out.set(r.id, r);
  return out;
}
