import type { Sql } from '../db.js';

export async function getPolicySetRow(sql: Sql, workspaceId: string): Promise<unknown | null> {
  const { rows } = await sql.query<{ policy_set: unknown }>('SELECT policy_set FROM policies WHERE workspace_id = $1', [workspaceId]);
  return rows[0]?.policy_set ?? null;
}
