-- canon_pending_at_least (0017) counts a subject's waiting episodes from pending's primary key,
-- (workspace_id, subject, episode_id). Its plan is generic (a function's statement is planned
-- once for any arguments), and PostgreSQL estimated each subject at the table's average: with a
-- backlog of 110,000 episodes on two subjects, an ingest into a third subject that had one
-- episode waiting scanned the whole table (13 ms) instead of reading one index entry, and so on
-- every ingest while any large backlog waited. The function may not pick a sequential scan.
-- Altering it takes its owner, canon_system: a database owner that may not act as canon_system
-- (see 0031) leaves the function as it was, as slow as before and as correct.
DO $$
BEGIN
  ALTER FUNCTION canon_pending_at_least(text, text[], integer) SET enable_seqscan = off;
EXCEPTION WHEN insufficient_privilege THEN
  NULL;
END $$;
