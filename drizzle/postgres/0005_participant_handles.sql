CREATE TABLE "participant_handles" (
	"handle" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "participant_handles_handle_idx" ON "participant_handles" USING btree ("handle");--> statement-breakpoint
CREATE INDEX "participant_handles_trgm_idx" ON "participant_handles" USING gin ("handle" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "participants_name_meeting_idx" ON "participants" USING btree ("name","meeting_id");--> statement-breakpoint
CREATE INDEX "participants_email_meeting_idx" ON "participants" USING btree ("email","meeting_id");--> statement-breakpoint
-- Hand-written below (drizzle-kit generates the lines above from src/db/schema-pg/meetings.ts): the
-- trigger that keeps participant_handles a superset of the participants' names and e-mails, and its
-- first content. Once per statement (a copy inserts 2,000 participants in one). No unique key, on
-- purpose: a handle is added unless one is already visible, so two writers adding the same new name
-- may both add it (a repeat matches the same meetings), but no writer ever waits for another's
-- uncommitted handle (with a unique key, eight writers inserting meetings deadlocked: a handle's wait
-- crossed the folder counters' row locks). Handles are never removed: one nobody carries any more
-- matches no meeting, and removing it could race a writer that saw it and added the name again.
CREATE FUNCTION syntheo_participant_handles() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  INSERT INTO participant_handles (handle)
    SELECT x.handle FROM (SELECT name AS handle FROM added UNION SELECT email FROM added WHERE email IS NOT NULL) x
    WHERE NOT EXISTS (SELECT 1 FROM participant_handles h WHERE h.handle = x.handle);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER participants_handles_ai AFTER INSERT ON participants REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_participant_handles();
--> statement-breakpoint
CREATE TRIGGER participants_handles_au AFTER UPDATE ON participants REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_participant_handles();
--> statement-breakpoint
LOCK TABLE participants IN SHARE MODE;
--> statement-breakpoint
INSERT INTO participant_handles (handle) SELECT name FROM participants UNION SELECT email FROM participants WHERE email IS NOT NULL;
