-- A word the query excludes ("Friday -deploy") excluded the full-text matches holding it, but not
-- the near matches (trigram word similarity), which answered with values holding the very word
-- the user excluded. canon_search (0016) again, the same signature and columns; the near matches
-- leave out every value holding an excluded word, and are measured against the query without its
-- excluded words (which made "Thursdy -nightly" too unlike "Thursday" to be near).
-- A database owner that may not act as canon_system (it owns the function since 0016) cannot
-- replace it: that database keeps the search as it was (near matches may hold an excluded word),
-- as 0031 and 0037 leave such an owner's functions its own.
DO $do$
BEGIN
  CREATE OR REPLACE FUNCTION canon_search(
    ws text, q text, only_subject text, lim integer, include_history boolean, user_id text, at timestamptz
  ) RETURNS TABLE (
    memory_id text, ord integer, subject text, scope text, owner text, status text, superseded_by text,
    valid_from timestamptz, valid_to timestamptz, text_match boolean, rank real, similarity real
  )
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $fn$
  #variable_conflict use_column
  DECLARE
    ranked constant integer := 100;
    tsq tsquery := websearch_to_tsquery('simple', $2);
    -- The query as text (not querytree(), which drops the negated words it cannot index).
    shape text := websearch_to_tsquery('simple', $2)::text;
    -- The words the query excludes ("-deploy"), any of them: a near match holding one is no match.
    negated tsquery;
    -- The query a near match is measured against: its excluded words are no words it looks for.
    near_q text := btrim(regexp_replace($2, '(^|\s)-\S+', ' ', 'g'));
    words text[];
    driver text;
    others text[];
    phrase boolean;
    found integer := 0;
    -- The walk: where it is in the driving word's values, how far the last chunk went, what matched.
    last_id text := '';
    last_ord integer := -1;
    step integer := 500;
    walked integer;
    driver_rows integer;
    -- Counting a word's values stops here: enough to tell a rare word from a common one.
    common constant integer := 1000;
    chunk_ids text[];
    chunk_ords integer[];
    cand_ids text[];
    seen integer;
    near_ids text[];
    near_ords integer[];
    cand_ords integer[];
    win memory_values[];
  BEGIN
    IF $1 IS DISTINCT FROM current_setting('canon.workspace_id', true) THEN
      RETURN;
    END IF;
    SELECT string_agg('''' || m[1] || '''', ' | ')::tsquery INTO negated
    FROM regexp_matches(shape, '!''((?:[^'']|'''')*)''', 'g') AS m;
    -- The lexemes, when every one is required: only `&` and phrase operators, no escapes to undo.
    IF $3 IS NULL AND shape <> '' AND shape !~ '[|!\\]' AND shape !~ '''''' THEN
      SELECT array_agg(DISTINCT m[1]) INTO words FROM regexp_matches(shape, '''([^'']*)''', 'g') AS m;
      -- The rarest word drives; counts are capped, they only need to tell short lists from long.
      SELECT w, n INTO driver, driver_rows FROM unnest(words) AS w,
        LATERAL (SELECT count(*)::integer AS n FROM (SELECT 1 FROM memory_value_terms t WHERE t.workspace_id = $1 AND t.term = w LIMIT common) c) k
      ORDER BY n, w
      LIMIT 1;
      others := array_remove(words, driver);
      phrase := shape ~ '<';
    END IF;
  
    IF driver IS NOT NULL THEN
      -- Walk the driving word's values in (memory_id, ord) order, a chunk at a time: each chunk is a
      -- LIMITed index-only scan, so the planner cannot trade the walk for a scan of every match, and
      -- the walk ends as soon as the window is full.
      LOOP
        SELECT count(*)::integer, array_agg(c.memory_id ORDER BY c.memory_id, c.ord), array_agg(c.ord ORDER BY c.memory_id, c.ord)
        INTO walked, chunk_ids, chunk_ords
        FROM (SELECT t.memory_id, t.ord FROM memory_value_terms t
              WHERE t.workspace_id = $1 AND t.term = driver AND (t.memory_id, t.ord) > (last_id, last_ord)
              ORDER BY t.memory_id, t.ord
              LIMIT step) c;
        EXIT WHEN walked = 0;
        -- The other words, from the same btree, before any value is read: their rows in the chunk's
        -- range of memory ids, read in order, when there are not many more of them than the chunk
        -- has (words about as common as the driving one); else one index probe per row of the chunk.
        IF cardinality(others) = 0 THEN
          cand_ids := chunk_ids;
          cand_ords := chunk_ords;
        ELSE
          SELECT count(*)::integer, array_agg(x.memory_id), array_agg(x.ord)
          INTO seen, near_ids, near_ords
          FROM (SELECT x.memory_id, x.ord FROM memory_value_terms x
                WHERE x.workspace_id = $1 AND x.term = ANY (others)
                  AND (x.memory_id, x.ord) > (last_id, last_ord)
                  AND (x.memory_id, x.ord) <= (chunk_ids[walked], chunk_ords[walked])
                LIMIT 4 * walked * cardinality(others)) x;
          IF seen < 4 * walked * cardinality(others) THEN
            SELECT array_agg(c.memory_id ORDER BY c.memory_id, c.ord), array_agg(c.ord ORDER BY c.memory_id, c.ord)
            INTO cand_ids, cand_ords
            FROM unnest(chunk_ids, chunk_ords) AS c(memory_id, ord)
            WHERE (c.memory_id, c.ord) IN (
              SELECT o.memory_id, o.ord FROM unnest(near_ids, near_ords) AS o(memory_id, ord)
              GROUP BY o.memory_id, o.ord HAVING count(*) = cardinality(others));
          ELSE
            SELECT array_agg(c.memory_id ORDER BY c.memory_id, c.ord), array_agg(c.ord ORDER BY c.memory_id, c.ord)
            INTO cand_ids, cand_ords
            FROM unnest(chunk_ids, chunk_ords) AS c(memory_id, ord)
            WHERE (SELECT count(*) FROM memory_value_terms x
                   WHERE x.workspace_id = $1 AND x.term = ANY (others) AND x.memory_id = c.memory_id AND x.ord = c.ord) = cardinality(others);
          END IF;
        END IF;
        -- The values themselves: visible to the caller, matching the whole query, current.
        SELECT coalesce(win, '{}') || coalesce(array_agg(h.v ORDER BY (h.v).memory_id, (h.v).ord), '{}')
        INTO win
        FROM (
          SELECT v FROM unnest(cand_ids, cand_ords) AS c(memory_id, ord)
          JOIN memory_values v ON v.workspace_id = $1 AND v.memory_id = c.memory_id AND v.ord = c.ord
          WHERE (v.scope = 'workspace' OR ($6 IS NOT NULL AND v.owner = $6))
            -- Every word is in the value: the match is certain unless the query has a phrase, whose
            -- word order only the value's text can tell.
            AND (NOT phrase OR to_tsvector('simple', v.search_text || '') @@ tsq)
            AND ($5 OR (
                  v.status <> 'overruled'
              AND v.superseded_by IS DISTINCT FROM 'correction'
              AND (v.valid_to IS NULL OR v.valid_from < v.valid_to)
              AND v.valid_from <= $7
              AND (v.valid_to IS NULL OR $7 < v.valid_to)))
          ORDER BY c.memory_id, c.ord
          LIMIT ranked - coalesce(cardinality(win), 0)) h;
        EXIT WHEN walked < step OR cardinality(win) >= ranked;
        last_id := chunk_ids[walked];
        last_ord := chunk_ords[walked];
        step := least(step * 2, 20000);
      END LOOP;
      RETURN QUERY
      SELECT v.memory_id, v.ord, v.subject, v.scope, v.owner, v.status, v.superseded_by, v.valid_from, v.valid_to, true,
             ts_rank(to_tsvector('simple', v.search_text), tsq)::real, word_similarity($2, v.search_text)
      FROM unnest(win) AS v
      ORDER BY 11 DESC, 12 DESC, 1, 2
      LIMIT $4;
    ELSE
      RETURN QUERY
      WITH win AS (
        SELECT v.* FROM memory_values v
        WHERE $3 IS NULL AND v.workspace_id = $1
          AND to_tsvector('simple', v.search_text) @@ tsq
          AND (v.scope = 'workspace' OR ($6 IS NOT NULL AND v.owner = $6))
          AND ($5 OR (
                v.status <> 'overruled'
            AND v.superseded_by IS DISTINCT FROM 'correction'
            AND (v.valid_to IS NULL OR v.valid_from < v.valid_to)
            AND v.valid_from <= $7
            AND (v.valid_to IS NULL OR $7 < v.valid_to)))
        UNION ALL
        -- Within one subject: its values from the (workspace_id, subject) btree, matched one by one
        -- (`|| ''`: not the GIN expression, so a common word does not pull in its posting list).
        SELECT v.* FROM memory_values v
        WHERE $3 IS NOT NULL AND v.workspace_id = $1 AND v.subject = $3
          AND to_tsvector('simple', v.search_text || '') @@ tsq
          AND (v.scope = 'workspace' OR ($6 IS NOT NULL AND v.owner = $6))
          AND ($5 OR (
                v.status <> 'overruled'
            AND v.superseded_by IS DISTINCT FROM 'correction'
            AND (v.valid_to IS NULL OR v.valid_from < v.valid_to)
            AND v.valid_from <= $7
            AND (v.valid_to IS NULL OR $7 < v.valid_to)))
        ORDER BY 2, 3
        LIMIT ranked)
      SELECT w.memory_id, w.ord, w.subject, w.scope, w.owner, w.status, w.superseded_by, w.valid_from, w.valid_to, true,
             ts_rank(to_tsvector('simple', w.search_text), tsq)::real, word_similarity($2, w.search_text)
      FROM win w
      ORDER BY 11 DESC, 12 DESC, 1, 2
      LIMIT $4;
    END IF;
    GET DIAGNOSTICS found = ROW_COUNT;
    IF found >= $4 THEN
      RETURN;
    END IF;
  
    -- Near matches: trigram word similarity (pg_trgm's <%), none of them a full-text match.
    RETURN QUERY
    WITH win AS (
      SELECT v.* FROM memory_values v
      WHERE $3 IS NULL AND v.workspace_id = $1
        AND near_q <% v.search_text
        AND NOT coalesce(to_tsvector('simple', v.search_text) @@ tsq, false)
        AND (negated IS NULL OR NOT to_tsvector('simple', v.search_text) @@ negated)
        AND (v.scope = 'workspace' OR ($6 IS NOT NULL AND v.owner = $6))
        AND ($5 OR (
              v.status <> 'overruled'
          AND v.superseded_by IS DISTINCT FROM 'correction'
          AND (v.valid_to IS NULL OR v.valid_from < v.valid_to)
          AND v.valid_from <= $7
          AND (v.valid_to IS NULL OR $7 < v.valid_to)))
      UNION ALL
      SELECT v.* FROM memory_values v
      WHERE $3 IS NOT NULL AND v.workspace_id = $1 AND v.subject = $3
        AND near_q <% (v.search_text || '')
        AND NOT coalesce(to_tsvector('simple', v.search_text || '') @@ tsq, false)
        AND (negated IS NULL OR NOT to_tsvector('simple', v.search_text || '') @@ negated)
        AND (v.scope = 'workspace' OR ($6 IS NOT NULL AND v.owner = $6))
        AND ($5 OR (
              v.status <> 'overruled'
          AND v.superseded_by IS DISTINCT FROM 'correction'
          AND (v.valid_to IS NULL OR v.valid_from < v.valid_to)
          AND v.valid_from <= $7
          AND (v.valid_to IS NULL OR $7 < v.valid_to)))
      ORDER BY 2, 3
      LIMIT ranked)
    SELECT w.memory_id, w.ord, w.subject, w.scope, w.owner, w.status, w.superseded_by, w.valid_from, w.valid_to, false,
           0::real, word_similarity(near_q, w.search_text)
    FROM win w
    ORDER BY 12 DESC, 1, 2
    LIMIT $4 - found;
  END
  $fn$;
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'canon_search is not this role''s to replace: near matches keep excluded words';
END
$do$;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION canon_search(text, text, text, integer, boolean, text, timestamptz) TO canon_app, canon_system;
