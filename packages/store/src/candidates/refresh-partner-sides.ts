import { CANDIDATES_SHOWN } from '@canon/core';
import type { Sql } from '../db.js';

/**
 * Rewrites `partner_sides` of these memories and of every memory they name as a candidate (the
 * refs are symmetric, so a memory whose side changed is named by exactly the rows that must
 * change): the scope, owner and side of each candidate it shows (the first `CANDIDATES_SHOWN`
 * of its list), by id, as they stand in this transaction.
 * A row whose candidates are gone gets null. Only rows whose value changes are written.
 */
export async function refreshPartnerSides(sql: Sql, workspaceId: string, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const { rowCount } = await sql.query(
    `WITH touched AS (SELECT unnest($2::text[]) AS id),
     affected AS (
       SELECT id FROM touched
       UNION
       SELECT r->>'memory_id' FROM memories w JOIN touched t ON w.workspace_id = $1 AND w.id = t.id
         CROSS JOIN LATERAL jsonb_array_elements(w.candidates) r
     ),
     wanted AS (
       SELECT a.id,
              (SELECT jsonb_object_agg(b.id, jsonb_build_object('scope', b.scope, 'owner', b.owner, 'side', b.side))
                 FROM jsonb_array_elements(a.candidates) WITH ORDINALITY r(ref, n)
                 JOIN memories b ON b.workspace_id = a.workspace_id AND b.id = r.ref->>'memory_id'
                WHERE r.n <= $3) AS sides
         FROM memories a JOIN affected f ON a.workspace_id = $1 AND a.id = f.id
     )
     UPDATE memories m SET partner_sides = wanted.sides
       FROM wanted
      WHERE m.workspace_id = $1 AND m.id = wanted.id AND m.partner_sides IS DISTINCT FROM wanted.sides`,
    [workspaceId, ids, CANDIDATES_SHOWN],
  );
  return rowCount ?? 0;
}
