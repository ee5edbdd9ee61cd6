-- (drizzle-kit's CREATE TABLE and ALTER TABLE ADD CONSTRAINT, made one statement that runs again: tests put a database
-- back to before 0013 and open it, which runs 0013 and every later migration again.)
CREATE TABLE IF NOT EXISTS "meeting_tag_versions" (
	"meeting_id" text PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 1 NOT NULL,
	CONSTRAINT "meeting_tag_versions_meeting_id_meetings_id_fk" FOREIGN KEY ("meeting_id") REFERENCES "public"."meetings"("id") ON DELETE cascade ON UPDATE no action
);--> statement-breakpoint
-- Hand-written below (drizzle-kit generates the lines above from src/db/schema-pg/filters.ts): a meeting's tags and
-- its passages' tags kept right under any isolation level.
--
-- 0007 and 0014 lock the meetings' rows (FOR NO KEY UPDATE) before a write of their tags or passages, so that two
-- writers take turns and, in read committed, each statement after the lock reads the other's commit. Under repeatable
-- read or serializable a transaction reads its older snapshot instead, and a lock is a conflict (40001) only when the
-- other writer changed the row, not when it merely locked it. So a transaction that began before another's passage
-- of a meeting was committed, then re-dated the meeting, wrote the new day onto the passages it saw: the other
-- passage kept the old day (found by the bitmaps' test: one passage counted in a range its meeting had left). And a
-- passage written by a transaction older than a participant's insert lacked the participant's tags.
--
-- Now each such writer also raises its meetings' versions (meeting_tag_versions) after the lock, in the same order:
-- both write one row, so the older transaction is refused and retries; in read committed nothing waits more than
-- before (only the holder of a meeting's lock writes its version).
CREATE OR REPLACE FUNCTION syntheo_lock_meetings_for_tags(ids text[]) RETURNS void LANGUAGE plpgsql SET search_path = public AS $$
BEGIN
  PERFORM 1 FROM meetings WHERE id = ANY(ids) ORDER BY id COLLATE "C" FOR NO KEY UPDATE;
  -- (A deleted meeting has no version: its passages and tags go with it.)
  INSERT INTO meeting_tag_versions AS v (meeting_id) SELECT id FROM meetings WHERE id = ANY(ids) ORDER BY id COLLATE "C"
    ON CONFLICT (meeting_id) DO UPDATE SET version = v.version + 1;
END $$;
--> statement-breakpoint
-- Only the triggers and the repair call it (they run as this owner).
REVOKE EXECUTE ON FUNCTION syntheo_lock_meetings_for_tags(text[]) FROM PUBLIC;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION syntheo_refresh_meeting_tags(ids text[]) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF cardinality(ids) = 0 THEN RETURN; END IF;
  PERFORM syntheo_lock_meetings_for_tags(ids);
  WITH wanted AS MATERIALIZED (SELECT w.tag, w.started_at, w.meeting_id FROM meeting_tag_rows w WHERE w.meeting_id = ANY(ids))
  DELETE FROM meeting_tags t WHERE t.meeting_id = ANY(ids)
    AND NOT EXISTS (SELECT 1 FROM wanted w WHERE w.meeting_id = t.meeting_id AND w.tag = t.tag AND w.started_at = t.started_at);
  INSERT INTO meeting_tags (tag, started_at, meeting_id) SELECT tag, started_at, meeting_id FROM meeting_tag_rows WHERE meeting_id = ANY(ids) ON CONFLICT DO NOTHING;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION syntheo_passages_tags() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM syntheo_lock_meetings_for_tags(array(SELECT DISTINCT meeting_id FROM added));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM syntheo_lock_meetings_for_tags(array(SELECT DISTINCT meeting_id FROM removed));
  ELSE
    PERFORM syntheo_lock_meetings_for_tags(array(SELECT meeting_id FROM added UNION SELECT meeting_id FROM removed));
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    DELETE FROM search_tags s USING removed r, meeting_tags t WHERE t.meeting_id = r.meeting_id AND s.tag = t.tag AND s.passage_id = r.id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO search_tags (tag, passage_id) SELECT DISTINCT t.tag, a.id FROM added a JOIN meeting_tags t ON t.meeting_id = a.meeting_id ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Roles made by `syntheo db roles` before this migration got write privileges on the new table (their default
-- privileges): neither may write it (only the triggers do), as that command now says.
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT DISTINCT grantee FROM information_schema.role_table_grants
    WHERE table_schema = current_schema() AND table_name = 'meeting_tag_versions'
      AND privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE') AND grantee NOT IN (current_user, 'PUBLIC')
  LOOP
    EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON meeting_tag_versions FROM %I', r.grantee);
  END LOOP;
END $$;
