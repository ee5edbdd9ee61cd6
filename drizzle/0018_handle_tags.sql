-- Each participant's name and e-mail (participant_handles, migration 0017) is a filter tag of its meeting: `h` + the
-- handle's id, in meetings.search_tags (so in meeting_tags, meeting_terms and each passage's search_fts row). A
-- `participant` fragment across words ("Ines Kowalski": 38 names, 7,381 of 100k meetings) is then a group of tags the
-- index intersects with the words, like a participant word, instead of the meetings read from the participants and
-- their passages read meeting by meeting (src/db/queries/meetings.ts). PostgreSQL has had them since its 0015.
--
-- The participants' triggers add the handles themselves before the tags are computed (a trigger that reads the view
-- must find the handle row; SQLite fires the newest trigger first, so the two triggers of 0017 go).
DROP TRIGGER `participants_handles_ai`;
--> statement-breakpoint
DROP TRIGGER `participants_handles_au`;
--> statement-breakpoint
DROP TRIGGER `participants_search_tags_ai`;
--> statement-breakpoint
DROP TRIGGER `participants_search_tags_au`;
--> statement-breakpoint
CREATE TRIGGER `participants_search_tags_ai` AFTER INSERT ON `participants` BEGIN
  INSERT OR IGNORE INTO participant_handles (handle) SELECT new.name UNION ALL SELECT new.email WHERE new.email IS NOT NULL;
  INSERT OR IGNORE INTO participant_words (word)
    WITH RECURSIVE split(rest, word) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(new.name || ' ' || coalesce(new.email, ''), '@', ' '), '.', ' '), ',', ' '), '-', ' '), '_', ' '), '(', ' '), ')', ' '), '/', ' '), '''', ' '), '"', ' '), '+', ' '), ';', ' '), ':', ' '), char(9), ' '), char(10), ' '), char(13), ' ') || ' ', NULL UNION ALL SELECT substr(rest, instr(rest, ' ') + 1), substr(rest, 1, instr(rest, ' ') - 1) FROM split WHERE rest != '')
    SELECT DISTINCT word FROM split WHERE word != '';
  UPDATE meetings SET search_tags = (SELECT tags FROM meeting_search_tags v WHERE v.meeting_id = meetings.id) WHERE id = new.meeting_id;
END;
--> statement-breakpoint
CREATE TRIGGER `participants_search_tags_au` AFTER UPDATE OF name, email, meeting_id ON `participants` BEGIN
  INSERT OR IGNORE INTO participant_handles (handle) SELECT new.name UNION ALL SELECT new.email WHERE new.email IS NOT NULL;
  INSERT OR IGNORE INTO participant_words (word)
    WITH RECURSIVE split(rest, word) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(new.name || ' ' || coalesce(new.email, ''), '@', ' '), '.', ' '), ',', ' '), '-', ' '), '_', ' '), '(', ' '), ')', ' '), '/', ' '), '''', ' '), '"', ' '), '+', ' '), ';', ' '), ':', ' '), char(9), ' '), char(10), ' '), char(13), ' ') || ' ', NULL UNION ALL SELECT substr(rest, instr(rest, ' ') + 1), substr(rest, 1, instr(rest, ' ') - 1) FROM split WHERE rest != '')
    SELECT DISTINCT word FROM split WHERE word != '';
  UPDATE meetings SET search_tags = (SELECT tags FROM meeting_search_tags v WHERE v.meeting_id = meetings.id) WHERE id IN (old.meeting_id, new.meeting_id);
