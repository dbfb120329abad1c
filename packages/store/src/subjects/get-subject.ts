import type { Sql } from '../db.js';
import type { SubjectRow } from './rows.js';

export async function getSubject(sql: Sql, workspaceId: string, subject: string): Promise<SubjectRow | null> {
  const { rows } = await sql.query<SubjectRow>('SELECT * FROM subjects WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
  return rows[0] ?? null;
}
