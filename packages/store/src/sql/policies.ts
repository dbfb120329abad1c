import type { Sql } from '../db.js';

export async function getPolicySetRow(sql: Sql, workspaceId: string): Promise<unknown | null> {
  const { rows } = await sql.query<{ policy_set: unknown }>('SELECT policy_set FROM policies WHERE workspace_id = $1', [workspaceId]);
  return rows[0]?.policy_set ?? null;
}

export async function putPolicySetRow(sql: Sql, workspaceId: string, policySet: unknown): Promise<void> {
  await sql.query(
    `INSERT INTO policies (workspace_id, policy_set) VALUES ($1, $2)
     ON CONFLICT (workspace_id) DO UPDATE SET policy_set = EXCLUDED.policy_set, updated_at = now()`,
    [workspaceId, JSON.stringify(policySet)],
  );
}
