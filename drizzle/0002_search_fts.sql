-- Full-text search (hand-written: Drizzle cannot express FTS5 tables or triggers).
-- search_fts indexes search_passages (external content; stable integer rowids), words folded and without diacritics.
CREATE VIRTUAL TABLE `search_fts` USING fts5(`text`, content='search_passages', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE TRIGGER `search_passages_ai` AFTER INSERT ON `search_passages` BEGIN
  INSERT INTO search_fts (rowid, text) VALUES (new.id, new.text);
END;
--> statement-breakpoint
CREATE TRIGGER `search_passages_ad` AFTER DELETE ON `search_passages` BEGIN
  INSERT INTO search_fts (search_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
--> statement-breakpoint
CREATE TRIGGER `search_passages_au` AFTER UPDATE ON `search_passages` BEGIN
  INSERT INTO search_fts (search_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO search_fts (rowid, text) VALUES (new.id, new.text);
END;
--> statement-breakpoint
-- Summaries and notes are indexed by triggers, so every writer (proposals applied, load, the worker) keeps search current.
CREATE TRIGGER `summaries_search_ai` AFTER INSERT ON `summaries` BEGIN
  INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES (new.meeting_id, 'summary', new.id, new.title || char(10) || new.content);
END;
--> statement-breakpoint
CREATE TRIGGER `summaries_search_au` AFTER UPDATE OF title, content ON `summaries` BEGIN
  DELETE FROM search_passages WHERE ref_id = old.id;
  INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES (new.meeting_id, 'summary', new.id, new.title || char(10) || new.content);
END;
--> statement-breakpoint
CREATE TRIGGER `summaries_search_ad` AFTER DELETE ON `summaries` BEGIN
  DELETE FROM search_passages WHERE ref_id = old.id;
END;
--> statement-breakpoint
CREATE TRIGGER `meetings_note_search_ai` AFTER INSERT ON `meetings` WHEN new.note != '' BEGIN
  INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES (new.id, 'note', new.id, new.note);
END;
--> statement-breakpoint
CREATE TRIGGER `meetings_note_search_au` AFTER UPDATE OF note ON `meetings` BEGIN
  DELETE FROM search_passages WHERE ref_id = old.id AND kind = 'note';
  INSERT INTO search_passages (meeting_id, kind, ref_id, text) SELECT new.id, 'note', new.id, new.note WHERE new.note != '';
END;
--> statement-breakpoint
-- Transcript passages are written by indexTranscript(); a deleted transcript takes its passages along.
CREATE TRIGGER `transcripts_search_ad` AFTER DELETE ON `transcripts` BEGIN
  DELETE FROM search_passages WHERE ref_id = old.id;
END;
--> statement-breakpoint
-- list_meetings `query`: a case-insensitive fragment of the title or the id, as a trigram index.
CREATE VIRTUAL TABLE `meeting_titles` USING fts5(`title`, `id`, tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `meetings_titles_ai` AFTER INSERT ON `meetings` BEGIN
  INSERT INTO meeting_titles (title, id) VALUES (new.title, new.id);
END;
--> statement-breakpoint
CREATE TRIGGER `meetings_titles_au` AFTER UPDATE OF title ON `meetings` BEGIN
  DELETE FROM meeting_titles WHERE rowid IN (SELECT rowid FROM meeting_titles WHERE meeting_titles MATCH 'id : "' || old.id || '"' AND id = old.id);
  INSERT INTO meeting_titles (title, id) VALUES (new.title, new.id);
END;
--> statement-breakpoint
CREATE TRIGGER `meetings_titles_ad` AFTER DELETE ON `meetings` BEGIN
  DELETE FROM meeting_titles WHERE rowid IN (SELECT rowid FROM meeting_titles WHERE meeting_titles MATCH 'id : "' || old.id || '"' AND id = old.id);
END;
--> statement-breakpoint
-- Backfill what existed before this migration.
INSERT INTO meeting_titles (title, id) SELECT title, id FROM meetings;
--> statement-breakpoint
INSERT INTO search_passages (meeting_id, kind, ref_id, text) SELECT meeting_id, 'summary', id, title || char(10) || content FROM summaries;
--> statement-breakpoint
INSERT INTO search_passages (meeting_id, kind, ref_id, text) SELECT id, 'note', id, note FROM meetings WHERE note != '';
--> statement-breakpoint
INSERT INTO search_passages (meeting_id, kind, ref_id, word_offset, speaker, text)
  SELECT g.meeting_id, 'transcript', g.transcript_id, g.first_idx,
         (SELECT w2.speaker FROM transcript_words w2 WHERE w2.transcript_id = g.transcript_id AND w2.idx = g.first_idx),
         g.words
  FROM (SELECT t.meeting_id, w.transcript_id, min(w.idx) AS first_idx, group_concat(w.text, ' ' ORDER BY w.idx) AS words
        FROM transcript_words w JOIN transcripts t ON t.id = w.transcript_id
        GROUP BY w.transcript_id, w.idx / 60) g;
