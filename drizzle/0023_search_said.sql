-- The passages of each word neither dense nor rare (said in fewer than 1/32 of the passages, but in 2,000 of them at
-- least, a ranked window's worth: `elra`, in 9,822 passages at 100k meetings; most words an assistant asks are such
-- words), each as many times as it says the word (issue 19). BM25 ranks a search's full window from them and the kept
-- lengths (search_cells' `size:`), where it read the window's 2,000 passages to count the word in each (`the elra`:
-- 3.8 ms of reads and ~2.5 ms of counting of its 11.6); and the bitmaps read a word's passages from them rather than
-- from FTS5.
--
-- One row per said term (`said:` + the word, in search_bits_terms like the dense terms) and span of 65,536 passage
-- ids (id >> 16): the ids of the span's passages saying the word, as sorted 16-bit offsets (little-endian), an offset
-- repeated once a time the passage says the word. Built by the worker's rounds from the passages' text, a range of
-- blocks at a time, up to the term's `built` block, as search_lists (migration 0021). A dirty mark now tells whether
-- the passage's words may have changed (`said`: it is new or gone, or its text or id changed) or only its tags (a
-- meeting moved, a participant renamed: 0), and keeps the text the said lists may hold it under (`text`: its text
-- when first marked `said`; none for a new passage, which no list holds). The builds leave out the passages marked
-- `said`; the clean-up takes such a passage out of the rows of the words of its kept text, then puts it into the rows
-- of the words it says now; a passage whose tags alone changed is left as it is (a meeting of 795 passages moved: the
-- clean-up's longest write transaction 70-90 ms, as without said lists, against ~200 with its passages taken out and
-- put back). A batch of passages whose words changed (appended, written again) rewrites the rows of their words:
-- 100-200 ms a batch of 256 at 100k meetings, against 55-145 without said lists.
-- Derived data: `syntheo doctor --repair-search` empties it.
CREATE TABLE `search_said` (
	`term` text NOT NULL,
	`span` integer NOT NULL,
	`ids` blob NOT NULL,
	PRIMARY KEY (`term`, `span`)
) WITHOUT ROWID;
--> statement-breakpoint
ALTER TABLE `search_bits_dirty` ADD `said` integer DEFAULT 1 NOT NULL;
--> statement-breakpoint
ALTER TABLE `search_bits_dirty` ADD `text` text;
--> statement-breakpoint
DROP TRIGGER `search_passages_bits_ad`;
--> statement-breakpoint
CREATE TRIGGER `search_passages_bits_ad` AFTER DELETE ON `search_passages` WHEN old.id < (SELECT reserved FROM search_bits_state) * 4096 BEGIN
  INSERT INTO search_bits_dirty (passage_id, tags, text) SELECT old.id, old.tags, old.text WHERE NOT EXISTS (SELECT 1 FROM search_bits_dirty d WHERE d.passage_id = old.id);
  UPDATE search_bits_dirty SET said = 1, text = old.text WHERE passage_id = old.id AND said = 0;
END;
--> statement-breakpoint
DROP TRIGGER `search_passages_bits_au`;
--> statement-breakpoint
CREATE TRIGGER `search_passages_bits_au` AFTER UPDATE OF id, text, tags ON `search_passages` WHEN old.id < (SELECT reserved FROM search_bits_state) * 4096 OR new.id < (SELECT reserved FROM search_bits_state) * 4096 BEGIN
  INSERT INTO search_bits_dirty (passage_id, tags, said, text) SELECT old.id, old.tags, old.id <> new.id OR old.text IS NOT new.text, CASE WHEN old.id <> new.id OR old.text IS NOT new.text THEN old.text END WHERE old.id < (SELECT reserved FROM search_bits_state) * 4096 AND NOT EXISTS (SELECT 1 FROM search_bits_dirty d WHERE d.passage_id = old.id);
  UPDATE search_bits_dirty SET said = 1, text = old.text WHERE passage_id = old.id AND said = 0 AND (old.id <> new.id OR old.text IS NOT new.text);
  INSERT INTO search_bits_dirty (passage_id, tags) SELECT new.id, '' WHERE new.id < (SELECT reserved FROM search_bits_state) * 4096 AND NOT EXISTS (SELECT 1 FROM search_bits_dirty d WHERE d.passage_id = new.id);
END;
--> statement-breakpoint
-- The worker's next round reads the terms' set again: the words that are neither dense nor rare get their said rows.
UPDATE search_bits_state SET checked_passages = 0;
