-- Whether a subject's backlog reached CANON_COMPILE_AFTER is asked by every ingest for each subject
-- it wrote (jobs.ts, enqueueCompiles). canon_pending_at_least (0017) counted the backlog's rows, up
-- to the threshold: with long backlogs (a long debounce, a nightly compile) each batch read every
-- waiting row of every subject it touched again, and the ingest's cost grew with the backlog (a
-- third of its database time in bench/ingest.ts, 100 subjects of up to 1,000 waiting episodes).
-- Now the statement that marks episodes as waiting writes, on one of its rows per subject, how many
-- it marked; the backlog is the sum over those rows, one a batch, found through a partial index.
-- Exact while batches are taken whole; a compile that takes part of a batch (a chunk boundary), an
-- erasure that removes the row carrying the count, or a rebuild marking a subject while an ingest
-- writes to it makes the sum off until the next compile, which moves when the threshold pulls a
-- compile forward, never what a compile does.
-- canon_pending_at_least (0017) stays: a server of the version before, still running beside an
-- upgraded one (a rolling upgrade of several servers), calls it on every ingest. Its batches carry
-- no count, so the upgraded servers' check misses them until the subject's next compile: a compile
-- pulled forward later, never a wrong one.
ALTER TABLE "pending" ADD COLUMN "batch_count" integer;--> statement-breakpoint
CREATE INDEX "pending_batches_idx" ON "pending" USING btree ("workspace_id","subject") WHERE "pending"."batch_count" is not null;--> statement-breakpoint
-- Rows waiting from before this migration: one row per subject carries the subject's count.
-- Row-level security is forced on pending (0005): lifted for this statement, inside the
-- migration's transaction, so the owner marks every workspace's rows (as in 0034).
ALTER TABLE "pending" NO FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
UPDATE "pending" p SET "batch_count" = c.n
FROM (SELECT workspace_id, subject, min(episode_id::text)::uuid AS episode_id, count(*)::int AS n FROM "pending" GROUP BY 1, 2) c
WHERE p.workspace_id = c.workspace_id AND p.subject = c.subject AND p.episode_id = c.episode_id;
--> statement-breakpoint
ALTER TABLE "pending" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
-- As canon_pending_at_least: owned by canon_system, the workspace's backlog (every user's) without
-- the per-user policy, and nothing for a workspace other than the one the transaction is confined
-- to. At most `n` rows a subject are read (each carries at least one episode).
CREATE FUNCTION canon_pending_batches_at_least(ws text, subjects text[], n integer)
RETURNS SETOF text
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
-- Planned once for any arguments: from the index always (see 0032).
SET enable_seqscan = off
AS $$
SELECT s.subject
FROM unnest($2) AS s(subject)
WHERE $1 = current_setting('canon.workspace_id', true)
  AND (SELECT coalesce(sum(c.batch_count), 0)
       FROM (SELECT p.batch_count FROM pending p
             WHERE p.workspace_id = $1 AND p.subject = s.subject AND p.batch_count IS NOT NULL LIMIT $3) c) >= $3
ORDER BY 1
$$;
--> statement-breakpoint
-- As in 0031: a database owner that may not act as canon_system keeps the function its own; run by
-- it, the function sees no rows under the forced policies and pulls no compile forward (each still
-- runs after its debounce): later, never wrong.
DO $$
BEGIN
  ALTER FUNCTION canon_pending_batches_at_least(text, text[], integer) OWNER TO canon_system;
EXCEPTION WHEN insufficient_privilege THEN
  NULL;
END $$;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION canon_pending_batches_at_least(text, text[], integer) TO canon_app, canon_system;
