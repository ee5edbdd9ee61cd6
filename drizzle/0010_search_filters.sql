-- Hand-written (FTS5, triggers, a WITHOUT ROWID table): filters matched inside indexes (issue 19).
-- Participant words: the trigram index a `participant` fragment is matched against (a few thousand words, not every participant).
CREATE VIRTUAL TABLE `participant_words_fts` USING fts5(`word`, content='participant_words', content_rowid='id', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `participant_words_ai` AFTER INSERT ON `participant_words` BEGIN
  INSERT INTO participant_words_fts (rowid, word) VALUES (new.id, new.word);
END;
--> statement-breakpoint
CREATE TRIGGER `participant_words_ad` AFTER DELETE ON `participant_words` BEGIN
  INSERT INTO participant_words_fts (participant_words_fts, rowid, word) VALUES ('delete', old.id, old.word);
END;
--> statement-breakpoint
CREATE TRIGGER `participant_words_au` AFTER UPDATE ON `participant_words` BEGIN
  INSERT INTO participant_words_fts (participant_words_fts, rowid, word) VALUES ('delete', old.id, old.word);
  INSERT INTO participant_words_fts (rowid, word) VALUES (new.id, new.word);
END;
--> statement-breakpoint
-- list_meetings `folder_path`, `series_id`, `participant`: the meetings of one tag (search_tags split), newest first,
-- within dates, and their count, from the primary key alone.
CREATE TABLE `meeting_tags` (
  `tag` text NOT NULL,
  `started_at` text NOT NULL,
  `meeting_id` text NOT NULL REFERENCES `meetings`(`id`) ON DELETE CASCADE,
  PRIMARY KEY (`tag`, `started_at`, `meeting_id`)
) WITHOUT ROWID;
--> statement-breakpoint
-- Rewriting one meeting's tags (participants, folder or series changed; meeting moved in time).
CREATE INDEX `meeting_tags_meeting_idx` ON `meeting_tags` (`meeting_id`);
--> statement-breakpoint
-- The tags of each meeting, written once (every trigger below reads them from here): its folder and each ancestor
-- (`f` + hex id), its series (`s` + hex id), each word of its participants' names and e-mails (`p` + participant_words id),
-- and the UTC calendar day, month and year it started (`d20260517 m202605 y2026`, read from started_at's text; `dx` when
-- started_at does not begin with a valid date), so a date range is a few terms of the full-text query (search_transcripts).
CREATE VIEW `meeting_search_tags` AS SELECT meetings.id AS meeting_id, trim(
    coalesce((WITH RECURSIVE chain(id, parent, depth) AS (
        SELECT id, parent_id, 0 FROM folders WHERE id = meetings.folder_id
        UNION ALL SELECT f.id, f.parent_id, c.depth + 1 FROM folders f JOIN chain c ON f.id = c.parent WHERE c.depth < 64)
      SELECT group_concat('f' || hex(id), ' ') FROM chain), '')
    || CASE WHEN meetings.series_id IS NULL THEN '' ELSE ' s' || hex(meetings.series_id) END
    || coalesce(' ' || (SELECT group_concat('p' || w.id, ' ' ORDER BY w.id) FROM (
        WITH RECURSIVE split(rest, word) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(p.name || ' ' || coalesce(p.email, ''), '@', ' '), '.', ' '), ',', ' '), '-', ' '), '_', ' '), '(', ' '), ')', ' '), '/', ' '), '''', ' '), '"', ' '), '+', ' '), ';', ' '), ':', ' '), char(9), ' '), char(10), ' '), char(13), ' ') || ' ', NULL FROM participants p WHERE p.meeting_id = meetings.id UNION ALL SELECT substr(rest, instr(rest, ' ') + 1), substr(rest, 1, instr(rest, ' ') - 1) FROM split WHERE rest != '')
        SELECT DISTINCT word FROM split WHERE word != '') s JOIN participant_words w ON w.word = s.word), '')
    || CASE WHEN date(substr(meetings.started_at, 1, 10)) IS substr(meetings.started_at, 1, 10)
         THEN ' y' || substr(meetings.started_at, 1, 4) || ' m' || substr(meetings.started_at, 1, 4) || substr(meetings.started_at, 6, 2)
           || ' d' || substr(meetings.started_at, 1, 4) || substr(meetings.started_at, 6, 2) || substr(meetings.started_at, 9, 2)
         ELSE ' dx' END) AS tags FROM meetings;
--> statement-breakpoint
-- Backfill: the words of existing participants, then every meeting's tags and their rows.
INSERT OR IGNORE INTO participant_words (word)
  WITH RECURSIVE split(rest, word) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(p.name || ' ' || coalesce(p.email, ''), '@', ' '), '.', ' '), ',', ' '), '-', ' '), '_', ' '), '(', ' '), ')', ' '), '/', ' '), '''', ' '), '"', ' '), '+', ' '), ';', ' '), ':', ' '), char(9), ' '), char(10), ' '), char(13), ' ') || ' ', NULL FROM participants p UNION ALL SELECT substr(rest, instr(rest, ' ') + 1), substr(rest, 1, instr(rest, ' ') - 1) FROM split WHERE rest != '')
  SELECT DISTINCT word FROM split WHERE word != '';
