import type { Sql } from '../db.js';

export interface SubjectLogState {
  subject: string;
  episodes: number;
  state_hash: string | null;
  compiler_version: string | null;
  policy_fingerprint: string | null;
  pending: number;
}

/**
 * Per subject holding episodes (all, one, or those named): how many, and the state its last
 * compile left — with the episodes still waiting for a compile. An export writes it per subject;
 * an import reads the same of its target to say why a subject's state differs.
 */
export async function subjectLogStates(sql: Sql, workspaceId: string, subjects: { only?: readonly string[] } = {}): Promise<SubjectLogState[]> {
  const { rows } = await sql.query<SubjectLogState>(
    `WITH e AS (
       SELECT subject, count(*)::int AS episodes FROM episodes
       WHERE workspace_id = $1 AND ($2::text[] IS NULL OR subject = ANY($2::text[]))
       GROUP BY subject
     ), p AS (
       SELECT subject, count(*)::int AS pending FROM pending
       WHERE workspace_id = $1 AND ($2::text[] IS NULL OR subject = ANY($2::text[]))
       GROUP BY subject
     )
     SELECT e.subject, e.episodes, s.state_hash, s.compiler_version, s.policy_fingerprint, coalesce(p.pending, 0) AS pending
     FROM e LEFT JOIN subjects s ON s.workspace_id = $1 AND s.subject = e.subject
     LEFT JOIN p ON p.subject = e.subject
     ORDER BY e.subject`,
    [workspaceId, subjects.only ?? null],
  );
  return rows;
}
