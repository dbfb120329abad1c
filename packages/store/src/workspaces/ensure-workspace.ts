import type { Sql } from '../db.js';

export async function ensureWorkspace(sql: Sql, workspaceId: string): Promise<{ created: boolean }> {
  const { rowCount } = await sql.query(
    'INSERT INTO workspaces (id) VALUES ($1) ON CONFLICT (id) DO NOTHING',
    [workspaceId],
  );
  return { created: rowCount === 1 };
}
