import { CANDIDATES_SHOWN } from '@canon/core';
import type { Sql } from '../db.js';

/** The statement: $1 the workspace, $2 the ids touched, $3 `CANDIDATES_SHOWN`. */
export const PARTNER_SIDES_STATEMENT = `WITH affected AS MATERIALIZED (
   SELECT ARRAY(
     SELECT unnest($2::text[])
     UNION
     SELECT r->>'memory_id' FROM memories w CROSS JOIN LATERAL jsonb_array_elements(w.candidates) r
      WHERE w.workspace_id = $1 AND w.id = ANY ($2::text[])
     UNION
     SELECT w.id
       FROM (SELECT DISTINCT t.subject FROM memories t
              WHERE t.workspace_id = $1 AND t.id = ANY ($2::text[])
                AND (SELECT count(*) FROM jsonb_array_elements(t.candidates) e WHERE (e->>'score')::numeric > 0) >= $3) s
      CROSS JOIN LATERAL (
        SELECT w.id, w.candidates FROM memories w WHERE w.workspace_id = $1 AND w.subject = s.subject OFFSET 0) w
      WHERE EXISTS (SELECT 1 FROM jsonb_array_elements(w.candidates) WITH ORDINALITY r(ref, n) WHERE r.n <= $3 AND r.ref->>'memory_id' = ANY ($2::text[]))
   ) AS ids
 ),
 wanted AS MATERIALIZED (
   SELECT a.id,
          (SELECT jsonb_object_agg(b.id, jsonb_build_object('scope', b.scope, 'owner', b.owner, 'side', b.side))
             FROM memories b
            WHERE b.workspace_id = $1
              AND b.id = ANY (ARRAY(SELECT r.ref->>'memory_id' FROM jsonb_array_elements(a.candidates) WITH ORDINALITY r(ref, n) WHERE r.n <= $3))) AS sides,
          a.partner_sides::jsonb AS partner_sides
     FROM memories a
    WHERE a.workspace_id = $1 AND a.id = ANY ((SELECT ids FROM affected)::text[])
 )
 UPDATE memories m SET partner_sides = wanted.sides::json
   FROM wanted
  WHERE m.workspace_id = $1 AND m.id = ANY ((SELECT array_agg(id) FROM wanted WHERE partner_sides IS DISTINCT FROM sides)::text[])
    AND m.id = wanted.id`;

/**
 * Rewrites `partner_sides` of these memories and of every memory that shows one of them as a
 * candidate: the scope, owner and side of each candidate a row shows (the first
 * `CANDIDATES_SHOWN` of its list), by id, as they stand in this transaction. A row whose
 * candidates are gone gets null. Only rows whose value changes are written.
 *
 * A row keeps its best candidates only, so one may show a memory that does not show it back. A
 * memory with fewer than `CANDIDATES_SHOWN` keeps every pair it is in, so the rows that show it
 * are among those its own list names; only for one whose list is full are the rows of its subject
 * searched by their lists, subject by subject (`OFFSET 0` keeps each a scan of
 * `memories_subject_key_idx` that runs only for such a subject). A GIN index of the lists is no
 * help: under row-level security a containment operator, not leakproof, is never an index
 * condition, and the table was scanned (20 ms a compile at 10,000 memories).
 *
 * The rows are found by key: by primary key from arrays (`id = ANY ((SELECT …)::text[])`, an InitPlan
 * the index scan takes as its key), never by a join the planner may turn around: with the
 * workspace's row count underestimated (a bulk load that autovacuum has not analyzed yet), a join
 * of the affected ids with `memories` was planned as a hash join over every row of the
 * workspace, each one's sides aggregated to be compared, and each row's sides looked up by a hash
 * of the whole workspace — seconds per compile at a few thousand memories.
 */
export async function refreshPartnerSides(sql: Sql, workspaceId: string, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const { rowCount } = await sql.query(PARTNER_SIDES_STATEMENT, [workspaceId, ids, CANDIDATES_SHOWN]);
  return rowCount ?? 0;
}
