import type { Sql } from '../db.js';
import { COLUMNS, type MemoryRow } from './rows.js';

export async function memoriesOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<MemoryRow[]> {
  const { rows } = await sql.query<MemoryRow>(
    `SELECT ${COLUMNS} FROM memories WHERE workspace_id = $1 AND subject = $2 ORDER BY key`,
    [workspaceId, subject],
  );
  return rows;
}
