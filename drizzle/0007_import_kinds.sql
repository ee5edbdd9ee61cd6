ALTER TABLE `recording_imports` ADD `extract_audio` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `recording_imports` ADD `content_sha256` text;--> statement-breakpoint
ALTER TABLE `recording_imports` ADD `started_at_known` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `recording_imports_sha256_idx` ON `recording_imports` (`content_sha256`);