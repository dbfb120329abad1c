CREATE TABLE "job_progress" (
	"workspace_id" text NOT NULL,
	"job_id" uuid NOT NULL,
	"done" integer NOT NULL,
	"total" integer NOT NULL,
	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "job_progress_workspace_id_job_id_pk" PRIMARY KEY("workspace_id","job_id")
);
