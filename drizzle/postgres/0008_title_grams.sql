CREATE TABLE "meeting_grams" (
	"tag" text COLLATE "C" NOT NULL,
	"started_at" text COLLATE "C" NOT NULL,
	"meeting_id" text NOT NULL,
	CONSTRAINT "meeting_grams_tag_started_at_meeting_id_pk" PRIMARY KEY("tag","started_at","meeting_id")
);
--> statement-breakpoint
CREATE TABLE "meeting_tag_counts" (
	"tag" text COLLATE "C" NOT NULL,
	"n" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "meeting_grams_meeting_idx" ON "meeting_grams" USING btree ("meeting_id");--> statement-breakpoint
CREATE INDEX "meeting_tag_counts_tag_idx" ON "meeting_tag_counts" USING btree ("tag","n");--> statement-breakpoint
-- Hand-written below (drizzle-kit generates the lines above from src/db/schema-pg/filters.ts): the grams of
-- list_meetings' short title fragments, as SQLite's meeting_terms holds them (migration 0011 there), the counts of
-- every tag and gram, and the triggers that keep them (issue 19).
--
-- ILIKE lower-cases the text and the pattern (the database's lower(), whatever its locale) and matches bytes, so
-- an all-ASCII fragment of 1-2 characters (once lower-cased) is in a title or id exactly when it is one of the
-- grams of the lower-cased title or id: each byte below 0x80 (an ASCII character: no byte of a longer UTF-8
-- character is below 0x80) and each pair of adjacent such bytes. A gram is its hex (`g65`, `g696e`).
CREATE FUNCTION syntheo_title_grams(title text, id text) RETURNS SETOF text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT DISTINCT ('g' || encode(substring(x.b FROM i FOR k.n), 'hex')) COLLATE "C"
  FROM unnest(ARRAY[convert_to(lower(title), 'UTF8'), convert_to(lower(id), 'UTF8')]) x(b)
  CROSS JOIN LATERAL generate_series(1, length(x.b)) i CROSS JOIN (VALUES (1), (2)) k(n)
  WHERE get_byte(x.b, i - 1) < 128 AND (k.n = 1 OR (i < length(x.b) AND get_byte(x.b, i) < 128)) $$;
--> statement-breakpoint
-- Every meeting's grams, written once: the triggers' refresh, the backfill and the doctor read them from here.
CREATE VIEW meeting_gram_rows AS
  SELECT g.tag, m.started_at COLLATE "C" AS started_at, m.id AS meeting_id FROM meetings m CROSS JOIN LATERAL syntheo_title_grams(m.title, m.id) g(tag);
--> statement-breakpoint
-- Brings the grams of these meetings up to date from their committed rows (each statement takes a new snapshot).
-- The meeting rows are locked first, as syntheo_refresh_meeting_tags does (the trigger below already holds them:
-- it runs for the statement that changed them), so two writers of one meeting take turns; no other lock is taken.
CREATE FUNCTION syntheo_refresh_meeting_grams(ids text[]) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF cardinality(ids) = 0 THEN RETURN; END IF;
  PERFORM 1 FROM meetings WHERE id = ANY(ids) ORDER BY id COLLATE "C" FOR NO KEY UPDATE;
  -- The new grams computed once (a hashed subplan), not once per old row.
  DELETE FROM meeting_grams t WHERE t.meeting_id = ANY(ids)
    AND (t.tag, t.started_at, t.meeting_id) NOT IN (SELECT w.tag, w.started_at, w.meeting_id FROM meeting_gram_rows w WHERE w.meeting_id = ANY(ids));
  INSERT INTO meeting_grams (tag, started_at, meeting_id) SELECT tag, started_at, meeting_id FROM meeting_gram_rows WHERE meeting_id = ANY(ids) ON CONFLICT DO NOTHING;
END $$;
--> statement-breakpoint
-- `syntheo doctor --repair-search`: these meetings' grams recomputed (whoever runs it: neither role may write the
-- tables); called with NULL once at the end: the grams of meetings that no longer exist are deleted (one pass), and
-- every tag's and gram's count recomputed.
CREATE FUNCTION syntheo_repair_meeting_grams(ids text[]) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF ids IS NULL THEN
    -- The tables locked first, so that no writer adds a gram or a delta meanwhile.
    LOCK TABLE meeting_tags, meeting_grams, meeting_tag_counts IN SHARE ROW EXCLUSIVE MODE;
    DELETE FROM meeting_grams g WHERE NOT EXISTS (SELECT 1 FROM meetings m WHERE m.id = g.meeting_id);
    DELETE FROM meeting_tag_counts;
    INSERT INTO meeting_tag_counts (tag, n) SELECT tag, count(*) FROM meeting_grams GROUP BY tag UNION ALL SELECT tag, count(*) FROM meeting_tags GROUP BY tag;
  ELSE
    PERFORM syntheo_refresh_meeting_grams(ids);
  END IF;
END $$;
--> statement-breakpoint
-- First rows, from what is there, before the triggers below exist; the keys built once, after. Writers of meetings
-- and of their tags wait (SHARE) until the migration commits.
LOCK TABLE meetings, meeting_tags IN SHARE MODE;
--> statement-breakpoint
ALTER TABLE meeting_grams DROP CONSTRAINT meeting_grams_tag_started_at_meeting_id_pk;
--> statement-breakpoint
DROP INDEX meeting_grams_meeting_idx;
--> statement-breakpoint
INSERT INTO meeting_grams (tag, started_at, meeting_id) SELECT tag, started_at, meeting_id FROM meeting_gram_rows;
--> statement-breakpoint
ALTER TABLE meeting_grams ADD CONSTRAINT meeting_grams_tag_started_at_meeting_id_pk PRIMARY KEY (tag, started_at, meeting_id);
--> statement-breakpoint
CREATE INDEX meeting_grams_meeting_idx ON meeting_grams USING btree (meeting_id);
--> statement-breakpoint
-- The counts of every tag and gram.
INSERT INTO meeting_tag_counts (tag, n) SELECT tag, count(*) FROM meeting_grams GROUP BY tag UNION ALL SELECT tag, count(*) FROM meeting_tags GROUP BY tag;
--> statement-breakpoint
-- meeting_tag_counts follows meeting_tags and meeting_grams: each statement's rows added (+) or removed (-) a tag,
-- as one delta a tag. A tag with more than 32 deltas has them summed into one row by the writer that sees it, when
-- no other writer is summing that tag (a try-lock: nobody waits). Only deltas visible to this statement are summed
-- (read committed: a new snapshot, taken after the lock, so after the previous summer's commit); rows other writers
-- add meanwhile stay as they are. Under repeatable read or serializable, whose snapshot is older, nothing is summed.
CREATE FUNCTION syntheo_meeting_tag_counts() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  tags text[];
  one text;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO meeting_tag_counts (tag, n) SELECT tag, count(*) FROM added GROUP BY tag;
    tags := array(SELECT DISTINCT tag FROM added);
  ELSE
    INSERT INTO meeting_tag_counts (tag, n) SELECT tag, -count(*) FROM removed GROUP BY tag;
    tags := array(SELECT DISTINCT tag FROM removed);
  END IF;
  IF current_setting('transaction_isolation') <> 'read committed' THEN RETURN NULL; END IF;
  FOR one IN SELECT x FROM unnest(tags) x WHERE (SELECT count(*) FROM (SELECT 1 FROM meeting_tag_counts c WHERE c.tag = x LIMIT 33) y) > 32 LOOP
    -- 1735549268: 'gram' in ASCII, the class of these locks (two-key advisory locks are apart from one-key ones).
    IF pg_try_advisory_xact_lock(1735549268, hashtext(one)) THEN
      WITH gone AS (DELETE FROM meeting_tag_counts WHERE tag = one RETURNING n)
      INSERT INTO meeting_tag_counts (tag, n) SELECT one, sum(n) FROM gone HAVING count(*) > 0;
    END IF;
  END LOOP;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER meeting_grams_counts_ai AFTER INSERT ON meeting_grams REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meeting_tag_counts();
--> statement-breakpoint
CREATE TRIGGER meeting_grams_counts_ad AFTER DELETE ON meeting_grams REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meeting_tag_counts();
--> statement-breakpoint
CREATE TRIGGER meeting_tags_counts_ai AFTER INSERT ON meeting_tags REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meeting_tag_counts();
--> statement-breakpoint
CREATE TRIGGER meeting_tags_counts_ad AFTER DELETE ON meeting_tags REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meeting_tag_counts();
--> statement-breakpoint
-- A table truncated: the counts of its tags go (grams are `g…`; no tag of meeting_tags begins with `g`).
CREATE FUNCTION syntheo_meeting_tag_counts_truncate() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF TG_TABLE_NAME = 'meeting_grams' THEN
    DELETE FROM meeting_tag_counts WHERE tag >= 'g' AND tag < 'h';
  ELSE
    DELETE FROM meeting_tag_counts WHERE tag < 'g' OR tag >= 'h';
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER meeting_grams_counts_at AFTER TRUNCATE ON meeting_grams FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meeting_tag_counts_truncate();
--> statement-breakpoint
CREATE TRIGGER meeting_tags_counts_at AFTER TRUNCATE ON meeting_tags FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meeting_tag_counts_truncate();
--> statement-breakpoint
-- Meetings inserted: their grams from the new rows (`db copy` inserts 20,000 at once; this trigger stays on
-- during the copy). Updated: only those whose title, id or start changed. Deleted: their grams go.
CREATE FUNCTION syntheo_meetings_grams() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO meeting_grams (tag, started_at, meeting_id)
      SELECT g.tag, a.started_at, a.id FROM added a CROSS JOIN LATERAL syntheo_title_grams(a.title, a.id) g(tag) ON CONFLICT DO NOTHING;
  ELSIF TG_OP = 'DELETE' THEN
    DELETE FROM meeting_grams t WHERE t.meeting_id IN (SELECT id FROM removed);
  ELSE
    PERFORM syntheo_refresh_meeting_grams(array(
      SELECT coalesce(a.id, r.id) FROM added a FULL JOIN removed r ON r.id = a.id
      WHERE a.id IS NULL OR r.id IS NULL OR a.title IS DISTINCT FROM r.title OR a.started_at IS DISTINCT FROM r.started_at));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER meetings_grams_ai AFTER INSERT ON meetings REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meetings_grams();
--> statement-breakpoint
CREATE TRIGGER meetings_grams_au AFTER UPDATE ON meetings REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meetings_grams();
--> statement-breakpoint
CREATE TRIGGER meetings_grams_ad AFTER DELETE ON meetings REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meetings_grams();
--> statement-breakpoint
CREATE FUNCTION syntheo_meeting_grams_truncate() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  TRUNCATE meeting_grams;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER meetings_grams_at AFTER TRUNCATE ON meetings FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meeting_grams_truncate();
