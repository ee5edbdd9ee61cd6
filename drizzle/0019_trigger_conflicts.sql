-- A trigger's INSERT OR IGNORE runs with the conflict clause of the statement that fired it, when that statement has
-- one. Another writer's `INSERT OR REPLACE INTO participants` (a sync script, the sqlite3 shell) made the participants'
-- triggers REPLACE the participant's name, e-mail and words in participant_handles and participant_words: new ids,
-- while every other meeting of that person kept tags naming the old ones, and the trigram indexes kept the old rows
-- (a REPLACE deletes without running delete triggers): "An" then found 1 of Ann Lee's 2 meetings. An upsert
-- (INSERT ... ON CONFLICT DO UPDATE) made them fail instead: a meeting whose passages were marked for the search
-- bitmaps could not be loaded again (UNIQUE constraint failed: search_bits_dirty.passage_id, found in 0018's work).
--
-- So no trigger statement relies on a conflict clause any more: each inserts only the rows that are missing
-- (NOT EXISTS), and then has no conflict for another statement's clause to resolve. The triggers are otherwise as
-- 0012, 0015 and 0018 left them.

DROP TRIGGER `participants_search_tags_ai`;
--> statement-breakpoint
CREATE TRIGGER `participants_search_tags_ai` AFTER INSERT ON `participants` BEGIN
  INSERT INTO participant_handles (handle) SELECT v.handle FROM (SELECT new.name AS handle UNION SELECT new.email WHERE new.email IS NOT NULL) v
    WHERE NOT EXISTS (SELECT 1 FROM participant_handles h WHERE h.handle = v.handle);
  INSERT INTO participant_words (word)
    WITH RECURSIVE split(rest, word) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(new.name || ' ' || coalesce(new.email, ''), '@', ' '), '.', ' '), ',', ' '), '-', ' '), '_', ' '), '(', ' '), ')', ' '), '/', ' '), '''', ' '), '"', ' '), '+', ' '), ';', ' '), ':', ' '), char(9), ' '), char(10), ' '), char(13), ' ') || ' ', NULL UNION ALL SELECT substr(rest, instr(rest, ' ') + 1), substr(rest, 1, instr(rest, ' ') - 1) FROM split WHERE rest != '')
    SELECT DISTINCT word FROM split WHERE word != '' AND NOT EXISTS (SELECT 1 FROM participant_words w WHERE w.word = split.word);
  UPDATE meetings SET search_tags = (SELECT tags FROM meeting_search_tags v WHERE v.meeting_id = meetings.id) WHERE id = new.meeting_id;
END;
--> statement-breakpoint
DROP TRIGGER `participants_search_tags_au`;
--> statement-breakpoint
CREATE TRIGGER `participants_search_tags_au` AFTER UPDATE OF name, email, meeting_id ON `participants` BEGIN
  INSERT INTO participant_handles (handle) SELECT v.handle FROM (SELECT new.name AS handle UNION SELECT new.email WHERE new.email IS NOT NULL) v
    WHERE NOT EXISTS (SELECT 1 FROM participant_handles h WHERE h.handle = v.handle);
  INSERT INTO participant_words (word)
    WITH RECURSIVE split(rest, word) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(new.name || ' ' || coalesce(new.email, ''), '@', ' '), '.', ' '), ',', ' '), '-', ' '), '_', ' '), '(', ' '), ')', ' '), '/', ' '), '''', ' '), '"', ' '), '+', ' '), ';', ' '), ':', ' '), char(9), ' '), char(10), ' '), char(13), ' ') || ' ', NULL UNION ALL SELECT substr(rest, instr(rest, ' ') + 1), substr(rest, 1, instr(rest, ' ') - 1) FROM split WHERE rest != '')
    SELECT DISTINCT word FROM split WHERE word != '' AND NOT EXISTS (SELECT 1 FROM participant_words w WHERE w.word = split.word);
  UPDATE meetings SET search_tags = (SELECT tags FROM meeting_search_tags v WHERE v.meeting_id = meetings.id) WHERE id IN (old.meeting_id, new.meeting_id);
