import type { Claim } from '@canon/core';
import type { Sql } from '../db.js';

/** Every claim of these memories, grouped by memory. */
export async function claimsOfMemories(sql: Sql, workspaceId: string, memoryIds: readonly string[]): Promise<Map<string, Claim[]>> {
  const out = new Map<string, Claim[]>();
  if (memoryIds.length === 0) return out;
  const { rows } = await sql.query<{ memory_id: string; claim: Claim }>(
    'SELECT memory_id, claim FROM claims WHERE workspace_id = $1 AND memory_id = ANY($2::text[])',
    [workspaceId, memoryIds],
  );
  for (const r of rows) {
    const list = out.get(r.memory_id);
    if (list) list.push(r.claim);
    else out.set(r.memory_id, [r.claim]);
  }
  return out;
}
