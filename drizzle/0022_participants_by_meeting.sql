DROP INDEX `participants_meeting_idx`;--> statement-breakpoint
CREATE INDEX `participants_meeting_idx` ON `participants` (`meeting_id`,`position`,`name`,`email`);