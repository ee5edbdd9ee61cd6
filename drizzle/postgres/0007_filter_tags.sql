CREATE TABLE "meeting_tags" (
	"tag" text COLLATE "C" NOT NULL,
	"started_at" text COLLATE "C" NOT NULL,
	"meeting_id" text NOT NULL,
	CONSTRAINT "meeting_tags_tag_started_at_meeting_id_pk" PRIMARY KEY("tag","started_at","meeting_id")
);
--> statement-breakpoint
CREATE TABLE "participant_words" (
	"word" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "search_tags" (
	"tag" text COLLATE "C" NOT NULL,
	"passage_id" bigint NOT NULL,
	CONSTRAINT "search_tags_tag_passage_id_pk" PRIMARY KEY("tag","passage_id")
);
--> statement-breakpoint
DROP INDEX "participants_name_trgm_idx";--> statement-breakpoint
DROP INDEX "participants_email_trgm_idx";--> statement-breakpoint
CREATE INDEX "meeting_tags_meeting_idx" ON "meeting_tags" USING btree ("meeting_id");--> statement-breakpoint
CREATE INDEX "participant_words_word_idx" ON "participant_words" USING btree ("word");--> statement-breakpoint
CREATE INDEX "participant_words_trgm_idx" ON "participant_words" USING gin ("word" gin_trgm_ops);--> statement-breakpoint
-- Hand-written below (drizzle-kit generates the lines above from src/db/schema-pg/filters.ts; the trigram
-- indexes of participants' names and e-mails are dropped: since 0005 no query reads them): the functions and
-- triggers that keep participant_words, meeting_tags and search_tags, and their first rows (issue 19).
--
-- The words of a participant's name and e-mail, lower-cased (ILIKE compares lower-cased text: a fragment
-- without a separator is in a name or e-mail exactly when it is in one of its words), split at the same
-- characters as SQLite's participant_words (migration 0010). Words are cut at 500 characters: a key holds at
-- most ~2,700 bytes.
CREATE FUNCTION syntheo_participant_words_of(name text, email text) RETURNS SETOF text LANGUAGE sql STABLE PARALLEL SAFE
  AS $$ SELECT left(w, 500) COLLATE "C" FROM regexp_split_to_table(lower(name || ' ' || coalesce(email, '')), '[ @.,_()/''"+;:\t\n\r-]+') w WHERE w <> '' $$;
--> statement-breakpoint
-- The calendar tags of a start: its UTC day, month and year (`d20260517 m202605 y2026`) when started_at begins
-- with a real date (proleptic Gregorian, year 0000 included, as SQLite's date()), else `dx`.
CREATE FUNCTION syntheo_day_tags(started_at text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT CASE WHEN started_at !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}' THEN ARRAY['dx']
    WHEN substr(started_at, 6, 2)::int BETWEEN 1 AND 12 AND substr(started_at, 9, 2)::int BETWEEN 1 AND CASE
      WHEN substr(started_at, 6, 2)::int = 2 THEN CASE WHEN substr(started_at, 1, 4)::int % 4 = 0 AND (substr(started_at, 1, 4)::int % 100 <> 0 OR substr(started_at, 1, 4)::int % 400 = 0) THEN 29 ELSE 28 END
      WHEN substr(started_at, 6, 2)::int IN (4, 6, 9, 11) THEN 30 ELSE 31 END
    THEN ARRAY['y' || substr(started_at, 1, 4), 'm' || substr(started_at, 1, 4) || substr(started_at, 6, 2), 'd' || substr(started_at, 1, 4) || substr(started_at, 6, 2) || substr(started_at, 9, 2)]
    ELSE ARRAY['dx'] END $$;
--> statement-breakpoint
-- Every meeting's tags, written once: the refresh below, the backfill and `db copy` read them from here.
-- Filtered by meeting id, each branch is a few index lookups of that meeting.
CREATE VIEW meeting_tag_rows AS
  SELECT ('f' || c.id) COLLATE "C" AS tag, m.started_at COLLATE "C" AS started_at, m.id AS meeting_id
    FROM meetings m CROSS JOIN LATERAL (
      WITH RECURSIVE chain(id, parent, depth) AS (
        SELECT f.id, f.parent_id, 0 FROM folders f WHERE f.id = m.folder_id
        UNION ALL SELECT f.id, f.parent_id, c.depth + 1 FROM folders f JOIN chain c ON f.id = c.parent WHERE c.depth < 64)
      SELECT DISTINCT id FROM chain) c
  UNION ALL SELECT ('s' || m.series_id) COLLATE "C", m.started_at COLLATE "C", m.id FROM meetings m WHERE m.series_id IS NOT NULL
  UNION ALL SELECT d.tag COLLATE "C", m.started_at COLLATE "C", m.id FROM meetings m CROSS JOIN LATERAL unnest(syntheo_day_tags(m.started_at)) d(tag)
  UNION ALL SELECT DISTINCT ('p' || w.word) COLLATE "C", m.started_at COLLATE "C", m.id
    FROM meetings m JOIN participants p ON p.meeting_id = m.id CROSS JOIN LATERAL syntheo_participant_words_of(p.name, p.email) w(word);
--> statement-breakpoint
-- Brings the tags of these meetings up to date. Their rows are locked first (FOR NO KEY UPDATE, which
-- neither a foreign key check nor a reader waits for), so two transactions changing one meeting's folder,
-- participants or passages take turns, and each reads the other's committed rows (each statement below
-- takes a new snapshot): the last one writes the tags of what is committed.
CREATE FUNCTION syntheo_refresh_meeting_tags(ids text[]) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF cardinality(ids) = 0 THEN RETURN; END IF;
  PERFORM 1 FROM meetings WHERE id = ANY(ids) ORDER BY id COLLATE "C" FOR NO KEY UPDATE;
  DELETE FROM meeting_tags t WHERE t.meeting_id = ANY(ids)
    AND NOT EXISTS (SELECT 1 FROM meeting_tag_rows w WHERE w.meeting_id = t.meeting_id AND w.tag = t.tag AND w.started_at = t.started_at);
  INSERT INTO meeting_tags (tag, started_at, meeting_id) SELECT tag, started_at, meeting_id FROM meeting_tag_rows WHERE meeting_id = ANY(ids) ON CONFLICT DO NOTHING;
END $$;
--> statement-breakpoint
-- `syntheo doctor --repair-search`: these meetings' tags recomputed, and their passages' search_tags made exactly
-- their meetings' tags (whoever runs it: neither role may write the tables).
-- Called with NULL once at the end: every search_tags row that no passage's meeting has is deleted (one pass).
CREATE FUNCTION syntheo_repair_filter_tags(ids text[]) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF ids IS NULL THEN
    DELETE FROM search_tags s WHERE NOT EXISTS (
      SELECT 1 FROM search_passages p JOIN meeting_tags t ON t.meeting_id = p.meeting_id WHERE p.id = s.passage_id AND t.tag = s.tag);
    RETURN;
  END IF;
  PERFORM syntheo_refresh_meeting_tags(ids);
  INSERT INTO search_tags (tag, passage_id) SELECT t.tag, p.id FROM meeting_tags t JOIN search_passages p ON p.meeting_id = t.meeting_id
    WHERE t.meeting_id = ANY(ids) ON CONFLICT DO NOTHING;
END $$;
--> statement-breakpoint
-- First rows, from what is there, before the triggers below exist (the same statements `db copy` runs once at its end,
-- its triggers set aside). Writers wait (SHARE) until the migration commits.
LOCK TABLE folders, meetings, participants, search_passages IN SHARE MODE;
--> statement-breakpoint
INSERT INTO participant_words (word) SELECT DISTINCT w.word FROM participants p CROSS JOIN LATERAL syntheo_participant_words_of(p.name, p.email) w(word);
--> statement-breakpoint
INSERT INTO meeting_tags (tag, started_at, meeting_id) SELECT tag, started_at, meeting_id FROM meeting_tag_rows;
--> statement-breakpoint
INSERT INTO search_tags (tag, passage_id) SELECT t.tag, p.id FROM meeting_tags t JOIN search_passages p ON p.meeting_id = t.meeting_id ORDER BY 1, 2;
--> statement-breakpoint
CREATE FUNCTION syntheo_meetings_tags() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM syntheo_refresh_meeting_tags(array(SELECT id FROM added));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM syntheo_refresh_meeting_tags(array(SELECT id FROM removed));
  ELSE
    -- Only the meetings whose folder, series, start or id changed (a note's edit changes no tag).
    PERFORM syntheo_refresh_meeting_tags(array(
      SELECT coalesce(a.id, r.id) FROM added a FULL JOIN removed r ON r.id = a.id
      WHERE a.id IS NULL OR r.id IS NULL OR a.folder_id IS DISTINCT FROM r.folder_id OR a.series_id IS DISTINCT FROM r.series_id OR a.started_at IS DISTINCT FROM r.started_at));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER meetings_tags_ai AFTER INSERT ON meetings REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meetings_tags();
--> statement-breakpoint
CREATE TRIGGER meetings_tags_au AFTER UPDATE ON meetings REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meetings_tags();
--> statement-breakpoint
CREATE TRIGGER meetings_tags_ad AFTER DELETE ON meetings REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meetings_tags();
--> statement-breakpoint
-- folders.meeting_count (0002) as before, but a meeting moved takes its two folders' rows in id order: moved
-- one each way between two folders at once, two writers each held one row and waited for the other's
-- ("deadlock detected" in test/postgres/filter-tags.test.ts, with or without the tags).
CREATE OR REPLACE FUNCTION syntheo_folder_count() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.folder_id IS NOT NULL AND NEW.folder_id IS NOT NULL THEN
    PERFORM 1 FROM folders WHERE id IN (OLD.folder_id, NEW.folder_id) ORDER BY id FOR NO KEY UPDATE;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.folder_id IS NOT NULL THEN
    UPDATE folders SET meeting_count = meeting_count - 1 WHERE id = OLD.folder_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.folder_id IS NOT NULL THEN
    UPDATE folders SET meeting_count = meeting_count + 1 WHERE id = NEW.folder_id;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- A meeting deleted: its passages' tags go first. Its passages and its tags are then deleted by cascades whose
-- statement triggers run only after both are gone, so neither could find the other's rows.
CREATE FUNCTION syntheo_meetings_tags_bd() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  DELETE FROM search_tags s USING meeting_tags t, search_passages p
    WHERE t.meeting_id = OLD.id AND p.meeting_id = OLD.id AND s.tag = t.tag AND s.passage_id = p.id;
  RETURN OLD;
END $$;
--> statement-breakpoint
CREATE TRIGGER meetings_tags_bd BEFORE DELETE ON meetings FOR EACH ROW EXECUTE FUNCTION syntheo_meetings_tags_bd();
--> statement-breakpoint
CREATE FUNCTION syntheo_meeting_tags_truncate() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  TRUNCATE meeting_tags;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER meetings_tags_at AFTER TRUNCATE ON meetings FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meeting_tags_truncate();
--> statement-breakpoint
-- Participants: their words (added unless already visible; no unique key, as participant_handles, so no
-- writer waits for another's uncommitted word; never removed), then their meetings' tags.
CREATE FUNCTION syntheo_participants_tags() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO participant_words (word)
      SELECT DISTINCT w.word FROM added a CROSS JOIN LATERAL syntheo_participant_words_of(a.name, a.email) w(word)
      WHERE NOT EXISTS (SELECT 1 FROM participant_words x WHERE x.word = w.word);
  END IF;
  IF TG_OP = 'INSERT' THEN
    PERFORM syntheo_refresh_meeting_tags(array(SELECT DISTINCT meeting_id FROM added));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM syntheo_refresh_meeting_tags(array(SELECT DISTINCT meeting_id FROM removed));
  ELSE
    PERFORM syntheo_refresh_meeting_tags(array(SELECT meeting_id FROM added UNION SELECT meeting_id FROM removed));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER participants_tags_ai AFTER INSERT ON participants REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_participants_tags();
--> statement-breakpoint
CREATE TRIGGER participants_tags_au AFTER UPDATE ON participants REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_participants_tags();
--> statement-breakpoint
CREATE TRIGGER participants_tags_ad AFTER DELETE ON participants REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION syntheo_participants_tags();
--> statement-breakpoint
-- A folder moved under another parent: the meetings of its subtree change ancestors.
CREATE FUNCTION syntheo_folders_tags() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  PERFORM syntheo_refresh_meeting_tags(array(
    WITH RECURSIVE sub(id, depth) AS (SELECT NEW.id, 0 UNION ALL SELECT f.id, s.depth + 1 FROM folders f JOIN sub s ON f.parent_id = s.id WHERE s.depth < 64)
    SELECT m.id FROM meetings m WHERE m.folder_id IN (SELECT id FROM sub)));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER folders_tags_au AFTER UPDATE OF parent_id ON folders FOR EACH ROW WHEN (OLD.parent_id IS DISTINCT FROM NEW.parent_id) EXECUTE FUNCTION syntheo_folders_tags();
--> statement-breakpoint
-- search_tags follows meeting_tags (a meeting's tags onto each of its passages) and search_passages (a
-- passage gets its meeting's tags). A tag leaves a passage only when its meeting no longer has it at any
-- start (a start moved is a delete and an insert of the same tag), so the order of the two does not matter.
CREATE FUNCTION syntheo_meeting_tags_search() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM search_tags s USING removed r, search_passages p
      WHERE p.meeting_id = r.meeting_id AND s.tag = r.tag AND s.passage_id = p.id
        AND NOT EXISTS (SELECT 1 FROM meeting_tags k WHERE k.meeting_id = r.meeting_id AND k.tag = r.tag);
  ELSE
    INSERT INTO search_tags (tag, passage_id) SELECT a.tag, p.id FROM added a JOIN search_passages p ON p.meeting_id = a.meeting_id ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER meeting_tags_search_ai AFTER INSERT ON meeting_tags REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meeting_tags_search();
--> statement-breakpoint
CREATE TRIGGER meeting_tags_search_ad AFTER DELETE ON meeting_tags REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meeting_tags_search();
--> statement-breakpoint
-- Passages written or deleted: their meetings locked first (see syntheo_refresh_meeting_tags), so a
-- concurrent change of a meeting's tags either sees these passages or is seen by this trigger.
CREATE FUNCTION syntheo_passages_tags() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM 1 FROM meetings WHERE id IN (SELECT meeting_id FROM removed) ORDER BY id COLLATE "C" FOR NO KEY UPDATE;
    DELETE FROM search_tags s USING removed r, meeting_tags t WHERE t.meeting_id = r.meeting_id AND s.tag = t.tag AND s.passage_id = r.id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM 1 FROM meetings WHERE id IN (SELECT meeting_id FROM added) ORDER BY id COLLATE "C" FOR NO KEY UPDATE;
    INSERT INTO search_tags (tag, passage_id) SELECT DISTINCT t.tag, a.id FROM added a JOIN meeting_tags t ON t.meeting_id = a.meeting_id ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER search_passages_tags_ai AFTER INSERT ON search_passages REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_passages_tags();
--> statement-breakpoint
CREATE TRIGGER search_passages_tags_au AFTER UPDATE ON search_passages REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_passages_tags();
--> statement-breakpoint
CREATE TRIGGER search_passages_tags_ad AFTER DELETE ON search_passages REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION syntheo_passages_tags();
--> statement-breakpoint
CREATE FUNCTION syntheo_search_tags_truncate() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  TRUNCATE search_tags;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER search_passages_tags_at AFTER TRUNCATE ON search_passages FOR EACH STATEMENT EXECUTE FUNCTION syntheo_search_tags_truncate();
