CREATE TABLE `participant_handles` (
	`id` integer PRIMARY KEY NOT NULL,
	`handle` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `participant_handles_handle_unique` ON `participant_handles` (`handle`);--> statement-breakpoint
CREATE INDEX `participants_name_meeting_idx` ON `participants` (`name`,`meeting_id`);--> statement-breakpoint
CREATE INDEX `participants_email_meeting_idx` ON `participants` (`email`,`meeting_id`);--> statement-breakpoint
-- Hand-written below (drizzle-kit generates the lines above from src/db/schema): the trigram index of the handles,
-- the triggers that keep participant_handles a superset of the participants' names and e-mails, and its first
-- content. A `participant` fragment across words (`Ines Kowalski`) was matched in participant_index, a trigram index
-- of every participant row (400k at 100k meetings: 28 ms for a common name, and a trigram delete on each participant
-- removed); it is matched against the few thousand handles now, and the meetings come from the participants'
-- indexes on name and e-mail (src/db/queries/participant-words.ts). participant_index goes.
CREATE VIRTUAL TABLE `participant_handles_fts` USING fts5(`handle`, content='participant_handles', content_rowid='id', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `participant_handles_ai` AFTER INSERT ON `participant_handles` BEGIN
  INSERT INTO participant_handles_fts (rowid, handle) VALUES (new.id, new.handle);
END;
--> statement-breakpoint
CREATE TRIGGER `participant_handles_ad` AFTER DELETE ON `participant_handles` BEGIN
  INSERT INTO participant_handles_fts (participant_handles_fts, rowid, handle) VALUES ('delete', old.id, old.handle);
END;
--> statement-breakpoint
CREATE TRIGGER `participant_handles_au` AFTER UPDATE ON `participant_handles` BEGIN
  INSERT INTO participant_handles_fts (participant_handles_fts, rowid, handle) VALUES ('delete', old.id, old.handle);
  INSERT INTO participant_handles_fts (rowid, handle) VALUES (new.id, new.handle);
END;
--> statement-breakpoint
-- Only ever added: a handle nobody carries any more matches no meeting (its participants' indexes hold nothing for it).
CREATE TRIGGER `participants_handles_ai` AFTER INSERT ON `participants` BEGIN
  INSERT OR IGNORE INTO participant_handles (handle) SELECT new.name UNION ALL SELECT new.email WHERE new.email IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `participants_handles_au` AFTER UPDATE OF name, email ON `participants` BEGIN
  INSERT OR IGNORE INTO participant_handles (handle) SELECT new.name UNION ALL SELECT new.email WHERE new.email IS NOT NULL;
END;
--> statement-breakpoint
INSERT OR IGNORE INTO participant_handles (handle) SELECT name FROM participants UNION SELECT email FROM participants WHERE email IS NOT NULL;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `participants_index_ai`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `participants_index_ad`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `participants_index_au`;
--> statement-breakpoint
DROP TABLE IF EXISTS `participant_index`;
