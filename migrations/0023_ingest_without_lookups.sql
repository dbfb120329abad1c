-- Two per-row lookups of every ingest (issue 16), each about as costly as the row's own insert.
--
-- The foreign key from episodes to workspaces checked every appended row against `workspaces`.
-- Every writer of episodes enters a workspace a key or a connector instance was created in
-- (ensureWorkspace, in the same transaction as that key or instance; api_keys keeps its foreign
-- key), row-level security confines canon_app's rows to that workspace, and no code updates or
-- deletes a workspace row. The last is now the roles' rule too: they may not delete a workspace
-- or change its id, so an episode's workspace cannot disappear under it.
ALTER TABLE "episodes" DROP CONSTRAINT "episodes_workspace_id_workspaces_id_fk";
--> statement-breakpoint
REVOKE UPDATE, DELETE, TRUNCATE ON "workspaces" FROM canon_app, canon_system;
--> statement-breakpoint
GRANT UPDATE ("time_zone") ON "workspaces" TO canon_app, canon_system;
--> statement-breakpoint
-- pending's personal-scope policy looked up each row's episode (in its WITH CHECK on every
-- ingest, in its USING on every read). A pending row now carries its episode's scope and owner,
-- written from the same envelope as the episode in the same transaction (or read from the
-- episode), and the policy reads them like episodes' own: a key sees and writes only the pending
-- rows of episodes in its workspace's scope or its own personal one.
ALTER TABLE "pending" ADD COLUMN "scope" text;
--> statement-breakpoint
ALTER TABLE "pending" ADD COLUMN "owner" text;
--> statement-breakpoint
-- Row-level security is forced on both tables (0005): lifted for these statements, inside the
-- migration's transaction, so the owner fills every workspace's rows whatever its role memberships.
ALTER TABLE "pending" NO FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "episodes" NO FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
UPDATE "pending" p SET "scope" = e."scope", "owner" = e."owner"
FROM "episodes" e WHERE e."workspace_id" = p."workspace_id" AND e."id" = p."episode_id";
--> statement-breakpoint
-- A pending row whose episode is gone (erased) marks nothing: a compile would skip it anyway.
DELETE FROM "pending" WHERE "scope" IS NULL;
--> statement-breakpoint
ALTER TABLE "episodes" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "pending" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "pending" ALTER COLUMN "scope" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "pending" ADD CONSTRAINT "pending_scope_ck" CHECK (("pending"."scope" = 'workspace' and "pending"."owner" is null) or ("pending"."scope" = 'personal' and "pending"."owner" is not null));
--> statement-breakpoint
ALTER POLICY personal_scope ON pending
  USING (current_setting('canon.all_users', true) = 'on' OR scope = 'workspace' OR owner = nullif(current_setting('canon.user', true), ''))
  WITH CHECK (current_setting('canon.all_users', true) = 'on' OR scope = 'workspace' OR owner = nullif(current_setting('canon.user', true), ''));
