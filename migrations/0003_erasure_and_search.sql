CREATE TABLE "erased_keys" (
	"workspace_id" text NOT NULL,
	"key_hash" text NOT NULL,
	"erasure_id" uuid NOT NULL,
	CONSTRAINT "erased_keys_workspace_id_key_hash_pk" PRIMARY KEY("workspace_id","key_hash")
);
--> statement-breakpoint
CREATE TABLE "erasures" (
	"workspace_id" text NOT NULL,
	"id" uuid NOT NULL,
	"target_kind" text NOT NULL,
	"target_hash" text NOT NULL,
	"actor_key_id" text NOT NULL,
	"actor_role" text NOT NULL,
	"episodes" integer NOT NULL,
	"memories" integer NOT NULL,
	"erased_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "erasures_workspace_id_id_pk" PRIMARY KEY("workspace_id","id")
);
--> statement-breakpoint
CREATE INDEX "memory_values_fts_idx" ON "memory_values" USING gin ("workspace_id",to_tsvector('simple', "search_text"));--> statement-breakpoint
CREATE INDEX "memory_values_trgm_idx" ON "memory_values" USING gin ("workspace_id","search_text" gin_trgm_ops);