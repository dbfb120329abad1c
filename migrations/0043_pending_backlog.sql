CREATE TABLE "pending_backlog" (
	"workspace_id" text NOT NULL,
	"subject" text NOT NULL,
	"episodes" bigint NOT NULL,
	CONSTRAINT "pending_backlog_workspace_id_subject_pk" PRIMARY KEY("workspace_id","subject")
);
--> statement-breakpoint
-- Whether a subject's backlog reached CANON_COMPILE_AFTER was summed on every ingest from the
-- pending rows carrying a batch's count (0037): one row a waiting batch, so with compiles deferred
-- (a long debounce, a nightly schedule, a threshold set high) each batch still read every batch
-- before it, for every subject it wrote. bench/ingest.ts's third round (200–300 batches waiting
-- for each of 100 subjects) spent 12–35 ms of PostgreSQL a batch there, more than the episodes'
-- insert.
-- The backlog is now one row a subject: each ingest adds what it marked in its transaction's last
-- statement, and each compile sets it from the rows it leaves, in its own.
--
-- Exact while every writer keeps it, as canon_pending_batches_at_least was. Off in three cases: a
-- batch that commits between a compile's count and its write of the row is overwritten (too few);
-- a row an ingest holds when a compile comes to it is left as it is, still counting what that
-- compile took (too many); a server of the version before adds nothing and sets nothing. Each only
-- moves when a compile is pulled forward, never what a compile does, and the next compile of the
-- subject sets the row again. canon_pending_batches_at_least and the counts on
-- pending stay, for a server of the version before during a rolling upgrade.
--
-- Rows waiting from before this migration are counted once. Row-level security is forced on
-- pending (0005): lifted for this statement, inside the migration's transaction (as in 0037).
ALTER TABLE "pending" NO FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
INSERT INTO "pending_backlog" ("workspace_id", "subject", "episodes")
SELECT "workspace_id", "subject", count(*) FROM "pending" GROUP BY 1, 2;
--> statement-breakpoint
ALTER TABLE "pending" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
-- The counts are every user's, by subject name, personal subjects too: canon_app reads and writes
-- nothing there but through the two functions below (its workspace's rows, as on every table, and
-- a restrictive policy that admits none of them).
ALTER TABLE "pending_backlog" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "pending_backlog" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON "pending_backlog" TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY through_functions_only ON "pending_backlog" AS RESTRICTIVE TO canon_app USING (false) WITH CHECK (false);
--> statement-breakpoint
CREATE POLICY system_all ON "pending_backlog" TO canon_system USING (true) WITH CHECK (true);
--> statement-breakpoint
-- Adds each subject's newly marked episodes to its backlog (a subject named twice, once with both
-- counts) and answers the subjects whose backlog is now at least `threshold`. Rows are taken in the subjects' order, so two ingests over the
-- same subjects wait for each other's rows in one order and cannot deadlock. Nothing for a
-- workspace other than the one the transaction is confined to. Run by a database owner that may
-- not act as canon_system (see 0031), the insert is refused by the forced policies: nothing is
-- counted, and no compile is pulled forward (each still runs after its debounce).
CREATE FUNCTION canon_backlog_add(ws text, names text[], added integer[], threshold bigint)
RETURNS SETOF text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
BEGIN
  IF ws IS DISTINCT FROM current_setting('canon.workspace_id', true) THEN
    RETURN;
  END IF;
  RETURN QUERY
  WITH up AS (
    INSERT INTO pending_backlog AS b (workspace_id, subject, episodes)
    SELECT ws, u.name, sum(u.n) FROM unnest(names, added) AS u(name, n) WHERE u.n > 0 GROUP BY u.name ORDER BY u.name
    ON CONFLICT (workspace_id, subject) DO UPDATE SET episodes = b.episodes + excluded.episodes
    RETURNING b.subject AS name, b.episodes AS waiting
  )
  SELECT up.name FROM up WHERE up.waiting >= threshold ORDER BY 1;
EXCEPTION WHEN insufficient_privilege THEN
  RETURN;
END
$$;
--> statement-breakpoint
-- Sets each subject's backlog from its pending rows, every user's; a subject with none loses its
-- row (an erased subject's name goes with it). In the subjects' order, as canon_backlog_add. A row
-- an ingest holds (its transaction added to it and has not committed) is left as it is rather
-- than waited for: a compile never waits on an ingest, and the row, which then still counts what
-- this compile took, is set again by the subject's next compile (pulled forward early, at worst).
CREATE FUNCTION canon_backlog_recount(ws text, names text[])
RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
SET lock_timeout = '10ms'
AS $$
DECLARE
  one text;
  waiting bigint;
BEGIN
  IF ws IS DISTINCT FROM current_setting('canon.workspace_id', true) THEN
    RETURN;
  END IF;
  FOR one IN SELECT DISTINCT u FROM unnest(names) AS u ORDER BY 1 LOOP
    BEGIN
      SELECT count(*) INTO waiting FROM pending p WHERE p.workspace_id = ws AND p.subject = one;
      IF waiting = 0 THEN
        DELETE FROM pending_backlog b WHERE b.workspace_id = ws AND b.subject = one;
      ELSE
        INSERT INTO pending_backlog AS b (workspace_id, subject, episodes) VALUES (ws, one, waiting)
        ON CONFLICT (workspace_id, subject) DO UPDATE SET episodes = excluded.episodes;
      END IF;
    EXCEPTION WHEN lock_not_available THEN
      NULL;
    END;
  END LOOP;
EXCEPTION WHEN insufficient_privilege THEN
  RETURN;
END
$$;
--> statement-breakpoint
DO $$
BEGIN
  ALTER FUNCTION canon_backlog_add(text, text[], integer[], bigint) OWNER TO canon_system;
  ALTER FUNCTION canon_backlog_recount(text, text[]) OWNER TO canon_system;
EXCEPTION WHEN insufficient_privilege THEN
  NULL;
END $$;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION canon_backlog_add(text, text[], integer[], bigint) TO canon_app, canon_system;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION canon_backlog_recount(text, text[]) TO canon_app, canon_system;
