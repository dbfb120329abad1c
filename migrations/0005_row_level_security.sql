-- Row-level security as defense in depth (issue: recall, scopes, …). Requests run as role
-- canon_app with the transaction-local setting canon.workspace_id naming their workspace: a
-- query that forgets its workspace_id filter still sees only that workspace. Work that spans
-- workspaces (nightly sweeps, key lookup, administration) runs as canon_system.
-- Roles are cluster-wide: several databases (and concurrent migrations) may create them.
DO $$
BEGIN
  BEGIN
    CREATE ROLE canon_app NOLOGIN;
  EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
  END;
  BEGIN
    CREATE ROLE canon_system NOLOGIN;
  EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
  END;
  -- The connecting (owner) role switches into them with SET LOCAL ROLE.
  BEGIN
    EXECUTE format('GRANT canon_app, canon_system TO %I', current_user);
  EXCEPTION WHEN OTHERS THEN NULL;
  END;
END
$$;
--> statement-breakpoint
GRANT USAGE ON SCHEMA public TO canon_app, canon_system;
--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO canon_app, canon_system;
--> statement-breakpoint
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO canon_app, canon_system;
--> statement-breakpoint
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO canon_app, canon_system;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO canon_app, canon_system;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO canon_app, canon_system;
--> statement-breakpoint
ALTER TABLE workspaces ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE workspaces FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON workspaces TO canon_app
  USING (id = current_setting('canon.workspace_id', true))
  WITH CHECK (id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON workspaces TO canon_system USING (true) WITH CHECK (true);
--> statement-breakpoint
ALTER TABLE api_keys ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE api_keys FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON api_keys TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON api_keys TO canon_system USING (true) WITH CHECK (true);
--> statement-breakpoint
ALTER TABLE episodes ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE episodes FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON episodes TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON episodes TO canon_system USING (true) WITH CHECK (true);
--> statement-breakpoint
ALTER TABLE pending ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE pending FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON pending TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON pending TO canon_system USING (true) WITH CHECK (true);
--> statement-breakpoint
ALTER TABLE claims ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE claims FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON claims TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON claims TO canon_system USING (true) WITH CHECK (true);
--> statement-breakpoint
ALTER TABLE memories ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE memories FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON memories TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON memories TO canon_system USING (true) WITH CHECK (true);
--> statement-breakpoint
ALTER TABLE memory_values ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE memory_values FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON memory_values TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON memory_values TO canon_system USING (true) WITH CHECK (true);
--> statement-breakpoint
ALTER TABLE evidence ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE evidence FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON evidence TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON evidence TO canon_system USING (true) WITH CHECK (true);
--> statement-breakpoint
ALTER TABLE dispositions ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE dispositions FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON dispositions TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON dispositions TO canon_system USING (true) WITH CHECK (true);
--> statement-breakpoint
ALTER TABLE episode_markers ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE episode_markers FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON episode_markers TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON episode_markers TO canon_system USING (true) WITH CHECK (true);
--> statement-breakpoint
ALTER TABLE subjects ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE subjects FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON subjects TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON subjects TO canon_system USING (true) WITH CHECK (true);
--> statement-breakpoint
ALTER TABLE compile_runs ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE compile_runs FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON compile_runs TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON compile_runs TO canon_system USING (true) WITH CHECK (true);
--> statement-breakpoint
ALTER TABLE policies ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE policies FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON policies TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON policies TO canon_system USING (true) WITH CHECK (true);
--> statement-breakpoint
ALTER TABLE connector_instances ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE connector_instances FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON connector_instances TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON connector_instances TO canon_system USING (true) WITH CHECK (true);
--> statement-breakpoint
ALTER TABLE connector_cursors ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE connector_cursors FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON connector_cursors TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON connector_cursors TO canon_system USING (true) WITH CHECK (true);
--> statement-breakpoint
ALTER TABLE erased_keys ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE erased_keys FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON erased_keys TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON erased_keys TO canon_system USING (true) WITH CHECK (true);
--> statement-breakpoint
ALTER TABLE erasures ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE erasures FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY workspace_isolation ON erasures TO canon_app
  USING (workspace_id = current_setting('canon.workspace_id', true))
  WITH CHECK (workspace_id = current_setting('canon.workspace_id', true));
--> statement-breakpoint
CREATE POLICY system_all ON erasures TO canon_system USING (true) WITH CHECK (true);
--> statement-breakpoint
-- The search function (SECURITY DEFINER) runs as canon_system: it sees every workspace through
-- the system policy and confines itself to the one it is asked for, with the GIN indexes usable
-- (no non-leakproof security qual in the way), whatever role owns the database.
DO $$
DECLARE f regprocedure;
BEGIN
  FOR f IN SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
           WHERE n.nspname = 'public' AND p.proname LIKE 'canon\_%' AND p.prosecdef LOOP
    EXECUTE format('ALTER FUNCTION %s OWNER TO canon_system', f);
  END LOOP;
END
$$;
