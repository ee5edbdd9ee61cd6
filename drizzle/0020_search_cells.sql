-- The cell rows of migration 0016 (`freq:` a word, 4 bits a passage: 2,048 bytes a block; `size:`, 8 bits: 4,096
-- bytes) moved out of search_bits into a rowid table of their own (issue 19).
--
-- search_bits is a WITHOUT ROWID table, an index b-tree: on 4 KB pages it keeps at most ~1,000 bytes of a row in its
-- leaf, so every cell row continued on overflow pages (the 512-byte bit rows fit). A rowid table keeps up to ~4,060
-- bytes of a row in its leaf. Measured on the 100k bench file, one term's 96 blocks read: `freq:the` 0.96-1.02 ms in
-- search_bits, 0.23-0.27 ms in a rowid table; `size:` 1.01-1.16 ms, 0.69-0.73 ms (a 4,096-byte row still overflows
-- by its header). The bit rows stay where they are: behind a rowid table's index they read slower (0.18-0.23 ms, 0.28-0.47).
-- A ranked search reads the window's blocks of `size:` and of each word's `freq:` (windowCells); the worker and
-- the doctor read and write each term in its table (src/db/queries/search-bits.ts). Derived data, as search_bits.
CREATE TABLE `search_cells` (
	`term` text NOT NULL,
	`block` integer NOT NULL,
	`bits` blob NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `search_cells_term_block_idx` ON `search_cells` (`term`, `block`);
--> statement-breakpoint
-- The worker's clean-up reads every row of a block (search_bits has the same index).
CREATE INDEX `search_cells_block_idx` ON `search_cells` (`block`, `term`);
--> statement-breakpoint
INSERT INTO search_cells (term, block, bits) SELECT term, block, bits FROM search_bits WHERE term = 'size:' OR (term >= 'freq:' AND term < 'freq;') ORDER BY term, block;
--> statement-breakpoint
DELETE FROM search_bits WHERE term = 'size:' OR (term >= 'freq:' AND term < 'freq;');
