import type { LineageVersion } from '@canon/core';
import type { Sql } from '../db.js';
import { CLAIM_AT } from './stored-claim.js';

/**
 * Snapshot versions of these lineages within a subject, with the fact keys each stated. Only
 * compiled episodes (a marker) and those of the running compile count: an episode still pending
 * has no claims yet and must not look like a version that states nothing.
 */
export async function snapshotVersions(
  sql: Sql,
  workspaceId: string,
  subject: string,
  lineages: readonly string[],
  compiling: readonly string[],
): Promise<LineageVersion[]> {
  if (lineages.length === 0) return [];
  const { rows } = await sql.query<LineageVersion>(
    `SELECT e.lineage, e.source, e.idempotency_key, e.occurred_at, e.sequence, e.snapshot, e.ingested_at, e.actor_role AS role,
            coalesce(e.actor_user, 'key:' || e.actor_key) AS author,
            coalesce(array_agg(DISTINCT coalesce(c.claim->>'key', c.claim->>${CLAIM_AT.key})) FILTER (WHERE c.idx IS NOT NULL), '{}') AS keys
     FROM episodes e
     LEFT JOIN claims c ON c.workspace_id = e.workspace_id AND c.episode_id = e.id
     WHERE e.workspace_id = $1 AND e.subject = $2 AND e.snapshot AND e.lineage = ANY($3::text[])
       AND (e.id = ANY($4::uuid[])
            OR EXISTS (SELECT 1 FROM episode_markers m WHERE m.workspace_id = e.workspace_id AND m.episode_id = e.id))
     GROUP BY e.workspace_id, e.id`,
    [workspaceId, subject, lineages, compiling],
  );
  return rows;
}
