-- Custom SQL migration file: the writer's meeting_tally slot is locked at the START of every statement
-- that inserts or deletes meetings, before the row triggers lock a folder's or a series' counter row.
-- With the slot taken only at the end (0003), two transactions whose backends share a slot (pid % 8)
-- could each hold what the other waits for: one the slot from an earlier statement, the other a
-- folder row (folders.meeting_count) it just counted a meeting into, then waiting for the slot:
-- "deadlock detected" (seen with eight concurrent writers in test/postgres/participant-handles).
-- A transaction now takes its one slot before any counter row, so the slot is never the second lock.
CREATE FUNCTION syntheo_meeting_tally_lock() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  PERFORM 1 FROM meeting_tally WHERE slot = pg_backend_pid() % 8 FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO meeting_tally (slot, meetings) VALUES (pg_backend_pid() % 8, 0) ON CONFLICT (slot) DO NOTHING;
    PERFORM 1 FROM meeting_tally WHERE slot = pg_backend_pid() % 8 FOR UPDATE;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER meetings_tally_lock BEFORE INSERT OR DELETE ON meetings FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meeting_tally_lock();
