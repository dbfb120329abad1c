-- canon_search_documents (0013) cost what a reader chose, not what it returned:
-- * it ranked every matching document, reading each whole text twice more (to rank it and to
--   check the match), so a word every document holds cost the length of every document;
-- * it made a headline for every match before keeping `lim`;
-- * it ranked and highlighted with the query as matched, every word joined by AND, and
--   PostgreSQL ranks and highlights an AND of n words in time that grows with n squared times
--   the places they occur: 32 words over fifty 30 KB documents took 8.5 s to rank.
-- As canon_search does for memory values (0016): the first 100 matches in episode-id order are
-- ranked when more match, so the cost follows the window, not the number of matches. Documents
-- still match as before (every word, phrases, excluded words; the version in force only), in the
-- same columns and the same order of rank, then id. The rank and the headline read the query's
-- words joined by OR (a document holding more of them, more often, ranks higher), which costs time
-- linear in the text; and the headline is made for the `lim` documents kept only, from 4,000
-- characters around the first place the query's first word occurs.
-- A database owner that may not act as canon_system cannot replace it: that database keeps the
-- function as it was (the query's bound on its words and the statement's time still apply), as
-- 0038 leaves canon_search.
DO $do$
BEGIN
  CREATE OR REPLACE FUNCTION canon_search_documents(workspace_id text, q text, subject text, lim integer, user_id text)
  RETURNS TABLE (episode_id uuid, subject text, source text, source_ref text, occurred_at timestamptz, snippet text, rank real)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $fn$
  -- The match is the query as written, on the expression the GIN index holds; the rank and the
  -- headline read its words joined by OR (phrases and exclusions kept).
  WITH matched AS (
    SELECT e.id AS hit_id, e.subject AS hit_subject, e.source AS hit_source, e.source_ref AS hit_ref, e.occurred_at AS hit_at,
           e.body->>'text' AS hit_text
    FROM episodes e
    WHERE e.workspace_id = $1
      AND $1 = current_setting('canon.workspace_id', true)
      AND e.kind = 'document'
      AND to_tsvector('simple', e.body->>'text') @@ websearch_to_tsquery('simple', $2)
      AND ($3 IS NULL OR e.subject = $3)
      AND (e.scope = 'workspace' OR ($5 IS NOT NULL AND e.owner = $5))
      -- Only the version in force: no later snapshot of the lineage (a newer version or a
      -- deletion), in the versions' order (occurred_at, sequence, source, idempotency key).
      AND NOT EXISTS (
        SELECT 1 FROM episodes n
        WHERE n.workspace_id = e.workspace_id AND n.lineage = e.lineage AND n.snapshot AND n.id <> e.id
          AND (n.occurred_at > e.occurred_at
            OR (n.occurred_at = e.occurred_at AND (
                  coalesce(n.sequence, -1) > coalesce(e.sequence, -1)
              OR (coalesce(n.sequence, -1) = coalesce(e.sequence, -1) AND (n.source COLLATE "C", n.idempotency_key COLLATE "C") > (e.source COLLATE "C", e.idempotency_key COLLATE "C"))))))
    ORDER BY e.id
    LIMIT 100),
  kept AS (
    SELECT m.*, ts_rank(to_tsvector('simple', m.hit_text), replace(websearch_to_tsquery('simple', $2)::text, ' & ', ' | ')::tsquery)::real AS hit_rank
    FROM matched m
    ORDER BY hit_rank DESC, m.hit_id
    LIMIT $4)
  -- The headline is looked for in 4,000 characters from a little before the first place the
  -- query's first word (not an excluded one) occurs: a headline reads all it is given against every
  -- word, and a document may be 100,000 characters long.
  SELECT k.hit_id, k.hit_subject, k.hit_source, k.hit_ref, k.hit_at,
         ts_headline('simple', substr(k.hit_text, greatest(1, strpos(lower(k.hit_text), w.first_word) - 1000), 4000),
                     replace(websearch_to_tsquery('simple', $2)::text, ' & ', ' | ')::tsquery,
                     'MaxWords=24, MinWords=8, MaxFragments=1, StartSel=«, StopSel=»'),
         k.hit_rank
  FROM kept k,
       (SELECT coalesce((SELECT replace(m[2], '''''', '''')
                         FROM regexp_matches(websearch_to_tsquery('simple', $2)::text, '(!?)''((?:[^'']|'''')+)''', 'g') AS m
                         WHERE m[1] = '' LIMIT 1), '') AS first_word) w
  ORDER BY 7 DESC, 1
  $fn$;
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'canon_search_documents is not this role''s to replace: headlines are made before the limit, ranks with every word joined by AND';
END
$do$;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION canon_search_documents(text, text, text, integer, text) TO canon_app, canon_system;
