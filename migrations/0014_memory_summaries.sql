ALTER TABLE "memories" ADD COLUMN "summary" jsonb;--> statement-breakpoint
CREATE INDEX "memories_subject_key_idx" ON "memories" USING btree ("workspace_id","subject","key" COLLATE "C");