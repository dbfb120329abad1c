CREATE TABLE "api_keys" (
	"workspace_id" text NOT NULL,
	"id" uuid NOT NULL,
	"role" text NOT NULL,
	"user_id" text,
	"key_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"label" text,
	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp(3) with time zone,
	CONSTRAINT "api_keys_workspace_id_id_pk" PRIMARY KEY("workspace_id","id"),
	CONSTRAINT "api_keys_role_ck" CHECK ("api_keys"."role" in ('owner','maintainer','member','connector','agent','reader'))
);
--> statement-breakpoint
CREATE TABLE "episodes" (
	"workspace_id" text NOT NULL,
	"id" uuid NOT NULL,
	"tx_id" "xid8" DEFAULT pg_current_xact_id() NOT NULL,
	"position" bigint GENERATED ALWAYS AS IDENTITY (sequence name "episodes_position_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"source" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"subject" text NOT NULL,
	"scope" text NOT NULL,
	"owner" text,
	"kind" text NOT NULL,
	"body" jsonb NOT NULL,
	"occurred_at" timestamp(3) with time zone NOT NULL,
	"occurred_at_defaulted" boolean NOT NULL,
	"observed_at" timestamp(3) with time zone,
	"ingested_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"sequence" bigint,
	"lineage" text NOT NULL,
	"snapshot" boolean NOT NULL,
	"actor_role" text NOT NULL,
	"actor_user" text,
	"source_ref" text,
	"content_hash" text NOT NULL,
	CONSTRAINT "episodes_workspace_id_id_pk" PRIMARY KEY("workspace_id","id"),
	CONSTRAINT "episodes_scope_ck" CHECK (("episodes"."scope" = 'workspace' and "episodes"."owner" is null) or ("episodes"."scope" = 'personal' and "episodes"."owner" is not null))
);
--> statement-breakpoint
CREATE TABLE "workspaces" (
	"id" text PRIMARY KEY NOT NULL,
	"time_zone" text DEFAULT 'UTC' NOT NULL,
	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "episodes" ADD CONSTRAINT "episodes_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash_uq" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "episodes_key_uq" ON "episodes" USING btree ("workspace_id","source","idempotency_key");--> statement-breakpoint
CREATE INDEX "episodes_log_idx" ON "episodes" USING btree ("workspace_id","tx_id","position");--> statement-breakpoint
CREATE INDEX "episodes_subject_log_idx" ON "episodes" USING btree ("workspace_id","subject","tx_id","position");--> statement-breakpoint
CREATE INDEX "episodes_lineage_idx" ON "episodes" USING btree ("workspace_id","lineage");