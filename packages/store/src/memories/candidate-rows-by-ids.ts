import type { Sql } from '../db.js';
import type { CandidateSideRow } from './rows.js';

/**
 * What a page needs of a candidate off the page: its scope and owner (who may see it) and its side
 * (status, predicate, qualifiers and the values it holds) — not its key, nor the evidence and
 * source texts of its summary: a page of 100 names about 400 such rows, and their keys alone were
 * a third of what it read. Every row with a summary has a side (migration 0026 filled the older
 * ones).
 */
export async function candidateRowsByIds(sql: Sql, workspaceId: string, ids: readonly string[]): Promise<CandidateSideRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql.query<CandidateSideRow>('SELECT id, scope, owner, side AS summary FROM memories WHERE workspace_id = $1 AND id = ANY($2::text[])', [
    workspaceId,
    ids,
  ]);
  return rows;
}
