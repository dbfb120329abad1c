import type { Sql } from '../db.js';

/** Every (workspace, subject) with episodes waiting: what the nightly compile visits. */
export async function subjectsWithPending(sql: Sql, workspaceId?: string): Promise<Array<{ workspace_id: string; subject: string }>> {
  const { rows } = await sql.query<{ workspace_id: string; subject: string }>(
    `SELECT DISTINCT workspace_id, subject FROM pending WHERE ($1::text IS NULL OR workspace_id = $1) ORDER BY 1, 2`,
    [workspaceId ?? null],
  );
  return rows;
}
