-- The ranking of a search's window without reading its passages (issue 19): kept beside the bitmaps of migration
-- 0015, in the same table and by the same rounds of the worker, for each dense word `freq:<word>` (how often each
-- passage's text says it: 4 bits a passage, 15 for 15 or more) and once `size:` (each passage's length in tokens, as
-- search_fts_docsize records it: a byte a passage, 255 for 255 or more). BM25 needs only these two for a passage;
-- the window of `the` + a folder read 2,000 passages' text and lengths for them (src/db/queries/search-bits.ts).
--
-- Nothing to create: the state's check of the dense terms is moved back, so the next round of the worker adds the
-- new kinds of terms to a file whose bitmaps were built before this migration.
UPDATE search_bits_state SET checked_passages = 0 WHERE id = 1;
