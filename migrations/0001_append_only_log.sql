-- The log is the truth (DESIGN §1): episodes are never updated or deleted.
-- Erasure (DESIGN §8) is the one audited exception: it sets the transaction-local
-- setting canon.erasure to 'on' in the same transaction that writes its audit row.
CREATE FUNCTION canon_episodes_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND coalesce(current_setting('canon.erasure', true), '') = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'episodes are append-only: % refused', TG_OP
    USING ERRCODE = 'restrict_violation', HINT = 'erase a subject through the erasure API instead';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER episodes_append_only
  BEFORE UPDATE OR DELETE ON episodes
  FOR EACH ROW EXECUTE FUNCTION canon_episodes_append_only();
--> statement-breakpoint
-- TRUNCATE bypasses row triggers; refuse it too.
CREATE TRIGGER episodes_no_truncate
  BEFORE TRUNCATE ON episodes
  FOR EACH STATEMENT EXECUTE FUNCTION canon_episodes_append_only();
--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
-- Lets GIN indexes lead with workspace_id like every other index (DESIGN §9).
CREATE EXTENSION IF NOT EXISTS btree_gin;
