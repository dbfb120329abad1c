-- job_progress is a workspace table like the others (see 0005_row_level_security.sql).
ALTER TABLE job_progress ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE job_progress FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON job_progress TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON job_progress TO canon_system USING (true) WITH CHECK (true);
