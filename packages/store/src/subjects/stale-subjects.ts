import type { Sql } from '../db.js';

/** Subjects whose compiled state is on another compiler version or other policies than now. */
export async function staleSubjects(
  sql: Sql,
  compilerVersion: string,
  fingerprintOf: (workspaceId: string) => string,
): Promise<Array<{ workspace_id: string; subject: string }>> {
  const { rows } = await sql.query<{ workspace_id: string; subject: string; compiler_version: string; policy_fingerprint: string }>(
    'SELECT workspace_id, subject, compiler_version, policy_fingerprint FROM subjects ORDER BY 1, 2',
  );
  return rows
    .filter((r) => r.compiler_version !== compilerVersion || r.policy_fingerprint !== fingerprintOf(r.workspace_id))
    .map(({ workspace_id, subject }) => ({ workspace_id, subject }));
}
