import type { Sql } from '../db.js';
import { COLUMNS, type MemoryRow } from './rows.js';

export interface MemoriesPageQuery {
  workspaceId: string;
  subject: string;
  /** The viewer's user: personal memories of anyone else are never counted or returned. */
  user: string | null;
  offset: number;
  limit: number;
}

/**
 * One page of a subject's memories in key order, with the total and the count per time-free
 * status of what the viewer may see: a subject of 10,000 memories is read 50 at a time.
 */
export async function memoriesPage(sql: Sql, q: MemoriesPageQuery): Promise<{ rows: MemoryRow[]; total: number; by_status: Record<string, number> }> {
  const visible = `workspace_id = $1 AND subject = $2 AND (scope = 'workspace' OR owner = $3)`;
  const { rows } = await sql.query<MemoryRow>(`SELECT ${COLUMNS} FROM memories WHERE ${visible} ORDER BY key LIMIT $4 OFFSET $5`, [
    q.workspaceId,
    q.subject,
    q.user,
    q.limit,
    q.offset,
  ]);
  const counts = await sql.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM memories WHERE ${visible} GROUP BY status`, [
    q.workspaceId,
    q.subject,
    q.user,
  ]);
  const by_status: Record<string, number> = {};
  for (const r of counts.rows) by_status[r.status] = r.n;
  return { rows, total: counts.rows.reduce((a, r) => a + r.n, 0), by_status };
}
