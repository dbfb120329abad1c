import type { Sql } from '../db.js';
import { COLUMNS, HEAD_COLUMNS, type MemoryRow } from './rows.js';

/**
 * Memory rows by id, each with its whole timeline; with `checkpoint`, a compile's read: each row's
 * head (`memories.sealed`) and where its fold may resume.
 */
export async function memoriesByIds(sql: Sql, workspaceId: string, ids: readonly string[], options: { checkpoint?: boolean } = {}): Promise<Map<string, MemoryRow>> {
  const out = new Map<string, MemoryRow>();
  if (ids.length === 0) return out;
  const { rows } = await sql.query<MemoryRow>(`SELECT ${options.checkpoint ? HEAD_COLUMNS : COLUMNS} FROM memories WHERE workspace_id = $1 AND id = ANY($2::text[])`, [
    workspaceId,
    ids,
  ]);
  for (const r of rows) out.set(r.id, r);
  return out;
}
