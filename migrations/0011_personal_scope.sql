-- Personal scope in the database (design §7). A request's transaction carries its key's user
-- (canon.user) next to its workspace; a personal row (scope = 'personal') is visible to its owner
-- only, and a row derived from one — pending, claims, markers through their episode; evidence and
-- dispositions through their memory; a subject and its compile audit through any episode of it
-- the caller may see — only as far as its source is. Compiles, rebuilds and erasure act on a
-- subject as a whole and set canon.all_users. These are RESTRICTIVE policies: they narrow the
-- workspace policies of migration 0005 for canon_app and leave canon_system as it was.
-- The search function (SECURITY DEFINER) already confines personal values to the user it is given.
--> statement-breakpoint
CREATE POLICY personal_scope ON episodes AS RESTRICTIVE TO canon_app
  USING (current_setting('canon.all_users', true) = 'on' OR scope = 'workspace' OR owner = nullif(current_setting('canon.user', true), ''))
  WITH CHECK (current_setting('canon.all_users', true) = 'on' OR scope = 'workspace' OR owner = nullif(current_setting('canon.user', true), ''));
--> statement-breakpoint
CREATE POLICY personal_scope ON memories AS RESTRICTIVE TO canon_app
  USING (current_setting('canon.all_users', true) = 'on' OR scope = 'workspace' OR owner = nullif(current_setting('canon.user', true), ''))
  WITH CHECK (current_setting('canon.all_users', true) = 'on' OR scope = 'workspace' OR owner = nullif(current_setting('canon.user', true), ''));
--> statement-breakpoint
CREATE POLICY personal_scope ON memory_values AS RESTRICTIVE TO canon_app
  USING (current_setting('canon.all_users', true) = 'on' OR scope = 'workspace' OR owner = nullif(current_setting('canon.user', true), ''))
  WITH CHECK (current_setting('canon.all_users', true) = 'on' OR scope = 'workspace' OR owner = nullif(current_setting('canon.user', true), ''));
--> statement-breakpoint
CREATE POLICY personal_scope ON pending AS RESTRICTIVE TO canon_app
  USING (current_setting('canon.all_users', true) = 'on' OR EXISTS (SELECT 1 FROM episodes e WHERE e.workspace_id = pending.workspace_id AND e.id = pending.episode_id))
  WITH CHECK (current_setting('canon.all_users', true) = 'on' OR EXISTS (SELECT 1 FROM episodes e WHERE e.workspace_id = pending.workspace_id AND e.id = pending.episode_id));
--> statement-breakpoint
CREATE POLICY personal_scope ON claims AS RESTRICTIVE TO canon_app
  USING (current_setting('canon.all_users', true) = 'on' OR EXISTS (SELECT 1 FROM episodes e WHERE e.workspace_id = claims.workspace_id AND e.id = claims.episode_id))
  WITH CHECK (current_setting('canon.all_users', true) = 'on' OR EXISTS (SELECT 1 FROM episodes e WHERE e.workspace_id = claims.workspace_id AND e.id = claims.episode_id));
--> statement-breakpoint
CREATE POLICY personal_scope ON episode_markers AS RESTRICTIVE TO canon_app
  USING (current_setting('canon.all_users', true) = 'on' OR EXISTS (SELECT 1 FROM episodes e WHERE e.workspace_id = episode_markers.workspace_id AND e.id = episode_markers.episode_id))
  WITH CHECK (current_setting('canon.all_users', true) = 'on' OR EXISTS (SELECT 1 FROM episodes e WHERE e.workspace_id = episode_markers.workspace_id AND e.id = episode_markers.episode_id));
--> statement-breakpoint
CREATE POLICY personal_scope ON evidence AS RESTRICTIVE TO canon_app
  USING (current_setting('canon.all_users', true) = 'on' OR EXISTS (SELECT 1 FROM memories m WHERE m.workspace_id = evidence.workspace_id AND m.id = evidence.memory_id))
  WITH CHECK (current_setting('canon.all_users', true) = 'on' OR EXISTS (SELECT 1 FROM memories m WHERE m.workspace_id = evidence.workspace_id AND m.id = evidence.memory_id));
--> statement-breakpoint
CREATE POLICY personal_scope ON dispositions AS RESTRICTIVE TO canon_app
  USING (current_setting('canon.all_users', true) = 'on' OR EXISTS (SELECT 1 FROM memories m WHERE m.workspace_id = dispositions.workspace_id AND m.id = dispositions.memory_id))
  WITH CHECK (current_setting('canon.all_users', true) = 'on' OR EXISTS (SELECT 1 FROM memories m WHERE m.workspace_id = dispositions.workspace_id AND m.id = dispositions.memory_id));
--> statement-breakpoint
CREATE POLICY personal_scope ON subjects AS RESTRICTIVE TO canon_app
  USING (current_setting('canon.all_users', true) = 'on' OR EXISTS (SELECT 1 FROM episodes e WHERE e.workspace_id = subjects.workspace_id AND e.subject = subjects.subject))
  WITH CHECK (current_setting('canon.all_users', true) = 'on' OR EXISTS (SELECT 1 FROM episodes e WHERE e.workspace_id = subjects.workspace_id AND e.subject = subjects.subject));
--> statement-breakpoint
CREATE POLICY personal_scope ON compile_runs AS RESTRICTIVE TO canon_app
  USING (current_setting('canon.all_users', true) = 'on' OR EXISTS (SELECT 1 FROM episodes e WHERE e.workspace_id = compile_runs.workspace_id AND e.subject = compile_runs.subject))
  WITH CHECK (current_setting('canon.all_users', true) = 'on' OR EXISTS (SELECT 1 FROM episodes e WHERE e.workspace_id = compile_runs.workspace_id AND e.subject = compile_runs.subject));
