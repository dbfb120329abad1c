import type { Sql } from '../db.js';

export async function insertMarkers(
  sql: Sql,
  workspaceId: string,
  subject: string,
  episodeIds: readonly string[],
  run: { id: string; compiler_version: string; policy_fingerprint: string },
): Promise<void> {
  if (episodeIds.length === 0) return;
  await sql.query(
    `INSERT INTO episode_markers (workspace_id, episode_id, subject, compile_run_id, compiler_version, policy_fingerprint)
     SELECT $1, u.id, $2, $3, $4, $5 FROM unnest($6::uuid[]) AS u(id)`,
    [workspaceId, subject, run.id, run.compiler_version, run.policy_fingerprint, episodeIds],
  );
}
