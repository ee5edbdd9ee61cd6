-- The participants' grams held by 1/16 of the meetings get search bits (src/db/queries/search-bits.ts, `gram:` terms of
-- search_bits, no new table): a participant fragment in too many names for a filter's tags is read from its gram's bits,
-- not from the OR of its names' lists. The worker's next round reads the dense terms again, which adds them. (A Syntheo
-- before this one would build such a term as a column of search_fts and fail its round: it refuses a database migrated
-- past what it knows.)
UPDATE `search_bits_state` SET `checked_passages` = 0;
