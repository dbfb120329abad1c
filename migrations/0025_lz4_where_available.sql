-- Large values (a key's timeline, a scanned document's body, a wide dispute's summary) are
-- compressed by PostgreSQL when they pass 2 kB. Its default, pglz, took about 0.2 ms per
-- 34 kB timeline: 0.4 s of a 100,000-episode first compile's 2,000 memory rows, where lz4
-- takes 0.04 s for the same size on disk. lz4 exists only in servers built with it (the
-- packaged ones are; the embedded server is not), so the change is made where it is
-- available and skipped where it is not: values already stored keep their compression, and
-- reading either is transparent.
DO $$
DECLARE
  col text;
BEGIN
  FOREACH col IN ARRAY ARRAY[
    'memories.timeline', 'memories.summary', 'memories.candidates', 'memories.side',
    'episodes.body', 'claims.claim', 'changes.before', 'changes.after', 'compile_runs.result'
  ] LOOP
    EXECUTE format('ALTER TABLE %I ALTER COLUMN %I SET COMPRESSION lz4', split_part(col, '.', 1), split_part(col, '.', 2));
  END LOOP;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END $$;
