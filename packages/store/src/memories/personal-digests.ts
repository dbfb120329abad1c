import type { Sql } from '../db.js';

/**
 * The state digests of a subject's personal memories, by owner (through `memories_personal_idx`):
 * what a compile's answer subtracts for a key of another user. Read as the compile reads, with
 * every user's rows visible.
 */
export async function personalDigestsOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<Map<string, string[]>> {
  const { rows } = await sql.query<{ owner: string; digest: string }>(
    `SELECT owner, digest FROM memories WHERE workspace_id = $1 AND subject = $2 AND scope = 'personal' ORDER BY owner`,
    [workspaceId, subject],
  );
  return digestsByOwner(rows.map((r) => [r.owner, r.digest]));
}

/** `[owner, digest]` pairs grouped by owner. */
export function digestsByOwner(pairs: ReadonlyArray<readonly [string, string]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [owner, digest] of pairs) {
    const list = out.get(owner);
    if (list) list.push(digest);
    else out.set(owner, [digest]);
  }
  return out;
}

/** The SQL of the same pairs as one JSON array, for a statement that reads them beside others. */
export function personalDigestsJson(workspace: string, subject: string): string {
  return `array_to_json(ARRAY(SELECT json_build_array(owner, digest) FROM memories
            WHERE workspace_id = ${workspace} AND subject = ${subject} AND scope = 'personal'))`;
}
