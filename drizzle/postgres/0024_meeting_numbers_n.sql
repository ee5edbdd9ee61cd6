-- A meeting number's meeting (issue 19): the meetings a participant fragment in too many names fails are the zeros of
-- its gram's bits (migration 0023) within the numbers given, each looked up here (src/db/postgres/meetings.ts,
-- gramExceptions). ~0.1 s at 100k meetings.
CREATE UNIQUE INDEX IF NOT EXISTS "meeting_numbers_n_idx" ON "meeting_numbers" USING btree ("n");
