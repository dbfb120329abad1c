-- Whether a memory's claims were told as a change or a correction by a cue taken out of their
-- wording, for the candidate search. Rows written before it read false until their subject is
-- compiled again; the compiler version that brings it (canon-compiler/7) rebuilds every stored
-- subject at its next compile, which sets it.
ALTER TABLE "memories" ADD COLUMN "told_as_change" boolean DEFAULT false NOT NULL;