END;
--> statement-breakpoint
DROP VIEW `meeting_search_tags`;
--> statement-breakpoint
-- As in 0010, with the handles' tags after the participant words'.
CREATE VIEW `meeting_search_tags` AS SELECT meetings.id AS meeting_id, trim(
    coalesce((WITH RECURSIVE chain(id, parent, depth) AS (
        SELECT id, parent_id, 0 FROM folders WHERE id = meetings.folder_id
        UNION ALL SELECT f.id, f.parent_id, c.depth + 1 FROM folders f JOIN chain c ON f.id = c.parent WHERE c.depth < 64)
      SELECT group_concat('f' || hex(id), ' ') FROM chain), '')
    || CASE WHEN meetings.series_id IS NULL THEN '' ELSE ' s' || hex(meetings.series_id) END
    || coalesce(' ' || (SELECT group_concat('p' || w.id, ' ' ORDER BY w.id) FROM (
        WITH RECURSIVE split(rest, word) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(p.name || ' ' || coalesce(p.email, ''), '@', ' '), '.', ' '), ',', ' '), '-', ' '), '_', ' '), '(', ' '), ')', ' '), '/', ' '), '''', ' '), '"', ' '), '+', ' '), ';', ' '), ':', ' '), char(9), ' '), char(10), ' '), char(13), ' ') || ' ', NULL FROM participants p WHERE p.meeting_id = meetings.id UNION ALL SELECT substr(rest, instr(rest, ' ') + 1), substr(rest, 1, instr(rest, ' ') - 1) FROM split WHERE rest != '')
        SELECT DISTINCT word FROM split WHERE word != '') s JOIN participant_words w ON w.word = s.word), '')
    || coalesce(' ' || (SELECT group_concat('h' || h.id, ' ' ORDER BY h.id) FROM (
        SELECT DISTINCT h.id FROM participants p JOIN participant_handles h ON h.handle IN (p.name, p.email) WHERE p.meeting_id = meetings.id) h), '')
    || CASE WHEN date(substr(meetings.started_at, 1, 10)) IS substr(meetings.started_at, 1, 10)
         THEN ' y' || substr(meetings.started_at, 1, 4) || ' m' || substr(meetings.started_at, 1, 4) || substr(meetings.started_at, 6, 2)
           || ' d' || substr(meetings.started_at, 1, 4) || substr(meetings.started_at, 6, 2) || substr(meetings.started_at, 9, 2)
         ELSE ' dx' END) AS tags FROM meetings;
--> statement-breakpoint
-- Backfill. Every name and e-mail has its handle (as 0017 made them; a repaired or hand-edited file may lack some).
INSERT OR IGNORE INTO participant_handles (handle) SELECT name FROM participants UNION SELECT email FROM participants WHERE email IS NOT NULL;
--> statement-breakpoint
-- The new tags are written set by set, not meeting by meeting through the triggers (each passage's index row
-- deleted and written again, its bits marked stale): those four triggers are set aside and put back below as they
-- were. The passages keep their ids, words and other tags, so the word counts and the search bitmaps stay true.
DROP TRIGGER `search_passages_au`;
--> statement-breakpoint
DROP TRIGGER `search_passages_bits_au`;
--> statement-breakpoint
DROP TRIGGER `meetings_search_tags_au`;
--> statement-breakpoint
DROP TRIGGER `meetings_terms_tags_au`;
--> statement-breakpoint
UPDATE meetings SET search_tags = (SELECT tags FROM meeting_search_tags v WHERE v.meeting_id = meetings.id);
--> statement-breakpoint
UPDATE search_passages SET tags = coalesce((SELECT search_tags FROM meetings WHERE id = search_passages.meeting_id), '')
  WHERE tags IS NOT coalesce((SELECT search_tags FROM meetings WHERE id = search_passages.meeting_id), '');
--> statement-breakpoint
-- Only the new tags are missing from meeting_tags (its other rows were split from the same tags).
INSERT OR IGNORE INTO meeting_tags (tag, started_at, meeting_id)
  SELECT j.value, m.started_at, m.id FROM meetings m, json_each('["' || replace(m.search_tags, ' ', '","') || '"]') j WHERE substr(j.value, 1, 1) = 'h';
--> statement-breakpoint
-- meeting_terms written again whole (its rows of every meeting with participants change): see meetings_terms_tags_au
-- below for the rows it may hold twice.
INSERT INTO meeting_terms (meeting_terms) VALUES ('delete-all');
--> statement-breakpoint
INSERT INTO meeting_terms (meeting_terms, rank) VALUES ('hashsize', 67108864);
--> statement-breakpoint
INSERT INTO meeting_terms (rowid, tags, grams) SELECT key, tags, grams FROM meeting_list_terms;
--> statement-breakpoint
INSERT INTO meeting_terms (meeting_terms, rank) VALUES ('hashsize', 1048576);
--> statement-breakpoint
INSERT INTO meeting_terms (meeting_terms) VALUES ('optimize');
--> statement-breakpoint
-- The index built again from the passages, holding up to 256 MiB in memory before it writes a segment (as the bulk
-- writers do, src/db/queries/bulk-index.ts: with FTS5's default of 1 MiB, hundreds of segments, and every doclist
-- read across them), then FTS5's default again.
INSERT INTO search_fts (search_fts, rank) VALUES ('hashsize', 268435456);
--> statement-breakpoint
INSERT INTO search_fts (search_fts) VALUES ('rebuild');
--> statement-breakpoint
INSERT INTO search_fts (search_fts, rank) VALUES ('hashsize', 1048576);
--> statement-breakpoint
-- Each passage is longer by its new tags, and BM25 counts every column's tokens (src/db/queries/rank.ts): the kept
-- lengths (`size:`, migration 0016) are built again by the worker's rounds (until then, the window's rows are read).
DELETE FROM search_bits WHERE term = 'size:';
--> statement-breakpoint
UPDATE search_bits_terms SET built = 0 WHERE term = 'size:';
--> statement-breakpoint
CREATE TRIGGER `search_passages_au` AFTER UPDATE OF id, text, tags ON `search_passages` BEGIN
  INSERT INTO search_fts (search_fts, rowid, text, tags) VALUES ('delete', old.id, old.text, old.tags);
  INSERT INTO search_fts (rowid, text, tags) VALUES (new.id, new.text, new.tags);
END;
--> statement-breakpoint
CREATE TRIGGER `search_passages_bits_au` AFTER UPDATE OF id, text, tags ON `search_passages` WHEN old.id < (SELECT reserved FROM search_bits_state) * 4096 OR new.id < (SELECT reserved FROM search_bits_state) * 4096 BEGIN
  INSERT OR IGNORE INTO search_bits_dirty (passage_id) SELECT old.id WHERE old.id < (SELECT reserved FROM search_bits_state) * 4096;
  INSERT OR IGNORE INTO search_bits_dirty (passage_id) SELECT new.id WHERE new.id < (SELECT reserved FROM search_bits_state) * 4096;
END;
--> statement-breakpoint
CREATE TRIGGER `meetings_search_tags_au` AFTER UPDATE OF search_tags ON `meetings` WHEN old.search_tags IS NOT new.search_tags BEGIN
  UPDATE search_passages SET tags = new.search_tags WHERE meeting_id = new.id AND tags IS NOT new.search_tags;
  DELETE FROM meeting_tags WHERE meeting_id = new.id;
  INSERT OR IGNORE INTO meeting_tags (tag, started_at, meeting_id)
    SELECT value, new.started_at, new.id FROM json_each('["' || replace(new.search_tags, ' ', '","') || '"]') WHERE value != '';
END;
--> statement-breakpoint
-- The meeting's row deleted, then written: not INSERT OR REPLACE, which the conflict clause of the statement that fires
-- the trigger overrides (an upsert; the UPDATE of a folder's deletion, ON DELETE SET NULL), and FTS5 cannot see that a
-- contentless table already holds the rowid: the row kept its old tags too (a meeting still listed under its old folder).
CREATE TRIGGER `meetings_terms_tags_au` AFTER UPDATE OF search_tags ON `meetings` WHEN old.search_tags IS NOT new.search_tags BEGIN
  DELETE FROM meeting_terms WHERE rowid = (SELECT key FROM meeting_keys WHERE meeting_id = new.id);
  INSERT INTO meeting_terms (rowid, tags, grams) SELECT key, tags, grams FROM meeting_list_terms WHERE meeting_id = new.id;
END;
