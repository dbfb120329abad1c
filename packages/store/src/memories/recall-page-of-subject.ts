import type { Sql } from '../db.js';
import type { MemoryRecallRow } from './rows.js';

/**
 * One page of a subject's memories in key order (bytewise, as JavaScript compares the keys of a
 * refold), after the key `after` (exclusive), and in the same statement what the page needs of
 * each candidate off it: its key, scope and owner, and its side (status, predicate, qualifiers
 * and the values it holds) — not the evidence and source texts of its summary. A row written
 * before `side` existed has its side taken from its summary here. One round trip for the page
 * and its candidates; the page is `limit` rows, the one after it (if any) comes back last so a
 * caller asking for `limit + 1` knows there is more without its candidates being read.
 */
export async function recallPageOfSubject(
  sql: Sql,
  workspaceId: string,
  subject: string,
  page: { after: string | null; limit: number; shown: number },
): Promise<{ rows: MemoryRecallRow[]; others: MemoryRecallRow[] }> {
  // Two spellings of the page, so the planner reads it from memories_subject_key_idx either way.
  const after = page.after === null ? '' : `AND key COLLATE "C" > $5`;
  const { rows } = await sql.query<MemoryRecallRow & { part: number; n: string }>(
    `WITH page AS (
       SELECT id, subject, key, scope, owner, etag, summary, candidates, row_number() OVER (ORDER BY key COLLATE "C") AS n
       FROM (SELECT * FROM memories WHERE workspace_id = $1 AND subject = $2 ${after} ORDER BY key COLLATE "C" LIMIT $3) p
     ), wanted AS (
       SELECT c->>'memory_id' AS id FROM page, jsonb_array_elements(coalesce(page.candidates, '[]'::jsonb)) AS c WHERE page.n <= $4
       EXCEPT SELECT id FROM page WHERE n <= $4
     )
     SELECT 0 AS part, n, id, subject, key, scope, owner, etag, summary, candidates FROM page
     UNION ALL
     SELECT 1, 0, m.id, m.subject, m.key, m.scope, m.owner, m.etag,
       coalesce(m.side, CASE WHEN m.summary IS NULL THEN NULL ELSE jsonb_build_object(
         'v', m.summary->'v', 'from', m.summary->'from',
         'memory', jsonb_build_object(
           'status', m.summary#>'{memory,status}', 'predicate', m.summary#>'{memory,predicate}', 'qualifiers', m.summary#>'{memory,qualifiers}',
           'current', (SELECT coalesce(jsonb_agg(jsonb_build_object('value', c.e->'value') ORDER BY c.i), '[]'::jsonb) FROM jsonb_array_elements(m.summary#>'{memory,current}') WITH ORDINALITY AS c(e, i)),
           'conflict', (SELECT coalesce(jsonb_agg(jsonb_build_object('value', c.e->'value') ORDER BY c.i), '[]'::jsonb) FROM jsonb_array_elements(m.summary#>'{memory,conflict}') WITH ORDINALITY AS c(e, i)))) END),
       NULL
     FROM memories m WHERE m.workspace_id = $1 AND m.id IN (SELECT id FROM wanted)
     ORDER BY 1, 2`,
    page.after === null ? [workspaceId, subject, page.limit, page.shown] : [workspaceId, subject, page.limit, page.shown, page.after],
  );
  const out: { rows: MemoryRecallRow[]; others: MemoryRecallRow[] } = { rows: [], others: [] };
  for (const { part, n: _n, candidates, ...row } of rows) {
    if (part === 0) out.rows.push({ ...row, candidates });
    else out.others.push(row);
  }
  return out;
}
