import type { Sql } from '../db.js';

/**
 * The state digests of a subject's personal memories, by owner: what a compile sums once for a
 * subject row from before migration 0042. Read as a compile reads, with every user's rows visible.
 */
export async function personalDigestsOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<Map<string, string[]>> {
  const { rows } = await sql.query<{ owner: string; digest: string }>(
    `SELECT owner, digest FROM memories WHERE workspace_id = $1 AND subject = $2 AND scope = 'personal' ORDER BY owner, id`,
    [workspaceId, subject],
  );
  const out = new Map<string, string[]>();
  for (const { owner, digest } of rows) {
    const list = out.get(owner);
    if (list) list.push(digest);
    else out.set(owner, [digest]);
  }
  return out;
}
