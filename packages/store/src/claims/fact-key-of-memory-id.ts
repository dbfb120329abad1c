import type { Sql } from '../db.js';

/** The fact key of a memory id from its claims (indexed by memory id): also a key linked away. */
export async function factKeyOfMemoryId(sql: Sql, workspaceId: string, id: string): Promise<unknown> {
  const { rows } = await sql.query<{ fact_key: unknown }>(`SELECT claim->'fact_key' AS fact_key FROM claims WHERE workspace_id = $1 AND memory_id = $2 LIMIT 1`, [
    workspaceId,
    id,
  ]);
  return rows[0]?.fact_key ?? null;
}
