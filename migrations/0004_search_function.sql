-- Lexical search over memory values (DESIGN §7), as one SECURITY DEFINER function.
--
-- Why a function: row-level security compares workspace_id with the transaction setting
-- canon.workspace_id, and PostgreSQL never evaluates a caller's non-leakproof qual (@@, <%)
-- before a security qual, so under RLS neither GIN index could serve the search. The function
-- runs as its owner — the migrating role, which must see every workspace's rows (a superuser,
-- or a member of canon_system, whose policy is `true` and keeps the indexes usable) — filters
-- by workspace explicitly as the first column of both indexes, and returns nothing when asked
-- for a workspace other than the one the transaction is confined to, so it opens no way
-- around RLS.
--
-- Parameters (positional, so the body can be PREPAREd as it is to check its plan):
--   $1 workspace_id, $2 q, $3 subject (null: all), $4 lim, $5 include_history,
--   $6 user (personal memories of this owner only; null: none), $7 at (the instant of "current").
-- Without include_history only values holding at $7 are returned, by the same rules as core's
-- `view`: not overruled, not corrected away, a non-empty interval containing $7. The runtime
-- re-checks each row against the memory's timeline before answering.
--
-- Ranking, deterministic: full-text matches (websearch_to_tsquery, simple configuration) by
-- ts_rank, then near matches by trigram word similarity (pg_trgm's <%, default threshold 0.6),
-- then memory_id and ord.
CREATE FUNCTION canon_search(
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
-- Both branches of the OR carry workspace_id = $1 as the leading index column: a BitmapOr of
-- memory_values_fts_idx and memory_values_trgm_idx.
WHERE v.workspace_id = $1
  AND (to_tsvector('simple', v.search_text) @@ websearch_to_tsquery('simple', $2) OR $2 <% v.search_text)
  AND $1 = current_setting('canon.workspace_id', true)
  AND ($3 IS NULL OR v.subject = $3)
  AND (v.scope = 'workspace' OR ($6 IS NOT NULL AND v.owner = $6))
  AND ($5 OR (
        v.status <> 'overruled'
    AND v.superseded_by IS DISTINCT FROM 'correction'
    AND (v.valid_to IS NULL OR v.valid_from < v.valid_to)
    AND v.valid_from <= $7
    AND (v.valid_to IS NULL OR $7 < v.valid_to)))
ORDER BY 10 DESC, 11 DESC, 12 DESC, v.memory_id, v.ord
LIMIT $4
$$;
