import type { Sql } from '../db.js';

export async function putPolicySetRow(sql: Sql, workspaceId: string, policySet: unknown): Promise<void> {
  await sql.query(
    `INSERT INTO policies (workspace_id, policy_set) VALUES ($1, $2)
     ON CONFLICT (workspace_id) DO UPDATE SET policy_set = EXCLUDED.policy_set, updated_at = now()`,
    [workspaceId, JSON.stringify(policySet)],
  );
}
