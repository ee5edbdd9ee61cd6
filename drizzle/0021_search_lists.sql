-- The passages of each tag that is not dense (held by fewer than 1/128 of the meetings: a name or e-mail, a day, a
-- series, most participant words), as lists the bitmaps read instead of FTS5 (issue 19). A search ORs a group of
-- such tags (the 38 names holding "Ines Kowalski", a range's days): from FTS5, a doclist a tag (`the` + "Ines
-- Kowalski" at 100k meetings: 2.6 ms of its 6 for 30,000 passages).
--
-- One row per list term (`list:` + the tag, in search_bits_terms like the dense terms) and span of 65,536 passage ids
-- (id >> 16): the ids of the span's passages holding the tag, as sorted 16-bit offsets (little-endian). Built by the
-- worker's rounds from the passages' tags, a range of blocks at a time, up to the term's `built` block; a passage
-- marked dirty is left out of a build, so a list holds a passage only as it was before it was first marked.
--
-- What a list held of a passage is what the passage's tags were when it was first marked dirty: the triggers keep
-- them beside the mark (`tags`; '' for a new passage, which no list holds), and the worker's clean-up takes the
-- passage out of those tags' lists before putting it into its tags' lists now. Marks made before this migration
-- have none: no list was built while they stood. Derived data: `syntheo doctor --repair-search` empties it.
CREATE TABLE `search_lists` (
	`term` text NOT NULL,
	`span` integer NOT NULL,
	`ids` blob NOT NULL,
	PRIMARY KEY (`term`, `span`)
) WITHOUT ROWID;
--> statement-breakpoint
ALTER TABLE `search_bits_dirty` ADD `tags` text;
--> statement-breakpoint
DROP TRIGGER `search_passages_bits_ai`;
--> statement-breakpoint
CREATE TRIGGER `search_passages_bits_ai` AFTER INSERT ON `search_passages` WHEN new.id < (SELECT reserved FROM search_bits_state) * 4096 BEGIN
  INSERT INTO search_bits_dirty (passage_id, tags) SELECT new.id, '' WHERE NOT EXISTS (SELECT 1 FROM search_bits_dirty d WHERE d.passage_id = new.id);
END;
--> statement-breakpoint
DROP TRIGGER `search_passages_bits_ad`;
--> statement-breakpoint
CREATE TRIGGER `search_passages_bits_ad` AFTER DELETE ON `search_passages` WHEN old.id < (SELECT reserved FROM search_bits_state) * 4096 BEGIN
  INSERT INTO search_bits_dirty (passage_id, tags) SELECT old.id, old.tags WHERE NOT EXISTS (SELECT 1 FROM search_bits_dirty d WHERE d.passage_id = old.id);
END;
--> statement-breakpoint
DROP TRIGGER `search_passages_bits_au`;
--> statement-breakpoint
CREATE TRIGGER `search_passages_bits_au` AFTER UPDATE OF id, text, tags ON `search_passages` WHEN old.id < (SELECT reserved FROM search_bits_state) * 4096 OR new.id < (SELECT reserved FROM search_bits_state) * 4096 BEGIN
  INSERT INTO search_bits_dirty (passage_id, tags) SELECT old.id, old.tags WHERE old.id < (SELECT reserved FROM search_bits_state) * 4096 AND NOT EXISTS (SELECT 1 FROM search_bits_dirty d WHERE d.passage_id = old.id);
  INSERT INTO search_bits_dirty (passage_id, tags) SELECT new.id, '' WHERE new.id < (SELECT reserved FROM search_bits_state) * 4096 AND NOT EXISTS (SELECT 1 FROM search_bits_dirty d WHERE d.passage_id = new.id);
END;
--> statement-breakpoint
-- The worker's next round reads the terms' set again: the tags that are not dense get their lists.
UPDATE search_bits_state SET checked_passages = 0;
