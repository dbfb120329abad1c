import type { Sql } from '../db.js';

export async function episodeIdsOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<string[]> {
  const { rows } = await sql.query<{ id: string }>('SELECT id FROM episodes WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
  return rows.map((r) => r.id);
}
