import type { Sql } from '../db.js';

/**
 * What an export reads besides the log itself (which it pages with listEpisodes): the erasure
 * tombstones and, per subject, its episode count and compiled state. An import reads the same
 * of its target to say why a subject's state differs.
 */

/** A page of a workspace's erasure tombstones, in key-hash order after `after`. */
export async function erasedKeysPage(
  sql: Sql,
  workspaceId: string,
  after: string | null,
  limit: number,
): Promise<Array<{ key_hash: string; erasure_id: string }>> {
  const { rows } = await sql.query<{ key_hash: string; erasure_id: string }>(
    `SELECT key_hash, erasure_id FROM erased_keys
     WHERE workspace_id = $1 AND ($2::text IS NULL OR key_hash > $2)
     ORDER BY key_hash LIMIT $3`,
    [workspaceId, after, limit],
  );
  return rows;
}

/** Tombstones brought in by an import, keeping their erasure ids; how many were new. */
export async function insertTombstones(sql: Sql, workspaceId: string, rows: ReadonlyArray<{ key_hash: string; erasure_id: string }>): Promise<number> {
  if (rows.length === 0) return 0;
  const { rowCount } = await sql.query(
    `INSERT INTO erased_keys (workspace_id, key_hash, erasure_id)
     SELECT $1, u.key_hash, u.erasure_id FROM unnest($2::text[], $3::uuid[]) AS u(key_hash, erasure_id)
     ON CONFLICT DO NOTHING`,
    [workspaceId, rows.map((r) => r.key_hash), rows.map((r) => r.erasure_id)],
  );
  return rowCount ?? 0;
}

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
 * compile left — with the episodes still waiting for a compile.
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
