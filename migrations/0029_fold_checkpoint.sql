-- Where the next compile of a memory's key may resume its fold (docs/scaling.md, "A key restated
-- without end"). Derived like the timeline and written with it; rows written before it hold null,
-- and their next compile folds from all claims, as before, and writes one.
ALTER TABLE "memories" ADD COLUMN "checkpoint" json;
