CREATE TABLE "erasure_rebuilt_subjects" (
	"workspace_id" text NOT NULL,
	"subject_hash" text NOT NULL,
	"erasure_id" uuid NOT NULL,
	CONSTRAINT "erasure_rebuilt_subjects_workspace_id_subject_hash_pk" PRIMARY KEY("workspace_id","subject_hash")
);
--> statement-breakpoint
-- Erasures of a subject made before this table existed: their audit row's target hash is the
-- subject's hash here (workspace, "subject", name), so those subjects are known; an erasure of a
-- user recorded no subject, and stays unknown. Row-level security is forced on erasures (0005):
-- lifted for this statement, inside the migration's transaction, so the owner reads every
-- workspace's rows (as in 0034, 0037); the new table's is enabled after it.
ALTER TABLE erasures NO FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
INSERT INTO erasure_rebuilt_subjects (workspace_id, subject_hash, erasure_id)
SELECT workspace_id, target_hash, id FROM erasures WHERE target_kind = 'subject'
ON CONFLICT DO NOTHING;
--> statement-breakpoint
ALTER TABLE erasures FORCE ROW LEVEL SECURITY;
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
