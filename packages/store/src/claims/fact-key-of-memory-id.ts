import { parseFactKey } from '@canon/core';
import type { Sql } from '../db.js';
import { CLAIM_AT } from './stored-claim.js';

/**
 * The fact key of a memory id from its claims (indexed by memory id): also a key linked away. An
 * object row holds it; a positional one (`storedClaim`) holds the key string it parses from.
 */
export async function factKeyOfMemoryId(sql: Sql, workspaceId: string, id: string): Promise<unknown> {
  const { rows } = await sql.query<{ fact_key: unknown; key: string | null }>(
    `SELECT claim->'fact_key' AS fact_key, claim->>${CLAIM_AT.key} AS key FROM claims WHERE workspace_id = $1 AND memory_id = $2 LIMIT 1`,
    [workspaceId, id],
  );
  const row = rows[0];
  if (!row) return null;
  return row.fact_key ?? (row.key === null ? null : parseFactKey(row.key));
}