--> statement-breakpoint
UPDATE meetings SET search_tags = (SELECT tags FROM meeting_search_tags v WHERE v.meeting_id = meetings.id);
--> statement-breakpoint
INSERT OR IGNORE INTO meeting_tags (tag, started_at, meeting_id)
  WITH RECURSIVE split(mid, started, rest, tag) AS (
    SELECT id, started_at, search_tags || ' ', NULL FROM meetings
    UNION ALL SELECT mid, started, substr(rest, instr(rest, ' ') + 1), substr(rest, 1, instr(rest, ' ') - 1) FROM split WHERE rest != '')
  SELECT tag, started, mid FROM split WHERE tag != '';
--> statement-breakpoint
-- search_fts gains the column `tags` (the meeting's search_tags), so folder, series and participant filters are
-- terms of the full-text query, intersected inside the index instead of joining every match to its meeting.
-- Its content stays the passages alone: each passage holds the tags it was indexed with (search_passages.tags),
-- so every FTS5 'delete' names exactly what was indexed, whatever state the meeting row is in (a cascade, an
-- INSERT OR REPLACE of the meeting, triggers in any order). A content that joined the meeting's row would not.
DROP TRIGGER `search_passages_ai`;
--> statement-breakpoint
DROP TRIGGER `search_passages_ad`;
--> statement-breakpoint
DROP TRIGGER `search_passages_au`;
--> statement-breakpoint
DROP TABLE `search_fts`;
--> statement-breakpoint
UPDATE search_passages SET tags = coalesce((SELECT search_tags FROM meetings m WHERE m.id = search_passages.meeting_id), '');
--> statement-breakpoint
CREATE VIRTUAL TABLE `search_fts` USING fts5(`text`, `tags`, content='search_passages', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
--> statement-breakpoint
INSERT INTO search_fts (search_fts) VALUES ('rebuild');
--> statement-breakpoint
-- Indexed as written; a writer that did not give the meeting's tags (they are the meeting's search_tags) gets
-- them set here, which indexes the passage again through search_passages_au.
CREATE TRIGGER `search_passages_ai` AFTER INSERT ON `search_passages` BEGIN
  INSERT INTO search_fts (rowid, text, tags) VALUES (new.id, new.text, new.tags);
  UPDATE search_passages SET tags = coalesce((SELECT search_tags FROM meetings WHERE id = new.meeting_id), '')
    WHERE id = new.id AND tags IS NOT coalesce((SELECT search_tags FROM meetings WHERE id = new.meeting_id), '');
END;
--> statement-breakpoint
CREATE TRIGGER `search_passages_ad` AFTER DELETE ON `search_passages` BEGIN
  INSERT INTO search_fts (search_fts, rowid, text, tags) VALUES ('delete', old.id, old.text, old.tags);
END;
--> statement-breakpoint
CREATE TRIGGER `search_passages_au` AFTER UPDATE OF id, text, tags ON `search_passages` BEGIN
  INSERT INTO search_fts (search_fts, rowid, text, tags) VALUES ('delete', old.id, old.text, old.tags);
  INSERT INTO search_fts (rowid, text, tags) VALUES (new.id, new.text, new.tags);
END;
--> statement-breakpoint
-- Summaries and notes are indexed with their meeting's tags (as migration 0002, plus `tags`).
DROP TRIGGER `summaries_search_ai`;
--> statement-breakpoint
CREATE TRIGGER `summaries_search_ai` AFTER INSERT ON `summaries` BEGIN
  INSERT INTO search_passages (meeting_id, kind, ref_id, text, tags) VALUES (new.meeting_id, 'summary', new.id, new.title || char(10) || new.content, coalesce((SELECT search_tags FROM meetings WHERE id = new.meeting_id), ''));
END;
--> statement-breakpoint
DROP TRIGGER `summaries_search_au`;
--> statement-breakpoint
CREATE TRIGGER `summaries_search_au` AFTER UPDATE OF title, content ON `summaries` BEGIN
  DELETE FROM search_passages WHERE ref_id = old.id;
  INSERT INTO search_passages (meeting_id, kind, ref_id, text, tags) VALUES (new.meeting_id, 'summary', new.id, new.title || char(10) || new.content, coalesce((SELECT search_tags FROM meetings WHERE id = new.meeting_id), ''));
END;
--> statement-breakpoint
DROP TRIGGER `meetings_note_search_ai`;
--> statement-breakpoint
CREATE TRIGGER `meetings_note_search_ai` AFTER INSERT ON `meetings` WHEN new.note != '' BEGIN
  INSERT INTO search_passages (meeting_id, kind, ref_id, text, tags) VALUES (new.id, 'note', new.id, new.note, coalesce((SELECT search_tags FROM meetings WHERE id = new.id), ''));
END;
--> statement-breakpoint
DROP TRIGGER `meetings_note_search_au`;
--> statement-breakpoint
CREATE TRIGGER `meetings_note_search_au` AFTER UPDATE OF note ON `meetings` BEGIN
  DELETE FROM search_passages WHERE ref_id = old.id AND kind = 'note';
  INSERT INTO search_passages (meeting_id, kind, ref_id, text, tags) SELECT new.id, 'note', new.id, new.note, coalesce((SELECT search_tags FROM meetings WHERE id = new.id), '') WHERE new.note != '';
END;
--> statement-breakpoint
-- The tags follow the meeting's folder (and its ancestors), series, participants and start date.
CREATE TRIGGER `meetings_search_tags_ai` AFTER INSERT ON `meetings` BEGIN
  UPDATE meetings SET search_tags = (SELECT tags FROM meeting_search_tags v WHERE v.meeting_id = meetings.id) WHERE id = new.id;
  -- Its meeting_tags rows, also when the tags came with the row (meetings_search_tags_au fires only on a change).
  INSERT OR IGNORE INTO meeting_tags (tag, started_at, meeting_id)
    WITH RECURSIVE split(rest, tag) AS (SELECT (SELECT search_tags FROM meetings WHERE id = new.id) || ' ', NULL UNION ALL SELECT substr(rest, instr(rest, ' ') + 1), substr(rest, 1, instr(rest, ' ') - 1) FROM split WHERE rest != '')
    SELECT tag, new.started_at, new.id FROM split WHERE tag != '';
END;
--> statement-breakpoint
-- Moved to another folder or series, or re-timed (its calendar tokens).
CREATE TRIGGER `meetings_search_tags_filters_au` AFTER UPDATE OF folder_id, series_id, started_at ON `meetings` BEGIN
  UPDATE meetings SET search_tags = (SELECT tags FROM meeting_search_tags v WHERE v.meeting_id = meetings.id) WHERE id = new.id;
END;
--> statement-breakpoint
-- New tags: the meeting's passages take them (search_passages_au indexes each again), and its meeting_tags rows are rewritten.
CREATE TRIGGER `meetings_search_tags_au` AFTER UPDATE OF search_tags ON `meetings` WHEN old.search_tags IS NOT new.search_tags BEGIN
  UPDATE search_passages SET tags = new.search_tags WHERE meeting_id = new.id AND tags IS NOT new.search_tags;
  DELETE FROM meeting_tags WHERE meeting_id = new.id;
  INSERT OR IGNORE INTO meeting_tags (tag, started_at, meeting_id)
    WITH RECURSIVE split(rest, tag) AS (SELECT new.search_tags || ' ', NULL UNION ALL SELECT substr(rest, instr(rest, ' ') + 1), substr(rest, 1, instr(rest, ' ') - 1) FROM split WHERE rest != '')
    SELECT tag, new.started_at, new.id FROM split WHERE tag != '';
END;
--> statement-breakpoint
CREATE TRIGGER `meetings_tags_started_au` AFTER UPDATE OF started_at ON `meetings` WHEN old.started_at IS NOT new.started_at BEGIN
  UPDATE meeting_tags SET started_at = new.started_at WHERE meeting_id = new.id;
END;
--> statement-breakpoint
CREATE TRIGGER `participants_search_tags_ai` AFTER INSERT ON `participants` BEGIN
  INSERT OR IGNORE INTO participant_words (word)
    WITH RECURSIVE split(rest, word) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(new.name || ' ' || coalesce(new.email, ''), '@', ' '), '.', ' '), ',', ' '), '-', ' '), '_', ' '), '(', ' '), ')', ' '), '/', ' '), '''', ' '), '"', ' '), '+', ' '), ';', ' '), ':', ' '), char(9), ' '), char(10), ' '), char(13), ' ') || ' ', NULL UNION ALL SELECT substr(rest, instr(rest, ' ') + 1), substr(rest, 1, instr(rest, ' ') - 1) FROM split WHERE rest != '')
    SELECT DISTINCT word FROM split WHERE word != '';
  UPDATE meetings SET search_tags = (SELECT tags FROM meeting_search_tags v WHERE v.meeting_id = meetings.id) WHERE id = new.meeting_id;
END;
--> statement-breakpoint
CREATE TRIGGER `participants_search_tags_au` AFTER UPDATE OF name, email, meeting_id ON `participants` BEGIN
  INSERT OR IGNORE INTO participant_words (word)
    WITH RECURSIVE split(rest, word) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(new.name || ' ' || coalesce(new.email, ''), '@', ' '), '.', ' '), ',', ' '), '-', ' '), '_', ' '), '(', ' '), ')', ' '), '/', ' '), '''', ' '), '"', ' '), '+', ' '), ';', ' '), ':', ' '), char(9), ' '), char(10), ' '), char(13), ' ') || ' ', NULL UNION ALL SELECT substr(rest, instr(rest, ' ') + 1), substr(rest, 1, instr(rest, ' ') - 1) FROM split WHERE rest != '')
    SELECT DISTINCT word FROM split WHERE word != '';
  UPDATE meetings SET search_tags = (SELECT tags FROM meeting_search_tags v WHERE v.meeting_id = meetings.id) WHERE id IN (old.meeting_id, new.meeting_id);
END;
--> statement-breakpoint
CREATE TRIGGER `participants_search_tags_ad` AFTER DELETE ON `participants` BEGIN
  UPDATE meetings SET search_tags = (SELECT tags FROM meeting_search_tags v WHERE v.meeting_id = meetings.id) WHERE id = old.meeting_id;
END;
--> statement-breakpoint
-- A folder moved under another parent: the meetings of its subtree get their new ancestors.
CREATE TRIGGER `folders_search_tags_au` AFTER UPDATE OF parent_id ON `folders` WHEN old.parent_id IS NOT new.parent_id BEGIN
  UPDATE meetings SET search_tags = (SELECT tags FROM meeting_search_tags v WHERE v.meeting_id = meetings.id)
  WHERE folder_id IN (WITH RECURSIVE sub(id, depth) AS (SELECT new.id, 0 UNION ALL SELECT f.id, s.depth + 1 FROM folders f JOIN sub s ON f.parent_id = s.id WHERE s.depth < 64) SELECT id FROM sub);
END;
