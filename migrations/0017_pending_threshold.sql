-- Whether a subject's backlog reached CANON_COMPILE_AFTER, asked by every ingest for the subjects
-- it wrote (jobs.ts, enqueueCompiles). As a plain query of canon_app it counted every pending row
-- of those subjects through pending's personal-scope policy — one lookup in episodes per row —
-- and grew with the backlog: a third of an ingest's database time with 20,000 episodes waiting.
-- The backlog is the workspace's, every user's (what a compile will take), so the count need not
-- pass the per-user policy: a SECURITY DEFINER function (owned by canon_system, as canon_search)
-- counts index entries only, at most `n` per subject, and answers nothing for a workspace other
-- than the one the transaction is confined to. It returns subject names the caller just wrote.
CREATE FUNCTION canon_pending_at_least(ws text, subjects text[], n integer)
RETURNS SETOF text
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
SELECT s.subject
FROM unnest($2) AS s(subject)
WHERE $1 = current_setting('canon.workspace_id', true)
  AND (SELECT count(*) FROM (SELECT 1 FROM pending p WHERE p.workspace_id = $1 AND p.subject = s.subject LIMIT $3) c) >= $3
ORDER BY 1
$$;
--> statement-breakpoint
ALTER FUNCTION canon_pending_at_least(text, text[], integer) OWNER TO canon_system;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION canon_pending_at_least(text, text[], integer) TO canon_app, canon_system;
