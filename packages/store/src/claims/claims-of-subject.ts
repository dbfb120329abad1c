import type { Claim } from '@canon/core';
import type { Sql } from '../db.js';
import { groupByMemory } from './claims-of-memories.js';
import { CLAIM_COLUMNS, type ClaimColumns } from './stored-claim.js';

/** Every compiled claim of a subject, grouped by memory: the input of a `known_at` refold. */
export async function claimsOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<Map<string, Claim[]>> {
  const { rows } = await sql.query<ClaimColumns & { claim: object }>(`SELECT ${CLAIM_COLUMNS} FROM claims WHERE workspace_id = $1 AND subject = $2`, [
    workspaceId,
    subject,
  ]);
  return groupByMemory(rows);
}
