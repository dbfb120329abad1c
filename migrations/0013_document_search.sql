CREATE INDEX "episodes_document_fts_idx" ON "episodes" USING gin ("workspace_id",to_tsvector('simple', "body" ->> 'text')) WHERE "episodes"."kind" = 'document';--> statement-breakpoint
-- A document's text is searchable though it states no fact (design §3: prose and code stay
-- searchable text, not memories): the latest version of each document lineage whose text matches,
-- ranked by ts_rank, ties by episode id. SECURITY DEFINER, as canon_search (0004, 0005): the GIN
-- index is usable with no row-level-security qual in the way, and the function confines itself to
-- the caller's workspace and to workspace rows or the caller's own personal ones.
CREATE FUNCTION canon_search_documents(workspace_id text, q text, subject text, lim integer, user_id text)
RETURNS TABLE (episode_id uuid, subject text, source text, source_ref text, occurred_at timestamptz, snippet text, rank real)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
SELECT e.id, e.subject, e.source, e.source_ref, e.occurred_at,
       ts_headline('simple', e.body->>'text', websearch_to_tsquery('simple', $2),
                   'MaxWords=24, MinWords=8, MaxFragments=1, StartSel=«, StopSel=»'),
       ts_rank(to_tsvector('simple', e.body->>'text'), websearch_to_tsquery('simple', $2))::real
FROM episodes e
WHERE e.workspace_id = $1
  AND $1 = current_setting('canon.workspace_id', true)
  AND e.kind = 'document'
  AND to_tsvector('simple', e.body->>'text') @@ websearch_to_tsquery('simple', $2)
  AND ($3 IS NULL OR e.subject = $3)
  AND (e.scope = 'workspace' OR ($5 IS NOT NULL AND e.owner = $5))
  -- Only the version in force: no later snapshot of the lineage (a newer version or a deletion),
  -- in the versions' order (occurred_at, sequence, source, idempotency key).
  AND NOT EXISTS (
    SELECT 1 FROM episodes n
    WHERE n.workspace_id = e.workspace_id AND n.lineage = e.lineage AND n.snapshot AND n.id <> e.id
      AND (n.occurred_at > e.occurred_at
        OR (n.occurred_at = e.occurred_at AND (
              coalesce(n.sequence, -1) > coalesce(e.sequence, -1)
          OR (coalesce(n.sequence, -1) = coalesce(e.sequence, -1) AND (n.source COLLATE "C", n.idempotency_key COLLATE "C") > (e.source COLLATE "C", e.idempotency_key COLLATE "C"))))))
ORDER BY 7 DESC, 1
LIMIT $4
$$;
--> statement-breakpoint
ALTER FUNCTION canon_search_documents(text, text, text, integer, text) OWNER TO canon_system;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION canon_search_documents(text, text, text, integer, text) TO canon_app, canon_system;
