import type { Sql } from '../db.js';
import { digestsByOwner } from './personal-digests.js';

/**
 * The state digests of a subject's personal memories, by owner (through `memories_personal_idx`):
 * what a compile sums once for a subject row from before migration 0042. Read as a compile reads,
 * with every user's rows visible.
 */
export async function personalDigestsOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<Map<string, string[]>> {
  const { rows } = await sql.query<{ owner: string; digest: string }>(
    `SELECT owner, digest FROM memories WHERE workspace_id = $1 AND subject = $2 AND scope = 'personal' ORDER BY owner, id`,
    [workspaceId, subject],
  );
  return digestsByOwner(rows.map((r) => [r.owner, r.digest] as const));
}
