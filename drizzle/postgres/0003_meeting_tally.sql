CREATE TABLE "meeting_tally" (
	"slot" smallint PRIMARY KEY NOT NULL,
	"meetings" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
-- Hand-written below: the trigger that keeps meeting_tally, and its first value. Once per statement (a
-- copy inserts 20,000 meetings in one), into the writer's slot: one counter row would make every
-- transaction that adds a meeting wait for the previous one's commit.
CREATE FUNCTION syntheo_meeting_tally() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  delta bigint;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT count(*) INTO delta FROM added;
  ELSE
    SELECT -count(*) INTO delta FROM removed;
  END IF;
  IF delta <> 0 THEN
    INSERT INTO meeting_tally AS t (slot, meetings) VALUES (pg_backend_pid() % 8, delta)
      ON CONFLICT (slot) DO UPDATE SET meetings = t.meetings + excluded.meetings;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER meetings_tally_ai AFTER INSERT ON meetings REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meeting_tally();
--> statement-breakpoint
CREATE TRIGGER meetings_tally_ad AFTER DELETE ON meetings REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meeting_tally();
--> statement-breakpoint
LOCK TABLE meetings IN SHARE MODE;
--> statement-breakpoint
INSERT INTO meeting_tally (slot, meetings) SELECT 0, count(*) FROM meetings;
