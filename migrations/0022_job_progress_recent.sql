-- The latest progress reports of a workspace, newest first, read from the index (a second {all}
-- request looks for the running job among them) rather than by sorting every report it ever made.
CREATE INDEX "job_progress_recent_idx" ON "job_progress" USING btree ("workspace_id","updated_at","job_id");
