-- Custom SQL migration file: each participant's whole name and e-mail as a filter tag of its meeting (issue 19).
-- A `participant` fragment that may span words (`Ines Kowalski`) was matched against participant_handles, then its
-- meetings read participant by participant and each match of the search joined to its meeting: `the` + `Ines
-- Kowalski` (38 names, 7,381 meetings, 29,028 passages at 100k meetings) took 150-300 ms, and reading those
-- meetings' passages alone, 7,381 index lookups, 50-90 ms. As tags (`h` and the md5 of the name or e-mail, so any
-- length fits a key), the matched names are a group of tags like a participant word's: a meeting's from 38 key ranges
-- of meeting_tags, a passage's from 38 of search_tags, and the bitmaps of the dense words test them (bitmaps.ts).
-- At 100k meetings (400k participants, each with a name and an e-mail): 800k meeting_tags rows and 3.1M search_tags
-- rows more (search_tags held 8.5M); the migration took 52 s there.
CREATE OR REPLACE FUNCTION syntheo_handle_tag(handle text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$ SELECT 'h' || md5(handle) $$;
--> statement-breakpoint
-- Every meeting's names and e-mails as tags: a branch of meeting_tag_rows, and the first rows below.
CREATE OR REPLACE VIEW meeting_handle_tag_rows AS
  SELECT DISTINCT syntheo_handle_tag(h.handle) COLLATE "C" AS tag, m.started_at COLLATE "C" AS started_at, m.id AS meeting_id
    FROM meetings m JOIN participants p ON p.meeting_id = m.id CROSS JOIN LATERAL (VALUES (p.name), (p.email)) h(handle) WHERE h.handle IS NOT NULL;
--> statement-breakpoint
-- 0007's view with the names and e-mails added (the last branch); every writer refreshes tags from it. Filtered by
-- meeting id, the filter goes into the names' view too (an index lookup of the meeting, as in the other branches).
CREATE OR REPLACE VIEW meeting_tag_rows AS
  SELECT ('f' || c.id) COLLATE "C" AS tag, m.started_at COLLATE "C" AS started_at, m.id AS meeting_id
    FROM meetings m CROSS JOIN LATERAL (
      WITH RECURSIVE chain(id, parent, depth) AS (
        SELECT f.id, f.parent_id, 0 FROM folders f WHERE f.id = m.folder_id
        UNION ALL SELECT f.id, f.parent_id, c.depth + 1 FROM folders f JOIN chain c ON f.id = c.parent WHERE c.depth < 64)
      SELECT DISTINCT id FROM chain) c
  UNION ALL SELECT ('s' || m.series_id) COLLATE "C", m.started_at COLLATE "C", m.id FROM meetings m WHERE m.series_id IS NOT NULL
  UNION ALL SELECT d.tag COLLATE "C", m.started_at COLLATE "C", m.id FROM meetings m CROSS JOIN LATERAL unnest(syntheo_day_tags(m.started_at)) d(tag)
  UNION ALL SELECT DISTINCT ('p' || w.word) COLLATE "C", m.started_at COLLATE "C", m.id
    FROM meetings m JOIN participants p ON p.meeting_id = m.id CROSS JOIN LATERAL syntheo_participant_words_of(p.name, p.email) w(word)
  UNION ALL SELECT tag, started_at, meeting_id FROM meeting_handle_tag_rows;
--> statement-breakpoint
-- First rows. Writers wait (SHARE) until the migration commits. No kept bitmap is of an `h` tag (there were none), so
-- the new search_tags rows change none: their blocks are not marked stale (all of them would be, and every common
-- search would count from the rows until the worker had built them all again).
LOCK TABLE folders, meetings, participants, search_passages IN SHARE MODE;
--> statement-breakpoint
ALTER TABLE search_tags DISABLE TRIGGER search_tags_bitmaps_ai;
--> statement-breakpoint
INSERT INTO meeting_tags (tag, started_at, meeting_id) SELECT tag, started_at, meeting_id FROM meeting_handle_tag_rows ON CONFLICT DO NOTHING;
--> statement-breakpoint
ALTER TABLE search_tags ENABLE TRIGGER search_tags_bitmaps_ai;
