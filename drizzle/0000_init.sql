CREATE TABLE `folders` (
	`id` text PRIMARY KEY NOT NULL,
	`path` text NOT NULL,
	`name` text NOT NULL,
	`parent_id` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`parent_id`) REFERENCES `folders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `folders_path_unique` ON `folders` (`path`);--> statement-breakpoint
CREATE INDEX `folders_parent_idx` ON `folders` (`parent_id`);--> statement-breakpoint
CREATE TABLE `series` (
	`id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`cadence` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `action_items` (
	`id` text PRIMARY KEY NOT NULL,
	`meeting_id` text NOT NULL,
	`text` text NOT NULL,
	`assignee` text,
	`due_date` text,
	`done` integer DEFAULT false NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	`source` text DEFAULT 'user' NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`meeting_id`) REFERENCES `meetings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `action_items_meeting_idx` ON `action_items` (`meeting_id`,`position`);--> statement-breakpoint
CREATE TABLE `meetings` (
	`id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`started_at` text NOT NULL,
	`ended_at` text,
	`folder_id` text,
	`series_id` text,
	`note` text DEFAULT '' NOT NULL,
	`speakers` text,
	`speaker_context` text,
	`source` text DEFAULT 'user' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`folder_id`) REFERENCES `folders`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`series_id`) REFERENCES `series`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `meetings_started_idx` ON `meetings` ("started_at" desc,"id" desc);--> statement-breakpoint
CREATE INDEX `meetings_folder_started_idx` ON `meetings` (`folder_id`,"started_at" desc,"id" desc);--> statement-breakpoint
CREATE INDEX `meetings_series_started_idx` ON `meetings` (`series_id`,"started_at" desc,"id" desc);--> statement-breakpoint
CREATE TABLE `participants` (
	`id` text PRIMARY KEY NOT NULL,
	`meeting_id` text NOT NULL,
	`name` text NOT NULL,
	`email` text,
	`role` text,
	`position` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`meeting_id`) REFERENCES `meetings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `participants_meeting_idx` ON `participants` (`meeting_id`,`position`);--> statement-breakpoint
CREATE TABLE `summaries` (
	`id` text PRIMARY KEY NOT NULL,
	`meeting_id` text NOT NULL,
	`title` text DEFAULT 'Summary' NOT NULL,
	`content` text NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	`source` text DEFAULT 'user' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`meeting_id`) REFERENCES `meetings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `summaries_meeting_idx` ON `summaries` (`meeting_id`,`position`);--> statement-breakpoint
CREATE TABLE `transcript_words` (
	`transcript_id` text NOT NULL,
	`idx` integer NOT NULL,
	`text` text NOT NULL,
	`start_ms` integer,
	`end_ms` integer,
	`speaker` text,
	PRIMARY KEY(`transcript_id`, `idx`),
	FOREIGN KEY (`transcript_id`) REFERENCES `transcripts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `transcripts` (
	`id` text PRIMARY KEY NOT NULL,
	`meeting_id` text NOT NULL,
	`language` text,
	`source` text DEFAULT 'import' NOT NULL,
	`word_count` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`meeting_id`) REFERENCES `meetings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `transcripts_meeting_id_unique` ON `transcripts` (`meeting_id`);--> statement-breakpoint
CREATE TABLE `proposals` (
	`id` text PRIMARY KEY NOT NULL,
	`meeting_id` text NOT NULL,
	`kind` text NOT NULL,
	`target_id` text,
	`content` text NOT NULL,
	`base_content` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`proposed_by` text,
	`created_at` text NOT NULL,
	`decided_at` text,
	FOREIGN KEY (`meeting_id`) REFERENCES `meetings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `proposals_meeting_status_idx` ON `proposals` (`meeting_id`,`status`,"created_at" desc);--> statement-breakpoint
CREATE INDEX `proposals_status_idx` ON `proposals` (`status`,"created_at" desc);--> statement-breakpoint
CREATE TABLE `recording_imports` (
	`id` text PRIMARY KEY NOT NULL,
	`meeting_id` text NOT NULL,
	`file_path` text NOT NULL,
	`file_size` integer NOT NULL,
	`file_mtime_ms` integer NOT NULL,
	`file_format` text NOT NULL,
	`request_key` text,
	`status` text DEFAULT 'queued' NOT NULL,
	`summary_status` text DEFAULT 'pending' NOT NULL,
	`error` text,
	`worker_id` text,
	`lease_expires_at` text,
	`audio_duration_ms` integer,
	`chunks_done` integer,
	`chunks_total` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`started_at` text,
	`finished_at` text,
	FOREIGN KEY (`meeting_id`) REFERENCES `meetings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `recording_imports_request_key_idx` ON `recording_imports` (`request_key`);--> statement-breakpoint
CREATE INDEX `recording_imports_status_idx` ON `recording_imports` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `recording_imports_meeting_idx` ON `recording_imports` (`meeting_id`);--> statement-breakpoint
CREATE TABLE `workers` (
	`id` text PRIMARY KEY NOT NULL,
	`hostname` text NOT NULL,
	`pid` integer NOT NULL,
	`version` text NOT NULL,
	`concurrency` integer NOT NULL,
	`started_at` text NOT NULL,
	`heartbeat_at` text NOT NULL,
	`stopped_at` text
);
--> statement-breakpoint
CREATE INDEX `workers_heartbeat_idx` ON `workers` (`heartbeat_at`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` text NOT NULL
);
