-- A compile answers each key with the counters and the state_hash of what that key may see: other
-- users' personal memories are subtracted (runtime/compile/seen-by.ts). Each subject keeps, per owner
-- of personal memories, the sum of their digests, as it keeps state_hash, so a compile finds them in
-- the row it reads anyway. A row from before this migration has none (null) until its subject's next
-- compile, which sums them once from the subject's memories.
ALTER TABLE "subjects" ADD COLUMN "personal_sums" jsonb;
