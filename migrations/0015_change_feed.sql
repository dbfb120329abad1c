CREATE TABLE "changes" (
	"workspace_id" text NOT NULL,
	"tx_id" "xid8" DEFAULT pg_current_xact_id() NOT NULL,
	"position" bigint GENERATED ALWAYS AS IDENTITY (sequence name "changes_position_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"memory_id" text NOT NULL,
	"subject" text NOT NULL,
	"key" text NOT NULL,
	"predicate" text NOT NULL,
	"scope" text NOT NULL,
	"owner" text,
	"change" text NOT NULL,
	"before" jsonb,
	"after" jsonb,
	"episode_id" uuid,
	"compile_run_id" uuid,
	"changed_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "changes_workspace_id_tx_id_position_pk" PRIMARY KEY("workspace_id","tx_id","position")
);
--> statement-breakpoint
CREATE TABLE "webhooks" (
	"workspace_id" text NOT NULL,
	"id" uuid NOT NULL,
	"url" text NOT NULL,
	"subject" text,
	"predicate" text,
	"key_id" uuid NOT NULL,
	"secret" text NOT NULL,
	"after_tx" "xid8" NOT NULL,
	"after_position" bigint NOT NULL,
	"delivered" integer DEFAULT 0 NOT NULL,
	"failed_attempts" integer DEFAULT 0 NOT NULL,
	"dead_letters" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"last_attempt_at" timestamp(3) with time zone,
	"last_delivered_at" timestamp(3) with time zone,
	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhooks_workspace_id_id_pk" PRIMARY KEY("workspace_id","id")
);
--> statement-breakpoint
CREATE INDEX "changes_subject_idx" ON "changes" USING btree ("workspace_id","subject","tx_id","position");--> statement-breakpoint
-- The change feed and webhooks are workspace tables like the others (0005); a change row of a
-- personal memory is its owner's alone, as the memory is (0011).
ALTER TABLE changes ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE changes FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON changes TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON changes TO canon_system USING (true) WITH CHECK (true);
--> statement-breakpoint
CREATE POLICY personal_scope ON changes AS RESTRICTIVE TO canon_app
  USING (current_setting('canon.all_users', true) = 'on' OR scope = 'workspace' OR owner = nullif(current_setting('canon.user', true), ''))
  WITH CHECK (current_setting('canon.all_users', true) = 'on' OR scope = 'workspace' OR owner = nullif(current_setting('canon.user', true), ''));
--> statement-breakpoint
ALTER TABLE webhooks ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE webhooks FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON webhooks TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON webhooks TO canon_system USING (true) WITH CHECK (true);