END;
--> statement-breakpoint
DROP TRIGGER `meetings_indexes_ai`;
--> statement-breakpoint
CREATE TRIGGER `meetings_indexes_ai` AFTER INSERT ON `meetings` BEGIN
  UPDATE meetings SET search_tags = (SELECT tags FROM meeting_search_tags v WHERE v.meeting_id = meetings.id) WHERE id = new.id;
  INSERT INTO meeting_tags (tag, started_at, meeting_id)
    SELECT DISTINCT j.value, new.started_at, new.id FROM json_each('["' || replace((SELECT search_tags FROM meetings WHERE id = new.id), ' ', '","') || '"]') j
    WHERE j.value != '' AND NOT EXISTS (SELECT 1 FROM meeting_tags t WHERE t.tag = j.value AND t.started_at = new.started_at AND t.meeting_id = new.id);
  DELETE FROM meeting_titles WHERE rowid = (SELECT key FROM meeting_keys WHERE meeting_id = new.id);
  DELETE FROM meeting_terms WHERE rowid = (SELECT key FROM meeting_keys WHERE meeting_id = new.id);
  DELETE FROM meeting_keys WHERE meeting_id = new.id;
  INSERT INTO meeting_keys (key, meeting_id) SELECT key, meeting_id FROM meeting_next_key WHERE meeting_id = new.id;
  INSERT INTO meeting_titles (rowid, title, id) SELECT key, title, meeting_id FROM meeting_list_terms WHERE meeting_id = new.id;
  INSERT INTO meeting_terms (rowid, tags, grams) SELECT key, tags, grams FROM meeting_list_terms WHERE meeting_id = new.id;
END;
--> statement-breakpoint
DROP TRIGGER `meetings_search_tags_au`;
--> statement-breakpoint
CREATE TRIGGER `meetings_search_tags_au` AFTER UPDATE OF search_tags ON `meetings` WHEN old.search_tags IS NOT new.search_tags BEGIN
  UPDATE search_passages SET tags = new.search_tags WHERE meeting_id = new.id AND tags IS NOT new.search_tags;
  DELETE FROM meeting_tags WHERE meeting_id = new.id;
  INSERT INTO meeting_tags (tag, started_at, meeting_id)
    SELECT DISTINCT j.value, new.started_at, new.id FROM json_each('["' || replace(new.search_tags, ' ', '","') || '"]') j
    WHERE j.value != '' AND NOT EXISTS (SELECT 1 FROM meeting_tags t WHERE t.tag = j.value AND t.started_at = new.started_at AND t.meeting_id = new.id);
END;
--> statement-breakpoint
DROP TRIGGER `search_passages_bits_ai`;
--> statement-breakpoint
CREATE TRIGGER `search_passages_bits_ai` AFTER INSERT ON `search_passages` WHEN new.id < (SELECT reserved FROM search_bits_state) * 4096 BEGIN
  INSERT INTO search_bits_dirty (passage_id) SELECT new.id WHERE NOT EXISTS (SELECT 1 FROM search_bits_dirty d WHERE d.passage_id = new.id);
END;
--> statement-breakpoint
DROP TRIGGER `search_passages_bits_ad`;
--> statement-breakpoint
CREATE TRIGGER `search_passages_bits_ad` AFTER DELETE ON `search_passages` WHEN old.id < (SELECT reserved FROM search_bits_state) * 4096 BEGIN
  INSERT INTO search_bits_dirty (passage_id) SELECT old.id WHERE NOT EXISTS (SELECT 1 FROM search_bits_dirty d WHERE d.passage_id = old.id);
END;
--> statement-breakpoint
DROP TRIGGER `search_passages_bits_au`;
--> statement-breakpoint
CREATE TRIGGER `search_passages_bits_au` AFTER UPDATE OF id, text, tags ON `search_passages` WHEN old.id < (SELECT reserved FROM search_bits_state) * 4096 OR new.id < (SELECT reserved FROM search_bits_state) * 4096 BEGIN
  INSERT INTO search_bits_dirty (passage_id) SELECT old.id WHERE old.id < (SELECT reserved FROM search_bits_state) * 4096 AND NOT EXISTS (SELECT 1 FROM search_bits_dirty d WHERE d.passage_id = old.id);
  INSERT INTO search_bits_dirty (passage_id) SELECT new.id WHERE new.id < (SELECT reserved FROM search_bits_state) * 4096 AND NOT EXISTS (SELECT 1 FROM search_bits_dirty d WHERE d.passage_id = new.id);
END;
--> statement-breakpoint
-- Files already hit: the trigram indexes of names and words built again from their tables (a few thousand rows), and
-- the tags of each meeting whose stored tags are not the ones the view computes (then its meeting_tags, meeting_terms
-- and passages follow through the triggers).
INSERT INTO participant_words_fts (participant_words_fts) VALUES ('rebuild');
--> statement-breakpoint
INSERT INTO participant_handles_fts (participant_handles_fts) VALUES ('rebuild');
--> statement-breakpoint
UPDATE meetings SET search_tags = (SELECT tags FROM meeting_search_tags v WHERE v.meeting_id = meetings.id)
  WHERE search_tags IS NOT (SELECT tags FROM meeting_search_tags v WHERE v.meeting_id = meetings.id);
