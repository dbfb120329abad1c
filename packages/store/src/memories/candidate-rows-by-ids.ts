import type { Sql } from '../db.js';
import type { CandidateSideRow } from './rows.js';

/**
 * What a page needs of a candidate off the page: its scope and owner (who may see it) and its side
 * (status, predicate, qualifiers and the values it holds) — not its key, nor the evidence and
 * source texts of its summary: a page of 100 names about 400 such rows, and their keys alone were
 * a third of what it read. A row written before `side` existed has its side taken from its
 * summary here.
 */
export async function candidateRowsByIds(sql: Sql, workspaceId: string, ids: readonly string[]): Promise<CandidateSideRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql.query<CandidateSideRow>(
    `SELECT id, scope, owner,
       coalesce(side, CASE WHEN summary IS NULL THEN NULL ELSE jsonb_build_object(
         'v', summary->'v', 'from', summary->'from',
         'memory', jsonb_build_object(
           'status', summary#>'{memory,status}', 'predicate', summary#>'{memory,predicate}', 'qualifiers', summary#>'{memory,qualifiers}',
           'current', (SELECT coalesce(jsonb_agg(jsonb_build_object('value', c.e->'value') ORDER BY c.i), '[]'::jsonb) FROM jsonb_array_elements(summary#>'{memory,current}') WITH ORDINALITY AS c(e, i)),
           'conflict', (SELECT coalesce(jsonb_agg(jsonb_build_object('value', c.e->'value') ORDER BY c.i), '[]'::jsonb) FROM jsonb_array_elements(summary#>'{memory,conflict}') WITH ORDINALITY AS c(e, i)))) END) AS summary
     FROM memories WHERE workspace_id = $1 AND id = ANY($2::text[])`,
    [workspaceId, ids],
  );
  return rows;
}
