import type { LineageVersion } from '@canon/core';
import type { Sql } from '../db.js';
import { CLAIM_AT } from './stored-claim.js';

/** Every compiled snapshot version of a subject, with the fact keys it stated (see snapshotVersions). */
export async function compiledSnapshotVersions(sql: Sql, workspaceId: string, subject: string): Promise<LineageVersion[]> {
  const { rows } = await sql.query<LineageVersion>(
    `SELECT e.lineage, e.source, e.idempotency_key, e.occurred_at, e.sequence, e.snapshot, e.ingested_at, e.actor_role AS role,
            coalesce(e.actor_user, 'key:' || e.actor_key) AS author,
            coalesce(array_agg(DISTINCT coalesce(c.claim->>'key', c.claim->>${CLAIM_AT.key})) FILTER (WHERE c.idx IS NOT NULL), '{}') AS keys
     FROM episodes e
     LEFT JOIN claims c ON c.workspace_id = e.workspace_id AND c.episode_id = e.id
     WHERE e.workspace_id = $1 AND e.subject = $2 AND e.snapshot
       AND EXISTS (SELECT 1 FROM episode_markers m WHERE m.workspace_id = e.workspace_id AND m.episode_id = e.id)
     GROUP BY e.workspace_id, e.id`,
    [workspaceId, subject],
  );
  return rows;
}
