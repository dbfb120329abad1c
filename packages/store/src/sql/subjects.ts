import type { Sql } from '../db.js';

export interface SubjectRow {
  workspace_id: string;
  subject: string;
  state_hash: string;
  compiler_version: string;
  policy_fingerprint: string;
  memories: number;
  open_conflicts: number;
}

export async function getSubject(sql: Sql, workspaceId: string, subject: string): Promise<SubjectRow | null> {
  const { rows } = await sql.query<SubjectRow>('SELECT * FROM subjects WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
  return rows[0] ?? null;
}

export async function upsertSubject(sql: Sql, row: SubjectRow): Promise<void> {
  await sql.query(
    `INSERT INTO subjects (workspace_id, subject, state_hash, compiler_version, policy_fingerprint, memories, open_conflicts)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (workspace_id, subject) DO UPDATE SET state_hash = EXCLUDED.state_hash,
       compiler_version = EXCLUDED.compiler_version, policy_fingerprint = EXCLUDED.policy_fingerprint,
       memories = EXCLUDED.memories, open_conflicts = EXCLUDED.open_conflicts`,
    [row.workspace_id, row.subject, row.state_hash, row.compiler_version, row.policy_fingerprint, row.memories, row.open_conflicts],
  );
}

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

/** All subjects of a workspace that have episodes (compiled or not), for `{all: true}`. */
export async function subjectsOfWorkspace(sql: Sql, workspaceId: string): Promise<string[]> {
  const { rows } = await sql.query<{ subject: string }>(
    `SELECT subject FROM subjects WHERE workspace_id = $1
     UNION SELECT DISTINCT subject FROM pending WHERE workspace_id = $1 ORDER BY 1`,
    [workspaceId],
  );
  return rows.map((r) => r.subject);
}

/**
 * Which of these subjects exist in the workspace (compiled, or with episodes waiting), as the
 * transaction's scope sees them: a lookup per name, not a list of every subject, which a
 * workspace with a long backlog waiting made a scan of its whole pending table on every request.
 */
export async function subjectsAmong(sql: Sql, workspaceId: string, subjects: readonly string[]): Promise<string[]> {
  if (subjects.length === 0) return [];
  const { rows } = await sql.query<{ subject: string }>(
    `SELECT s AS subject FROM unnest($2::text[]) AS s
     WHERE EXISTS (SELECT 1 FROM subjects WHERE workspace_id = $1 AND subject = s)
        OR EXISTS (SELECT 1 FROM pending WHERE workspace_id = $1 AND subject = s)
     ORDER BY 1`,
    [workspaceId, [...new Set(subjects)]],
  );
  return rows.map((r) => r.subject);
}

/**
 * Subjects with episode, memory, pending and open-conflict counts — of the rows the transaction
 * may see: under row-level security a subject shows only when one of its episodes is visible,
 * and its counts leave out other users' personal episodes and memories. So the counts are taken
 * from the rows, not from the subject's totals (which span every user).
 */
export async function listSubjects(sql: Sql, workspaceId: string): Promise<Array<{ subject: string; episodes: number; memories: number; pending: number; open_conflicts: number }>> {
  const { rows } = await sql.query<{ subject: string; episodes: number; memories: number; pending: number; open_conflicts: number }>(
    `WITH s AS (SELECT subject FROM subjects WHERE workspace_id = $1 UNION SELECT DISTINCT subject FROM pending WHERE workspace_id = $1)
     SELECT s.subject,
       (SELECT count(*)::int FROM episodes e WHERE e.workspace_id = $1 AND e.subject = s.subject) AS episodes,
       (SELECT count(*)::int FROM memories m WHERE m.workspace_id = $1 AND m.subject = s.subject) AS memories,
       (SELECT count(*)::int FROM pending p WHERE p.workspace_id = $1 AND p.subject = s.subject) AS pending,
       (SELECT count(*)::int FROM memories m WHERE m.workspace_id = $1 AND m.subject = s.subject AND m.status = 'conflicted') AS open_conflicts
     FROM s ORDER BY s.subject`,
    [workspaceId],
  );
  return rows;
}
