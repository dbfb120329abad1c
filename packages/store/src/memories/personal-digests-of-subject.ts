import type { Sql } from '../db.js';
import { digestsByOwner, personalDigestsJson } from './personal-digests.js';

/**
 * The state digests of a subject's personal memories, by owner. Read as a compile reads, with
 * every user's rows visible.
 */
export async function personalDigestsOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<Map<string, string[]>> {
  const { rows } = await sql.query<{ pairs: Array<[string, string]> }>(`SELECT ${personalDigestsJson('$1', '$2')} AS pairs`, [workspaceId, subject]);
  return digestsByOwner(rows[0]!.pairs);
}
