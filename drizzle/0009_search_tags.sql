CREATE TABLE `participant_words` (
	`id` integer PRIMARY KEY NOT NULL,
	`word` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `participant_words_word_unique` ON `participant_words` (`word`);--> statement-breakpoint
ALTER TABLE `meetings` ADD `search_tags` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `search_passages` ADD `tags` text DEFAULT '' NOT NULL;
