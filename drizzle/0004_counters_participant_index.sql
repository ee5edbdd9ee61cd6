-- Hand-written: triggers and an FTS5 table, which Drizzle cannot express.
-- folders.meeting_count follows every insert, delete and move of a meeting.
CREATE TRIGGER `meetings_folder_count_ai` AFTER INSERT ON `meetings` WHEN new.folder_id IS NOT NULL BEGIN
  UPDATE folders SET meeting_count = meeting_count + 1 WHERE id = new.folder_id;
END;
--> statement-breakpoint
CREATE TRIGGER `meetings_folder_count_ad` AFTER DELETE ON `meetings` WHEN old.folder_id IS NOT NULL BEGIN
  UPDATE folders SET meeting_count = meeting_count - 1 WHERE id = old.folder_id;
END;
--> statement-breakpoint
CREATE TRIGGER `meetings_folder_count_au` AFTER UPDATE OF folder_id ON `meetings` WHEN old.folder_id IS NOT new.folder_id BEGIN
  UPDATE folders SET meeting_count = meeting_count - 1 WHERE id = old.folder_id;
  UPDATE folders SET meeting_count = meeting_count + 1 WHERE id = new.folder_id;
END;
--> statement-breakpoint
UPDATE folders SET meeting_count = (SELECT count(*) FROM meetings m WHERE m.folder_id = folders.id);
--> statement-breakpoint
-- list_meetings `participant`: a case-insensitive fragment of a participant's name or e-mail, as a trigram index.
CREATE VIRTUAL TABLE `participant_index` USING fts5(`name`, `email`, `meeting_id` UNINDEXED, `participant_id`, tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `participants_index_ai` AFTER INSERT ON `participants` BEGIN
  INSERT INTO participant_index (name, email, meeting_id, participant_id) VALUES (new.name, coalesce(new.email, ''), new.meeting_id, new.id);
END;
--> statement-breakpoint
CREATE TRIGGER `participants_index_ad` AFTER DELETE ON `participants` BEGIN
  DELETE FROM participant_index WHERE rowid IN (SELECT rowid FROM participant_index WHERE participant_index MATCH 'participant_id : "' || old.id || '"' AND participant_id = old.id);
END;
--> statement-breakpoint
CREATE TRIGGER `participants_index_au` AFTER UPDATE OF name, email, meeting_id ON `participants` BEGIN
  DELETE FROM participant_index WHERE rowid IN (SELECT rowid FROM participant_index WHERE participant_index MATCH 'participant_id : "' || old.id || '"' AND participant_id = old.id);
  INSERT INTO participant_index (name, email, meeting_id, participant_id) VALUES (new.name, coalesce(new.email, ''), new.meeting_id, new.id);
END;
--> statement-breakpoint
INSERT INTO participant_index (name, email, meeting_id, participant_id) SELECT name, coalesce(email, ''), meeting_id, id FROM participants;
