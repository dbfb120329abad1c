import type { Sql } from '../db.js';

/** What a compile reads before it folds anything: the workspace's policies, the subject's stamp, its oldest pending episodes. */
export interface CompileStart {
  /** The policies row as stored, null when the workspace has none. */
  policy_set: unknown | null;
  /** The subject's row, null before its first compile. */
  subject: { state_hash: string; compiler_version: string; policy_fingerprint: string } | null;
  /** Up to `limit` pending episode ids, oldest first. */
  pending: string[];
}

/**
 * The three reads that open every compile, in one statement: a compile with nothing to do costs
 * its round trips, not its work. Run after the subject's lock, so what it reads is what the
 * compile may change (a statement's snapshot is taken when it starts).
 */
export async function compileStart(sql: Sql, workspaceId: string, subject: string, limit: number): Promise<CompileStart> {
  const { rows } = await sql.query<{
    policy_set: unknown | null;
    state_hash: string | null;
    compiler_version: string | null;
    policy_fingerprint: string | null;
    pending: string[];
  }>(
    `SELECT (SELECT policy_set FROM policies WHERE workspace_id = $1) AS policy_set,
            s.state_hash, s.compiler_version, s.policy_fingerprint,
            ARRAY(SELECT episode_id::text FROM pending WHERE workspace_id = $1 AND subject = $2
                  ORDER BY created_at, episode_id LIMIT $3) AS pending
     FROM (SELECT 1) AS one LEFT JOIN subjects s ON s.workspace_id = $1 AND s.subject = $2`,
    [workspaceId, subject, limit],
  );
  const r = rows[0]!;
  return {
    policy_set: r.policy_set ?? null,
    subject: r.state_hash === null ? null : { state_hash: r.state_hash, compiler_version: r.compiler_version!, policy_fingerprint: r.policy_fingerprint! },
    pending: r.pending,
  };
}
