-- A meeting with no participants carries the tag `hx` (meeting_tags, so search_tags for its passages), as on SQLite
-- (its migration 0024). A `participant` fragment held by most names (a letter, a domain: `e` or `example.test` in
-- 3,118 or 2,000 of the 4,000 names and e-mails at 100k meetings) passes most meetings: the few it fails are those
-- whose every participant lacks it, found from the names and e-mails that lack it and from this tag
-- (src/db/postgres/meetings.ts), where every match of a search was joined to the participants (`the` + `e`: 1.9 s)
-- and a list counted every meeting's (`e`: 420 ms). Every writer refreshes a meeting's tags from this view.
--
-- 0015's view with a last branch: the meetings without participants. Filtered by meeting id (as every writer reads
-- it), an index lookup of each meeting's participants.
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
  UNION ALL SELECT tag, started_at, meeting_id FROM meeting_handle_tag_rows
  UNION ALL SELECT 'hx' COLLATE "C", m.started_at COLLATE "C", m.id FROM meetings m WHERE NOT EXISTS (SELECT 1 FROM participants p WHERE p.meeting_id = m.id);
--> statement-breakpoint
-- First rows (their passages' search_tags follow from meeting_tags' trigger). Writers wait (SHARE) until the migration
-- commits.
LOCK TABLE folders, meetings, participants, search_passages IN SHARE MODE;
--> statement-breakpoint
INSERT INTO meeting_tags (tag, started_at, meeting_id)
  SELECT 'hx', m.started_at, m.id FROM meetings m WHERE NOT EXISTS (SELECT 1 FROM participants p WHERE p.meeting_id = m.id) ON CONFLICT DO NOTHING;
