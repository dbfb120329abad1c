-- What recall of a subject reads of each row, its summary and its candidates' sides, is read
-- whole and never taken apart by a query: as json, the text goes out as it was written. As
-- jsonb, PostgreSQL printed each value back to text on every read: a page of 100 rows with
-- candidates reads about 200 kB of them, and printing was more than half of the statement's
-- time (about 1 ms of 1.8). A compile compares partner sides as jsonb (refresh-partner-sides.ts).
-- Changing the type resets a column's compression: lz4 is set again where the server has it
-- (as in migrations 0025 and 0028), for partner_sides too, which came after 0025.
DO $$
BEGIN
  ALTER TABLE "memories"
    ALTER COLUMN "summary" SET DATA TYPE json USING "summary"::json, ALTER COLUMN "summary" SET COMPRESSION lz4,
    ALTER COLUMN "partner_sides" SET DATA TYPE json USING "partner_sides"::json, ALTER COLUMN "partner_sides" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  ALTER TABLE "memories"
    ALTER COLUMN "summary" SET DATA TYPE json USING "summary"::json,
    ALTER COLUMN "partner_sides" SET DATA TYPE json USING "partner_sides"::json;
END $$;
