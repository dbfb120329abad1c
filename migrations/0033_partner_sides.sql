-- A page of a subject's memories showed each memory's candidates by looking up their sides by id:
-- a page of 100 worded memories named about 400 of them, a second statement of 400 index probes
-- on every recall. Each row now keeps its candidates' scopes, owners and sides beside their refs,
-- rewritten by every compile that writes either memory, and filled here once from the rows as
-- they stand. A row without candidates keeps null.
-- Row-level security is forced on memories (0005): lifted for this statement, inside the
-- migration's transaction, so the owner fills every workspace's rows (as in 0026).
ALTER TABLE "memories" ADD COLUMN "partner_sides" jsonb;
--> statement-breakpoint
ALTER TABLE "memories" NO FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
UPDATE "memories" a SET "partner_sides" = (
  SELECT jsonb_object_agg(b."id", jsonb_build_object('scope', b."scope", 'owner', b."owner", 'side', b."side"))
    FROM jsonb_array_elements(a."candidates") r
    JOIN "memories" b ON b."workspace_id" = a."workspace_id" AND b."id" = r->>'memory_id')
WHERE a."candidates" <> '[]'::jsonb;
--> statement-breakpoint
ALTER TABLE "memories" FORCE ROW LEVEL SECURITY;
