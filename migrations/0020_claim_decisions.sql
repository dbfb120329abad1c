-- One word for what the fold decided about a claim: `decision`, as in the timeline's `decisions`
-- and the HTTP answers. A rename keeps the rows, the grants and the row-level-security policies
-- (workspace_isolation, system_all, personal_scope): they belong to the table, not to its name,
-- and personal_scope's reference to the table follows it.
ALTER TABLE "dispositions" RENAME TO "claim_decisions";--> statement-breakpoint
-- drizzle-kit writes a drop and re-create of the primary key for its new name; a rename keeps the
-- index instead of building it again over every row.
ALTER TABLE "claim_decisions" RENAME CONSTRAINT "dispositions_workspace_id_memory_id_source_idempotency_key_claim_index_pk" TO "claim_decisions_workspace_id_memory_id_source_idempotency_key_claim_index_pk";--> statement-breakpoint
-- Stored timelines name the same list `decisions` from now on, so that nothing reads the old form
-- while a subject waits for its rebuild (canon-compiler/4 rebuilds every subject compiled before,
-- which recomputes etags, digests and state hashes). Row-level security is forced on memories
-- (0005): lifted for this statement, inside the migration's transaction, so the owner updates
-- every workspace's rows whatever its role memberships.
ALTER TABLE "memories" NO FORCE ROW LEVEL SECURITY;--> statement-breakpoint
UPDATE "memories" SET "timeline" = ("timeline" - 'dispositions') || jsonb_build_object('decisions', "timeline" -> 'dispositions')
  WHERE "timeline" ? 'dispositions';--> statement-breakpoint
ALTER TABLE "memories" FORCE ROW LEVEL SECURITY;
