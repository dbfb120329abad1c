CREATE TABLE "claims" (
	"workspace_id" text NOT NULL,
	"episode_id" uuid NOT NULL,
	"idx" integer NOT NULL,
	"subject" text NOT NULL,
	"memory_id" text NOT NULL,
	"lineage" text NOT NULL,
	"claim" jsonb NOT NULL,
	CONSTRAINT "claims_workspace_id_episode_id_idx_pk" PRIMARY KEY("workspace_id","episode_id","idx")
);
--> statement-breakpoint
CREATE TABLE "compile_runs" (
	"workspace_id" text NOT NULL,
	"id" uuid NOT NULL,
	"subject" text NOT NULL,
	"kind" text NOT NULL,
	"job_id" text,
	"started_at" timestamp(3) with time zone NOT NULL,
	"finished_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"duration_ms" double precision NOT NULL,
	"result" jsonb NOT NULL,
	CONSTRAINT "compile_runs_workspace_id_id_pk" PRIMARY KEY("workspace_id","id")
);
--> statement-breakpoint
CREATE TABLE "connector_cursors" (
	"workspace_id" text NOT NULL,
	"instance_id" text NOT NULL,
	"cursor" jsonb NOT NULL,
	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "connector_cursors_workspace_id_instance_id_pk" PRIMARY KEY("workspace_id","instance_id")
);
--> statement-breakpoint
CREATE TABLE "connector_instances" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"connector" text NOT NULL,
	"config" jsonb NOT NULL,
	"schedule" text,
	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "connector_instances_workspace_id_id_pk" PRIMARY KEY("workspace_id","id")
);
--> statement-breakpoint
CREATE TABLE "dispositions" (
	"workspace_id" text NOT NULL,
	"memory_id" text NOT NULL,
	"source" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"claim_index" integer NOT NULL,
	"kind" text NOT NULL,
	"target" jsonb,
	"reason" text NOT NULL,
	CONSTRAINT "dispositions_workspace_id_memory_id_source_idempotency_key_claim_index_pk" PRIMARY KEY("workspace_id","memory_id","source","idempotency_key","claim_index")
);
--> statement-breakpoint
CREATE TABLE "episode_markers" (
	"workspace_id" text NOT NULL,
	"episode_id" uuid NOT NULL,
	"subject" text NOT NULL,
	"compile_run_id" uuid NOT NULL,
	"compiler_version" text NOT NULL,
	"policy_fingerprint" text NOT NULL,
	CONSTRAINT "episode_markers_workspace_id_episode_id_pk" PRIMARY KEY("workspace_id","episode_id")
);
--> statement-breakpoint
CREATE TABLE "evidence" (
	"workspace_id" text NOT NULL,
	"memory_id" text NOT NULL,
	"value_ord" integer NOT NULL,
	"source" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"claim_index" integer NOT NULL,
	"lineage" text NOT NULL,
	"source_ref" text,
	CONSTRAINT "evidence_workspace_id_memory_id_value_ord_source_idempotency_key_claim_index_pk" PRIMARY KEY("workspace_id","memory_id","value_ord","source","idempotency_key","claim_index")
);
--> statement-breakpoint
CREATE TABLE "memories" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"subject" text NOT NULL,
	"key" text NOT NULL,
	"scope" text NOT NULL,
	"owner" text,
	"predicate" text NOT NULL,
	"qualifiers" jsonb NOT NULL,
	"revision" integer NOT NULL,
	"etag" text NOT NULL,
	"digest" text NOT NULL,
	"status" text NOT NULL,
	"timeline" jsonb NOT NULL,
	CONSTRAINT "memories_workspace_id_id_pk" PRIMARY KEY("workspace_id","id")
);
--> statement-breakpoint
CREATE TABLE "memory_values" (
	"workspace_id" text NOT NULL,
	"memory_id" text NOT NULL,
	"ord" integer NOT NULL,
	"subject" text NOT NULL,
	"scope" text NOT NULL,
	"owner" text,
	"value" jsonb,
	"search_text" text NOT NULL,
	"valid_from" timestamp(3) with time zone NOT NULL,
	"valid_to" timestamp(3) with time zone,
	"status" text NOT NULL,
	"superseded_by" text,
	"conditions" jsonb NOT NULL,
	"standing" integer NOT NULL,
	"support" integer NOT NULL,
	CONSTRAINT "memory_values_workspace_id_memory_id_ord_pk" PRIMARY KEY("workspace_id","memory_id","ord")
);
--> statement-breakpoint
CREATE TABLE "pending" (
	"workspace_id" text NOT NULL,
	"subject" text NOT NULL,
	"episode_id" uuid NOT NULL,
	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pending_workspace_id_subject_episode_id_pk" PRIMARY KEY("workspace_id","subject","episode_id")
);
--> statement-breakpoint
CREATE TABLE "policies" (
	"workspace_id" text PRIMARY KEY NOT NULL,
	"policy_set" jsonb NOT NULL,
	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subjects" (
	"workspace_id" text NOT NULL,
	"subject" text NOT NULL,
	"state_hash" text NOT NULL,
	"compiler_version" text NOT NULL,
	"policy_fingerprint" text NOT NULL,
	"memories" integer NOT NULL,
	"open_conflicts" integer NOT NULL,
	CONSTRAINT "subjects_workspace_id_subject_pk" PRIMARY KEY("workspace_id","subject")
);
--> statement-breakpoint
CREATE INDEX "claims_memory_idx" ON "claims" USING btree ("workspace_id","memory_id");--> statement-breakpoint
CREATE INDEX "claims_lineage_idx" ON "claims" USING btree ("workspace_id","subject","lineage");--> statement-breakpoint
CREATE INDEX "compile_runs_subject_idx" ON "compile_runs" USING btree ("workspace_id","subject","started_at");--> statement-breakpoint
CREATE INDEX "episode_markers_subject_idx" ON "episode_markers" USING btree ("workspace_id","subject");--> statement-breakpoint
CREATE INDEX "evidence_claim_idx" ON "evidence" USING btree ("workspace_id","source","idempotency_key");--> statement-breakpoint
CREATE INDEX "memories_subject_idx" ON "memories" USING btree ("workspace_id","subject","predicate");--> statement-breakpoint
CREATE INDEX "memory_values_subject_idx" ON "memory_values" USING btree ("workspace_id","subject","valid_from");