-- A compile answers each key with the counters and the state_hash of what that key may see: other
-- users' personal memories are subtracted (runtime/compile/seen-by.ts). Their digests are read with
-- every compile, so they are found through this index, which holds nothing for most subjects.
CREATE INDEX "memories_personal_idx" ON "memories" USING btree ("workspace_id","subject","owner") WHERE "memories"."scope" = 'personal';
