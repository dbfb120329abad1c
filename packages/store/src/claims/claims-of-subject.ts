import type { Claim } from '@canon/core';
import type { Sql } from '../db.js';

/** Every compiled claim of a subject, grouped by memory: the input of a `known_at` refold. */
export async function claimsOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<Map<string, Claim[]>> {
  const { rows } = await sql.query<{ memory_id: string; claim: Claim }>(
    'SELECT memory_id, claim FROM claims WHERE workspace_id = $1 AND subject = $2',
    [workspaceId, subject],
  );
  const out = new Map<string, Claim[]>();
  for (const r of rows) {
    const list = out.get(r.memory_id);
    if (list) list.push(r.claim);
    else out.set(r.memory_id, [r.claim]);
  }
  return out;
}
