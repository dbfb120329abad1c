-- A memory shows its first 20 candidates (best first), and its row keeps the sides of those
-- only: a key worded like hundreds of others kept hundreds of sides that no page shows. Rows
-- with more than 20 candidates are refilled here from their first 20, as a compile writes them.
-- Row-level security is forced on memories (0005): lifted for this statement, inside the
-- migration's transaction, so the owner fills every workspace's rows (as in 0026 and 0033).
ALTER TABLE "memories" NO FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
UPDATE "memories" a SET "partner_sides" = (
  SELECT jsonb_object_agg(b."id", jsonb_build_object('scope', b."scope", 'owner', b."owner", 'side', b."side"))
    FROM jsonb_array_elements(a."candidates") WITH ORDINALITY r(ref, n)
    JOIN "memories" b ON b."workspace_id" = a."workspace_id" AND b."id" = r.ref->>'memory_id'
   WHERE r.n <= 20)
WHERE jsonb_array_length(a."candidates") > 20;
--> statement-breakpoint
ALTER TABLE "memories" FORCE ROW LEVEL SECURITY;
