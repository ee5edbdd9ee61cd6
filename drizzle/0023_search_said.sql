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
-- blocks at a time, up to the term's `built` block, the passages marked dirty left out, as search_lists (migration
-- 0021). A passage marked dirty is taken out of every said row of its span when cleaned (its old text is not kept:
-- a mark whose tags are '' is a new passage, which no row holds), then put into the rows of the words it says now.
-- search_said_span_idx finds a span's rows for that. Derived data: `syntheo doctor --repair-search` empties it.
CREATE TABLE `search_said` (
	`term` text NOT NULL,
	`span` integer NOT NULL,
	`ids` blob NOT NULL,
	PRIMARY KEY (`term`, `span`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `search_said_span_idx` ON `search_said` (`span`);
--> statement-breakpoint
-- The worker's next round reads the terms' set again: the words that are neither dense nor rare get their said rows.
UPDATE search_bits_state SET checked_passages = 0;
