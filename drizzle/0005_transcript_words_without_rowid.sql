-- Hand-written: Drizzle cannot declare WITHOUT ROWID. transcript_words becomes a clustered table on its
-- primary key (transcript_id, idx): a page of words or a whole transcript is one B-tree range scan, with
-- no lookup from an index into the table, and no separate primary-key index (a third less space).
-- Same columns as the Drizzle schema; a future change to this table must keep WITHOUT ROWID by hand.
CREATE TABLE `transcript_words_clustered` (
	`transcript_id` text NOT NULL,
	`idx` integer NOT NULL,
	`text` text NOT NULL,
	`start_ms` integer,
	`end_ms` integer,
	`speaker` text,
	PRIMARY KEY(`transcript_id`, `idx`),
	FOREIGN KEY (`transcript_id`) REFERENCES `transcripts`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `transcript_words_clustered` SELECT `transcript_id`, `idx`, `text`, `start_ms`, `end_ms`, `speaker` FROM `transcript_words` ORDER BY `transcript_id`, `idx`;
--> statement-breakpoint
DROP TABLE `transcript_words`;
--> statement-breakpoint
ALTER TABLE `transcript_words_clustered` RENAME TO `transcript_words`;
