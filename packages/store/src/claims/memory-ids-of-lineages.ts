import type { Sql } from '../db.js';

/** Memories a lineage stated so far in a subject: a new version may end any of them. */
export async function memoryIdsOfLineages(sql: Sql, workspaceId: string, subject: string, lineages: readonly string[]): Promise<string[]> {
  if (lineages.length === 0) return [];
  const { rows } = await sql.query<{ memory_id: string }>(
    `SELECT DISTINCT memory_id FROM claims WHERE workspace_id = $1 AND subject = $2 AND lineage = ANY($3::text[])`,
    [workspaceId, subject, lineages],
  );
  return rows.map((r) => r.memory_id);
}
