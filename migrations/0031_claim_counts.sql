-- How many claims each of a few memories has, asked by a compile before it resumes a key's fold
-- from its checkpoint (compile.ts, claimCountsOfMemories). As a plain query of canon_app it passed
-- claims' personal-scope policy row by row, which keeps PostgreSQL from an index-only scan: a key
-- restated 10,000 times cost about 9 ms of a 25 ms one-episode compile to count. A compile acts on
-- its subject as a whole (canon.all_users), so the count need not pass the per-user policy: a
-- SECURITY DEFINER function owned by canon_system, as canon_pending_at_least (0017), counts index
-- entries only, and answers nothing outside a compile's transaction or for a workspace other than
-- the one the transaction is confined to.
CREATE FUNCTION canon_claim_counts(ws text, memory_ids text[])
RETURNS TABLE (memory_id text, n integer)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
-- Planned once for any arguments: from the index always, whatever share of the table one key
-- holds (see 0032 for the plan PostgreSQL otherwise chose for the backlog's count).
SET enable_seqscan = off
AS $$
SELECT c.memory_id, count(*)::int
FROM claims c
WHERE c.workspace_id = $1 AND c.memory_id = ANY ($2)
  AND $1 = current_setting('canon.workspace_id', true)
  AND current_setting('canon.all_users', true) = 'on'
GROUP BY c.memory_id
$$;
--> statement-breakpoint
-- A database owner that may not act as canon_system (PostgreSQL 16 asks that of ALTER … OWNER)
-- cannot serve requests either, since every request switches into canon_app or canon_system; it
-- may still migrate, and the function stays its own. Run by it, the function counts nothing under
-- the forced policies, and a compile then folds each key from all its claims: slower, never wrong.
DO $$
BEGIN
  ALTER FUNCTION canon_claim_counts(text, text[]) OWNER TO canon_system;
EXCEPTION WHEN insufficient_privilege THEN
  NULL;
END $$;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION canon_claim_counts(text, text[]) TO canon_app, canon_system;
