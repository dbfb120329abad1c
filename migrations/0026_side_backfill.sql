-- A memory's `side` (migration 0019) is what a page reads of a candidate off the page. Rows
-- written before it had none, and recall took their side apart from the summary in SQL at every
-- read; every compile since writes it. It is filled here once, with what that read computed, so
-- the read is the column alone.
-- Row-level security is forced on memories (0005): lifted for this statement, inside the
-- migration's transaction, so the owner fills every workspace's rows whatever its role memberships.
ALTER TABLE "memories" NO FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
UPDATE "memories" SET "side" = jsonb_build_object(
  'v', "summary"->'v', 'from', "summary"->'from',
  'memory', jsonb_build_object(
    'status', "summary"#>'{memory,status}', 'predicate', "summary"#>'{memory,predicate}', 'qualifiers', "summary"#>'{memory,qualifiers}',
    'current', (SELECT coalesce(jsonb_agg(jsonb_build_object('value', c.e->'value') ORDER BY c.i), '[]'::jsonb)
                FROM jsonb_array_elements("summary"#>'{memory,current}') WITH ORDINALITY AS c(e, i)),
    'conflict', (SELECT coalesce(jsonb_agg(jsonb_build_object('value', c.e->'value') ORDER BY c.i), '[]'::jsonb)
                 FROM jsonb_array_elements("summary"#>'{memory,conflict}') WITH ORDINALITY AS c(e, i))))
WHERE "side" IS NULL AND "summary" IS NOT NULL;
--> statement-breakpoint
ALTER TABLE "memories" FORCE ROW LEVEL SECURITY;
