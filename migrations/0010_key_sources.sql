ALTER TABLE "api_keys" ADD COLUMN "sources" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
-- Connector keys made before sources were bound kept writing their connectors' sources: they
-- keep that right, so an upgrade stops no running sync.
UPDATE "api_keys" SET "sources" = ARRAY['git', 'github', 'workspace'] WHERE "role" = 'connector';
