CREATE TABLE `search_passages` (
	`id` integer PRIMARY KEY NOT NULL,
	`meeting_id` text NOT NULL,
	`kind` text NOT NULL,
	`ref_id` text NOT NULL,
	`word_offset` integer,
	`speaker` text,
	`text` text NOT NULL,
	FOREIGN KEY (`meeting_id`) REFERENCES `meetings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `search_passages_ref_idx` ON `search_passages` (`ref_id`,`word_offset`);--> statement-breakpoint
CREATE INDEX `search_passages_meeting_idx` ON `search_passages` (`meeting_id`);