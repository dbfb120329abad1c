CREATE TABLE "erasure_rebuilt_subjects" (
	"workspace_id" text NOT NULL,
	"subject_hash" text NOT NULL,
	"erasure_id" uuid NOT NULL,
	CONSTRAINT "erasure_rebuilt_subjects_workspace_id_subject_hash_pk" PRIMARY KEY("workspace_id","subject_hash")
);
--> statement-breakpoint
-- Row-level security as on the other erasure tables (0005): a workspace sees its own rows only.
ALTER TABLE erasure_rebuilt_subjects ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE erasure_rebuilt_subjects FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON erasure_rebuilt_subjects TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON erasure_rebuilt_subjects TO canon_system USING (true) WITH CHECK (true);
