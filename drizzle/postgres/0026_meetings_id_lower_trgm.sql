-- The id's trigram index on lower(id) (issue 19): list_meetings matches a fragment of the id as lower(id) LIKE
-- lower(fragment), which is what ILIKE does in a UTF-8 database. On the id itself, the index served `=` as well (pg_trgm
-- 1.6), and joins on meetings.id took it for the primary key, costed as cheap: at 20,000 meetings not yet vacuumed, 29
-- participants joined to their meetings in 180 ms (6 ms a lookup), against 1.7 through the primary key.
-- Then ANALYZE: the planner has no statistics of lower(id) until it runs, and guessed a fragment of it in 1 meeting
-- of 200 (`#57` at offset 591 walked 55,000 meetings newest first, 81 ms, rather than its 1,111 from the index, 11).
DROP INDEX IF EXISTS "meetings_id_trgm_idx";--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "meetings_id_lower_trgm_idx" ON "meetings" USING gin (lower("id") gin_trgm_ops);--> statement-breakpoint
ANALYZE "meetings";
