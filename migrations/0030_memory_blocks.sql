CREATE TABLE "memory_blocks" (
	"workspace_id" text NOT NULL,
	"memory_id" text NOT NULL,
	"kind" text NOT NULL,
	"n" integer NOT NULL,
	"items" json NOT NULL,
	CONSTRAINT "memory_blocks_workspace_id_memory_id_kind_n_pk" PRIMARY KEY("workspace_id","memory_id","kind","n")
);
--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN "sealed" json;--> statement-breakpoint
-- A timeline's final blocks, kept apart from its memory's row (docs/scaling.md, "A key restated
-- without end"). Row-level security as on the rest of a memory's projections (0005, 0011): a
-- block is visible in its workspace only, and a personal memory's blocks through their memory.
ALTER TABLE memory_blocks ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE memory_blocks FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON memory_blocks TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON memory_blocks TO canon_system USING (true) WITH CHECK (true);
--> statement-breakpoint
CREATE POLICY personal_scope ON memory_blocks AS RESTRICTIVE TO canon_app
  USING (current_setting('canon.all_users', true) = 'on' OR EXISTS (SELECT 1 FROM memories m WHERE m.workspace_id = memory_blocks.workspace_id AND m.id = memory_blocks.memory_id))
  WITH CHECK (current_setting('canon.all_users', true) = 'on' OR EXISTS (SELECT 1 FROM memories m WHERE m.workspace_id = memory_blocks.workspace_id AND m.id = memory_blocks.memory_id));
--> statement-breakpoint
-- lz4 where the server has it, as for the timelines (0025).
DO $$
BEGIN
  EXECUTE 'ALTER TABLE memory_blocks ALTER COLUMN items SET COMPRESSION lz4';
  EXECUTE 'ALTER TABLE memories ALTER COLUMN sealed SET COMPRESSION lz4';
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END $$;
