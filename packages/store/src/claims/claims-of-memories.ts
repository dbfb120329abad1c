import type { Claim } from '@canon/core';
import type { Sql } from '../db.js';
import { CLAIM_COLUMNS, claimOfRow, type ClaimColumns } from './stored-claim.js';

/** Every claim of these memories, grouped by memory. */
export async function claimsOfMemories(sql: Sql, workspaceId: string, memoryIds: readonly string[]): Promise<Map<string, Claim[]>> {
  const out = new Map<string, Claim[]>();
  if (memoryIds.length === 0) return out;
  const { rows } = await sql.query<ClaimColumns & { claim: object }>(
    `SELECT ${CLAIM_COLUMNS} FROM claims WHERE workspace_id = $1 AND memory_id = ANY($2::text[])`,
    [workspaceId, memoryIds],
  );
  return groupByMemory(rows, out);
}

/** Claims of rows grouped by their memory, into `out`. */
export function groupByMemory(rows: ReadonlyArray<ClaimColumns & { claim: object }>, out: Map<string, Claim[]> = new Map()): Map<string, Claim[]> {
  for (const r of rows) {
    const claim = claimOfRow(r, r.claim);
    const list = out.get(r.memory_id);
    if (list) list.push(claim);
    else out.set(r.memory_id, [claim]);
  }
  return out;
}
