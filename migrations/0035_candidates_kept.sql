-- A memory keeps its 20 best candidates only, the ones it shows (0034 trimmed their sides): a
-- key worded like hundreds of others kept every pair, and each compile that created a key in
-- its subject read them all. Rows with more are cut to their first 20 (best first, as a compile
-- keeps them); a ref that only carries a link proposal (score 0, after the scored ones) stays.
-- Row-level security is forced on memories (0005): lifted for this statement, inside the
-- migration's transaction, so the owner trims every workspace's rows (as in 0034).
ALTER TABLE "memories" NO FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
UPDATE "memories" SET "candidates" = (
  SELECT jsonb_agg(r.ref ORDER BY r.n)
    FROM jsonb_array_elements("memories"."candidates") WITH ORDINALITY r(ref, n)
   WHERE r.n <= 20 OR (r.ref->>'score')::numeric = 0)
WHERE jsonb_array_length("candidates") > 20;
--> statement-breakpoint
ALTER TABLE "memories" FORCE ROW LEVEL SECURITY;
