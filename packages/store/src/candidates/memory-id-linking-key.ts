import type { Sql } from '../db.js';
import { CLAIM_AT } from '../claims/stored-claim.js';

/**
 * The memory the key of `aliasId` was linked into. The alias keeps no row, but its claims do keep
 * its id (indexed): they give its key and subject, and the subject's row naming that key in its
 * timeline's `linked` is the memory.
 */
export async function memoryIdLinkingKey(sql: Sql, workspaceId: string, aliasId: string): Promise<string | null> {
  const { rows } = await sql.query<{ id: string }>(
    `SELECT m.id
       FROM (SELECT subject, coalesce(claim->>'key', claim->>${CLAIM_AT.key}) AS key FROM claims WHERE workspace_id = $1 AND memory_id = $2 LIMIT 1) c
       JOIN memories m ON m.workspace_id = $1 AND m.subject = c.subject AND (m.timeline->'linked')::jsonb ? c.key
      LIMIT 1`,
    [workspaceId, aliasId],
  );
  return rows[0]?.id ?? null;
}
