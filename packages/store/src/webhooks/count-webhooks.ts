import type { Sql } from '../db.js';

/** How many webhooks a workspace has. */
export async function countWebhooks(sql: Sql, workspaceId: string): Promise<number> {
  const { rows } = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM webhooks WHERE workspace_id = $1', [workspaceId]);
  return rows[0]!.n;
}
