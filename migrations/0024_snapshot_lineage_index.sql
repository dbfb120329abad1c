-- A compile reads the snapshot versions of every lineage its claims come from, in batches of keys.
-- Through episodes_lineage_idx that was one index probe and one heap visit per lineage to learn
-- that the episode is no snapshot: a first compile of 100,000 plain episodes, each its own
-- lineage, spent 0.9 s of PostgreSQL's CPU finding none. Snapshot episodes are few; an index of
-- only those answers from an empty range.
CREATE INDEX "episodes_snapshot_idx" ON "episodes" USING btree ("workspace_id","subject","lineage") WHERE "episodes"."snapshot";
