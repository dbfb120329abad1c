import type { Sql } from '../db.js';

/**
 * Whether any claim of the subject is stored. Asked by a compile before it writes any: with none
 * (a first compile, a rebuild), every key's claims are the ones it extracts, and it need not count
 * them in the table (`claimCountsOfMemories`) to know it holds them all.
 */
export async function subjectHasClaims(sql: Sql, workspaceId: string, subject: string): Promise<boolean> {
  const { rows } = await sql.query<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM claims WHERE workspace_id = $1 AND subject = $2) AS any', [workspaceId, subject]);
  return rows[0]!.any;
}
