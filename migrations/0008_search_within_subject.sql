-- Search within one subject reads that subject's values from the (workspace_id, subject) btree
-- instead of the workspace-wide GIN posting lists (a common word across a million memories made a
-- subject-scoped search as slow as a workspace-wide one). Same signature, same results; the
-- function keeps its owner (canon_system, migration 0005).
CREATE OR REPLACE FUNCTION canon_search(
  workspace_id text, q text, subject text, lim integer, include_history boolean, user_id text, at timestamptz
) RETURNS TABLE (
  memory_id text, ord integer, subject text, scope text, owner text, status text, superseded_by text,
  valid_from timestamptz, valid_to timestamptz, text_match boolean, rank real, similarity real
)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
SELECT v.memory_id, v.ord, v.subject, v.scope, v.owner, v.status, v.superseded_by, v.valid_from, v.valid_to,
       to_tsvector('simple', v.search_text) @@ websearch_to_tsquery('simple', $2),
       CASE WHEN to_tsvector('simple', v.search_text) @@ websearch_to_tsquery('simple', $2)
            THEN ts_rank(to_tsvector('simple', v.search_text), websearch_to_tsquery('simple', $2)) ELSE 0 END::real,
       word_similarity($2, v.search_text)
FROM memory_values v
-- Across the workspace: both branches of the OR carry workspace_id = $1 as the leading index
-- column — a BitmapOr of memory_values_fts_idx and memory_values_trgm_idx.
WHERE $3 IS NULL
  AND v.workspace_id = $1
  AND (to_tsvector('simple', v.search_text) @@ websearch_to_tsquery('simple', $2) OR $2 <% v.search_text)
  AND $1 = current_setting('canon.workspace_id', true)
  AND (v.scope = 'workspace' OR ($6 IS NOT NULL AND v.owner = $6))
  AND ($5 OR (
        v.status <> 'overruled'
    AND v.superseded_by IS DISTINCT FROM 'correction'
    AND (v.valid_to IS NULL OR v.valid_from < v.valid_to)
    AND v.valid_from <= $7
    AND (v.valid_to IS NULL OR $7 < v.valid_to)))
UNION ALL
SELECT v.memory_id, v.ord, v.subject, v.scope, v.owner, v.status, v.superseded_by, v.valid_from, v.valid_to,
       to_tsvector('simple', v.search_text) @@ websearch_to_tsquery('simple', $2),
       CASE WHEN to_tsvector('simple', v.search_text) @@ websearch_to_tsquery('simple', $2)
            THEN ts_rank(to_tsvector('simple', v.search_text), websearch_to_tsquery('simple', $2)) ELSE 0 END::real,
       word_similarity($2, v.search_text)
FROM memory_values v
-- Within one subject: its few values come from the (workspace_id, subject) btree and are
-- matched one by one. The match expressions differ from the GIN indexes' on purpose (`|| ''`):
-- a word common across the workspace must not make the planner read its whole posting list.
WHERE $3 IS NOT NULL
  AND v.workspace_id = $1
  AND v.subject = $3
  AND (to_tsvector('simple', v.search_text || '') @@ websearch_to_tsquery('simple', $2) OR $2 <% (v.search_text || ''))
  AND $1 = current_setting('canon.workspace_id', true)
  AND (v.scope = 'workspace' OR ($6 IS NOT NULL AND v.owner = $6))
  AND ($5 OR (
        v.status <> 'overruled'
    AND v.superseded_by IS DISTINCT FROM 'correction'
    AND (v.valid_to IS NULL OR v.valid_from < v.valid_to)
    AND v.valid_from <= $7
    AND (v.valid_to IS NULL OR $7 < v.valid_to)))
ORDER BY 10 DESC, 11 DESC, 12 DESC, 1, 2
LIMIT $4
$$;
