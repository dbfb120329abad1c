-- What a candidate shows on another memory's page, kept apart from the summary: recall of a page
-- reads it for every candidate off the page. Older rows keep null and are read from their summary
-- until their memory is next written (or the subject rebuilt).
ALTER TABLE "memories" ADD COLUMN "side" jsonb;
