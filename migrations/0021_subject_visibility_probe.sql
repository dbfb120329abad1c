-- A subject, and its compile audit, is visible to a key when one of its episodes is. Written as
-- EXISTS, PostgreSQL planned that probe as a sequential scan of `episodes` stopping at the first
-- match, which for a subject whose episodes come late in the table read every row before them
-- (10 ms per request at 60,000 episodes, growing with the workspace). The first episode of the
-- subject in log order is one step of episodes_subject_log_idx: the same answer, read from the
-- index. A scalar subquery keeps its ORDER BY and LIMIT, which an EXISTS would drop.
ALTER POLICY personal_scope ON subjects
  USING (current_setting('canon.all_users', true) = 'on' OR (SELECT true FROM episodes e WHERE e.workspace_id = subjects.workspace_id AND e.subject = subjects.subject ORDER BY e.tx_id, e.position LIMIT 1))
  WITH CHECK (current_setting('canon.all_users', true) = 'on' OR (SELECT true FROM episodes e WHERE e.workspace_id = subjects.workspace_id AND e.subject = subjects.subject ORDER BY e.tx_id, e.position LIMIT 1));
--> statement-breakpoint
ALTER POLICY personal_scope ON compile_runs
  USING (current_setting('canon.all_users', true) = 'on' OR (SELECT true FROM episodes e WHERE e.workspace_id = compile_runs.workspace_id AND e.subject = compile_runs.subject ORDER BY e.tx_id, e.position LIMIT 1))
  WITH CHECK (current_setting('canon.all_users', true) = 'on' OR (SELECT true FROM episodes e WHERE e.workspace_id = compile_runs.workspace_id AND e.subject = compile_runs.subject ORDER BY e.tx_id, e.position LIMIT 1));
