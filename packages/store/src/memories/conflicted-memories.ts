import type { Sql } from '../db.js';
import { TIMELINE, type MemoryRow } from './rows.js';

const COLUMNS = `id, subject, key, revision, etag, digest, status, ${TIMELINE}`;

/**
 * Memories whose timeline ends conflicted (the `status` column is the time-free hint), of one
 * subject or the whole workspace; the caller still checks the view at its instant.
 */
export async function conflictedMemories(sql: Sql, workspaceId: string, subject: string | null, limit: number): Promise<MemoryRow[]> {
  const { rows } = await sql.query<MemoryRow>(
    `SELECT ${COLUMNS} FROM memories
     WHERE workspace_id = $1 AND status = 'conflicted' AND ($2::text IS NULL OR subject = $2)
     ORDER BY subject, key LIMIT $3`,
    [workspaceId, subject, limit],
  );
  return rows;
}
