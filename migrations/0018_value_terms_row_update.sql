-- A compile mostly updates a value's status and interval, not its text: such an update must not
-- cost a trigger call. The statement-level update trigger (0016) entered PL/pgSQL and joined the
-- transition tables at every statement that touched memory_values; a row trigger whose WHEN
-- PostgreSQL checks by itself is skipped for those rows, and rewrites the words of the rest.
DROP TRIGGER memory_value_terms_changed ON memory_values;
--> statement-breakpoint
DROP FUNCTION canon_memory_value_terms_changed();
--> statement-breakpoint
CREATE FUNCTION canon_memory_value_term_changed() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp
AS $$
BEGIN
  DELETE FROM memory_value_terms t
  WHERE t.workspace_id = OLD.workspace_id AND t.term = ANY (tsvector_to_array(to_tsvector('simple', OLD.search_text)))
    AND t.memory_id = OLD.memory_id AND t.ord = OLD.ord;
  INSERT INTO memory_value_terms (workspace_id, term, memory_id, ord, scope, owner)
  SELECT NEW.workspace_id, w.term, NEW.memory_id, NEW.ord, NEW.scope, NEW.owner
  FROM unnest(tsvector_to_array(to_tsvector('simple', NEW.search_text))) AS w(term);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER memory_value_term_changed AFTER UPDATE ON memory_values FOR EACH ROW
  WHEN ((NEW.search_text, NEW.scope, NEW.owner) IS DISTINCT FROM (OLD.search_text, OLD.scope, OLD.owner))
  EXECUTE FUNCTION canon_memory_value_term_changed();
