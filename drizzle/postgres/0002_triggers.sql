-- Hand-written: triggers, which Drizzle cannot express. The same bookkeeping as SQLite's 0002 and 0004.
-- SECURITY DEFINER: the bookkeeping runs as the schema's owner, so the assistants' role (syntheo db roles),
-- which may insert an import's meeting but never update folders or search_passages, still keeps them right.
-- Summaries and notes are indexed for search by triggers, so every writer keeps search current.
CREATE FUNCTION syntheo_summaries_search() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    DELETE FROM search_passages WHERE ref_id = OLD.id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES (NEW.meeting_id, 'summary', NEW.id, NEW.title || chr(10) || NEW.content);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER summaries_search_ai AFTER INSERT ON summaries FOR EACH ROW EXECUTE FUNCTION syntheo_summaries_search();
--> statement-breakpoint
CREATE TRIGGER summaries_search_au AFTER UPDATE OF title, content ON summaries FOR EACH ROW EXECUTE FUNCTION syntheo_summaries_search();
--> statement-breakpoint
CREATE TRIGGER summaries_search_ad AFTER DELETE ON summaries FOR EACH ROW EXECUTE FUNCTION syntheo_summaries_search();
--> statement-breakpoint
CREATE FUNCTION syntheo_note_search() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    DELETE FROM search_passages WHERE ref_id = OLD.id AND kind = 'note';
  END IF;
  IF NEW.note <> '' THEN
    INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES (NEW.id, 'note', NEW.id, NEW.note);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER meetings_note_search_ai AFTER INSERT ON meetings FOR EACH ROW EXECUTE FUNCTION syntheo_note_search();
--> statement-breakpoint
CREATE TRIGGER meetings_note_search_au AFTER UPDATE OF note ON meetings FOR EACH ROW EXECUTE FUNCTION syntheo_note_search();
--> statement-breakpoint
-- A deleted transcript takes its passages along (they carry no foreign key to it).
CREATE FUNCTION syntheo_transcript_search_ad() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  DELETE FROM search_passages WHERE ref_id = OLD.id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER transcripts_search_ad AFTER DELETE ON transcripts FOR EACH ROW EXECUTE FUNCTION syntheo_transcript_search_ad();
--> statement-breakpoint
-- folders.meeting_count follows every insert, delete and move of a meeting.
CREATE FUNCTION syntheo_folder_count() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.folder_id IS NOT NULL THEN
    UPDATE folders SET meeting_count = meeting_count - 1 WHERE id = OLD.folder_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.folder_id IS NOT NULL THEN
    UPDATE folders SET meeting_count = meeting_count + 1 WHERE id = NEW.folder_id;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER meetings_folder_count_ai AFTER INSERT ON meetings FOR EACH ROW EXECUTE FUNCTION syntheo_folder_count();
--> statement-breakpoint
CREATE TRIGGER meetings_folder_count_ad AFTER DELETE ON meetings FOR EACH ROW EXECUTE FUNCTION syntheo_folder_count();
--> statement-breakpoint
CREATE TRIGGER meetings_folder_count_au AFTER UPDATE OF folder_id ON meetings FOR EACH ROW WHEN (OLD.folder_id IS DISTINCT FROM NEW.folder_id) EXECUTE FUNCTION syntheo_folder_count();
--> statement-breakpoint
-- Workers LISTEN on syntheo_jobs: a job that becomes queued wakes one at once (polling is the fallback).
CREATE FUNCTION syntheo_job_queued() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  PERFORM pg_notify('syntheo_jobs', NEW.id);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER recording_imports_queued_ai AFTER INSERT ON recording_imports FOR EACH ROW WHEN (NEW.status = 'queued') EXECUTE FUNCTION syntheo_job_queued();
--> statement-breakpoint
CREATE TRIGGER recording_imports_queued_au AFTER UPDATE OF status ON recording_imports FOR EACH ROW WHEN (NEW.status = 'queued' AND OLD.status IS DISTINCT FROM 'queued') EXECUTE FUNCTION syntheo_job_queued();
--> statement-breakpoint
-- Times are stored as fixed-width ISO 8601 UTC text, as on SQLite. Leases and heartbeats are taken from
-- the database's clock (workers on several machines share one clock): syntheo_at(NULL, ms) is now + ms;
-- a given time (tests, the copy) is used as is.
CREATE FUNCTION syntheo_iso(t timestamptz) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE STRICT
  AS $$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;
--> statement-breakpoint
CREATE FUNCTION syntheo_at(at text, plus_ms bigint) RETURNS text LANGUAGE sql VOLATILE PARALLEL SAFE
  AS $$ SELECT public.syntheo_iso(coalesce(at::timestamptz, clock_timestamp()) + plus_ms * interval '1 millisecond') $$;
