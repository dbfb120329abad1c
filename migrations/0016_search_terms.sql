CREATE TABLE "memory_value_terms" (
	"workspace_id" text NOT NULL,
	"term" text NOT NULL,
	"memory_id" text NOT NULL,
	"ord" integer NOT NULL,
	"scope" text NOT NULL,
	"owner" text,
	CONSTRAINT "memory_value_terms_workspace_id_term_memory_id_ord_pk" PRIMARY KEY("workspace_id","term","memory_id","ord")
);
--> statement-breakpoint
-- Search across a workspace whose cost follows `limit`, not the number of matches (issue 16).
-- A GIN posting list cannot be read in any order of ours, nor stopped early: a word common across
-- a million memories meant reading its whole posting list (and the workspace's, the index's first
-- column), fetching every matching row and ranking them all. memory_value_terms holds the same
-- words as a btree, each word's values in memory-id order: the search reads the first matches of
-- its rarest word in that order and stops.
ALTER TABLE memory_value_terms ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE memory_value_terms FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON memory_value_terms TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON memory_value_terms TO canon_system USING (true) WITH CHECK (true);
--> statement-breakpoint
-- A word of a personal value is that value's: its owner's only, as on memory_values (0011).
CREATE POLICY personal_scope ON memory_value_terms AS RESTRICTIVE TO canon_app
  USING (current_setting('canon.all_users', true) = 'on' OR scope = 'workspace' OR owner = nullif(current_setting('canon.user', true), ''))
  WITH CHECK (current_setting('canon.all_users', true) = 'on' OR scope = 'workspace' OR owner = nullif(current_setting('canon.user', true), ''));
--> statement-breakpoint
-- The words already there. The migrating role sees every workspace (see 0004).
INSERT INTO memory_value_terms (workspace_id, term, memory_id, ord, scope, owner)
SELECT DISTINCT v.workspace_id, w.term, v.memory_id, v.ord, v.scope, v.owner
FROM memory_values v, unnest(tsvector_to_array(to_tsvector('simple', v.search_text))) AS w(term);
--> statement-breakpoint
-- Kept by triggers, so the words can never drift from the values they index, whoever writes them
-- (compile, rebuild, erasure). Statement-level with transition tables: a compile writes its values
-- in one multi-row statement, and one INSERT … SELECT follows it. An UPDATE rewrites the words of
-- a value only when its text, scope or owner changed (a compile mostly updates status and interval).
CREATE FUNCTION canon_memory_value_terms_added() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp
AS $$
BEGIN
  INSERT INTO memory_value_terms (workspace_id, term, memory_id, ord, scope, owner)
  SELECT n.workspace_id, w.term, n.memory_id, n.ord, n.scope, n.owner
  FROM added n, unnest(tsvector_to_array(to_tsvector('simple', n.search_text))) AS w(term);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION canon_memory_value_terms_removed() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp
AS $$
BEGIN
  DELETE FROM memory_value_terms t USING removed o
  WHERE t.workspace_id = o.workspace_id AND t.term = ANY (tsvector_to_array(to_tsvector('simple', o.search_text)))
    AND t.memory_id = o.memory_id AND t.ord = o.ord;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION canon_memory_value_terms_changed() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp
AS $$
BEGIN
  DELETE FROM memory_value_terms t USING removed o, added n
  WHERE n.workspace_id = o.workspace_id AND n.memory_id = o.memory_id AND n.ord = o.ord
    AND (n.search_text, n.scope, n.owner) IS DISTINCT FROM (o.search_text, o.scope, o.owner)
    AND t.workspace_id = o.workspace_id AND t.term = ANY (tsvector_to_array(to_tsvector('simple', o.search_text)))
    AND t.memory_id = o.memory_id AND t.ord = o.ord;
  INSERT INTO memory_value_terms (workspace_id, term, memory_id, ord, scope, owner)
  SELECT n.workspace_id, w.term, n.memory_id, n.ord, n.scope, n.owner
  FROM added n JOIN removed o ON o.workspace_id = n.workspace_id AND o.memory_id = n.memory_id AND o.ord = n.ord,
       unnest(tsvector_to_array(to_tsvector('simple', n.search_text))) AS w(term)
  WHERE (n.search_text, n.scope, n.owner) IS DISTINCT FROM (o.search_text, o.scope, o.owner);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER memory_value_terms_added AFTER INSERT ON memory_values
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION canon_memory_value_terms_added();
--> statement-breakpoint
CREATE TRIGGER memory_value_terms_removed AFTER DELETE ON memory_values
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION canon_memory_value_terms_removed();
--> statement-breakpoint
CREATE TRIGGER memory_value_terms_changed AFTER UPDATE ON memory_values
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION canon_memory_value_terms_changed();
--> statement-breakpoint
-- canon_search, same signature and columns (0004, 0008), now PL/pgSQL. The order, deterministic:
--   1. full-text matches: of the first 100 that match in (memory_id, ord) order — every match when
--      fewer — the best by ts_rank, then word similarity, then memory_id and ord;
--   2. then, when fewer than `lim` full-text matches were found, near matches by trigram word
--      similarity, chosen the same way among the first 100 near matches (similarity first).
-- Memory ids are hashes: the first 100 in their order are an even, reproducible sample of a common
-- word's matches, and the same rows whatever `lim`, so a smaller limit gives a prefix of a larger.
-- Across the workspace, a query whose words are all required (no `or`, no `-word`) walks the
-- memory_value_terms rows of its rarest word in memory-id order, checks the other words there (and
-- a phrase's word order on the value's text), reads the values for scope and currency, and stops
-- at 100: the cost follows the window, not the number of matches.
-- Other queries (with `or` or `-word`) and near matches read the GIN indexes as before, and rank
-- only the window. Within one subject: that subject's values from its btree, as in 0008.
-- PL/pgSQL allows no input named as an output column (`subject`): dropped and created again, its
-- owner and grants as before (0005).
DROP FUNCTION canon_search(text, text, text, integer, boolean, text, timestamptz);
--> statement-breakpoint
CREATE FUNCTION canon_search(
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
      AND $2 <% v.search_text
      AND NOT coalesce(to_tsvector('simple', v.search_text) @@ tsq, false)
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
      AND $2 <% (v.search_text || '')
      AND NOT coalesce(to_tsvector('simple', v.search_text || '') @@ tsq, false)
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
         0::real, word_similarity($2, w.search_text)
  FROM win w
  ORDER BY 12 DESC, 1, 2
  LIMIT $4 - found;
END
$fn$;
--> statement-breakpoint
ALTER FUNCTION canon_search(text, text, text, integer, boolean, text, timestamptz) OWNER TO canon_system;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION canon_search(text, text, text, integer, boolean, text, timestamptz) TO canon_app, canon_system;
