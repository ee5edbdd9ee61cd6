-- The participants whose e-mail holds no `@` (issue 19; usually none): the meetings a participant fragment in most
-- names fails read the other participants by e-mail from the e-mails lacking it that hold an `@`, and these apart
-- (src/db/postgres/meetings.ts, handlesOf), not every name lacking it looked up as an e-mail. Instant when none.
CREATE INDEX IF NOT EXISTS "participants_odd_email_idx" ON "participants" USING btree ("meeting_id") WHERE strpos("participants"."email", '@') = 0;
