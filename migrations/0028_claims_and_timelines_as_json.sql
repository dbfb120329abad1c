-- A claim and a timeline are written whole and read whole (or, rarely, one member), never
-- searched inside: as jsonb, PostgreSQL parsed every claim of a compile into its binary form on
-- insert (about half of a 100,000-claim insert) and every 34 kB timeline with it, and printed
-- them back to text on every read. json keeps the text as sent, checked but not converted.
-- Changing the type rewrites both tables once, and resets a column's compression, so lz4 is
-- set again in the same statement where the server has it (as in migration 0025).
DO $$
BEGIN
  ALTER TABLE "claims" ALTER COLUMN "claim" SET DATA TYPE json, ALTER COLUMN "claim" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  ALTER TABLE "claims" ALTER COLUMN "claim" SET DATA TYPE json;
END $$;--> statement-breakpoint
DO $$
BEGIN
  ALTER TABLE "memories" ALTER COLUMN "timeline" SET DATA TYPE json, ALTER COLUMN "timeline" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  ALTER TABLE "memories" ALTER COLUMN "timeline" SET DATA TYPE json;
END $$;
