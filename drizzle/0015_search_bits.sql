-- The exact total of a search for a common word with a broad filter (issue 19), counted from bitmaps instead of
-- FTS5's intersection of the two (`the`, in 78% of passages, with a folder, six months or a common participant:
-- 7-14 ms at 100k meetings, walking the word's doclist once per passage of the filter).
--
-- Passages fall into blocks of 4096 ids (id >> 12). For each dense term (a word said in at least 1/128 of the
-- passages, a tag held by at least 1/128 of the meetings: src/db/queries/search-bits.ts) and each block below the
-- term's `built` count, one row holds a bit per passage of the block saying the term (none when no passage does).
-- The worker builds them (bounded rounds between jobs); writes of new passages, whose ids are above every built
-- block, cost nothing. A passage written, changed or deleted below `reserved` blocks (the highest block any build
-- may reach: set before a build reads the index) is listed in search_bits_dirty: searches leave its bits aside and
-- ask FTS5 about it, until the worker sets its bits again. Derived data: `syntheo doctor --repair-search` empties it.
CREATE TABLE `search_bits_terms` (
	`term` text PRIMARY KEY NOT NULL,
	`built` integer DEFAULT 0 NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `search_bits` (
	`term` text NOT NULL,
	`block` integer NOT NULL,
	`bits` blob NOT NULL,
	PRIMARY KEY (`term`, `block`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `search_bits_block_idx` ON `search_bits` (`block`, `term`);
--> statement-breakpoint
CREATE TABLE `search_bits_dirty` (
	`passage_id` integer PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE TABLE `search_bits_state` (
	`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1),
	`reserved` integer NOT NULL,
	`checked_passages` integer NOT NULL,
	`epoch` integer NOT NULL DEFAULT 0
);
--> statement-breakpoint
INSERT INTO search_bits_state (id, reserved, checked_passages) VALUES (1, 0, 0);
--> statement-breakpoint
CREATE TRIGGER `search_passages_bits_ai` AFTER INSERT ON `search_passages` WHEN new.id < (SELECT reserved FROM search_bits_state) * 4096 BEGIN
  INSERT OR IGNORE INTO search_bits_dirty (passage_id) VALUES (new.id);
END;
--> statement-breakpoint
CREATE TRIGGER `search_passages_bits_ad` AFTER DELETE ON `search_passages` WHEN old.id < (SELECT reserved FROM search_bits_state) * 4096 BEGIN
  INSERT OR IGNORE INTO search_bits_dirty (passage_id) VALUES (old.id);
END;
--> statement-breakpoint
CREATE TRIGGER `search_passages_bits_au` AFTER UPDATE OF id, text, tags ON `search_passages` WHEN old.id < (SELECT reserved FROM search_bits_state) * 4096 OR new.id < (SELECT reserved FROM search_bits_state) * 4096 BEGIN
  INSERT OR IGNORE INTO search_bits_dirty (passage_id) SELECT old.id WHERE old.id < (SELECT reserved FROM search_bits_state) * 4096;
  INSERT OR IGNORE INTO search_bits_dirty (passage_id) SELECT new.id WHERE new.id < (SELECT reserved FROM search_bits_state) * 4096;
END;
