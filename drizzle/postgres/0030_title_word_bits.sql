-- Custom SQL migration file: the meetings of the title words made of ASCII letters (`gw` + a-z, migration 0012) as bits,
-- as migration 0022 keeps the ASCII title grams' (issue 19). A list with a title word and another filter was counted by
-- merging their key ranges: `design` (16,068 of 100k meetings) with the most frequent participant word (42,942) read
-- both words' index entries, ~9 ms of an 11 ms list; with the folder's and six months' too. From the bits the total is
-- bit_count() of a few rows a block (src/db/postgres/meetings.ts, bitsTotal).
--
-- Only the words of letters: the words of a language, few and held by many meetings each (at 100k meetings the bench's
-- titles and ids hold 28 such words in more than one meeting, `mtg` in every one; 271 ids' random parts happen to be
-- letters only), where a block's 512 bytes hold many bits. Not the words
-- with digits or other characters (`#1869`, the ids' random parts: 200,000 words at 100k, a meeting or a few each) nor
-- those beyond ASCII: sparse, each a block's 512 bytes for a bit or two, as 0022 said of all words. A word of letters
-- held by one meeting costs one row of 512 bytes.
--
-- The same XOR deltas as the other tags' (syntheo_meeting_tag_bits, on meeting_grams' statements since 0022).
CREATE OR REPLACE FUNCTION syntheo_has_tag_bits(tag text) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT left(tag, 1) <> 'g' OR tag ~ '^g([0-7][0-9a-f]){1,2}$' OR tag ~ '^gw[a-z]+$' $$;
--> statement-breakpoint
-- The words' first bits. Writers of grams wait until the migration commits.
LOCK TABLE meeting_grams IN SHARE ROW EXCLUSIVE MODE;
--> statement-breakpoint
DELETE FROM meeting_tag_bits WHERE tag >= 'gw' AND tag < 'gx';
--> statement-breakpoint
INSERT INTO meeting_tag_bits (tag, block, bits)
  SELECT g.tag, n.n >> 12, bit_or(B'1'::bit(4096) >> (n.n & 4095)) FROM meeting_grams g JOIN meeting_numbers n ON n.meeting_id = g.meeting_id
  WHERE g.tag >= 'gw' AND g.tag < 'gx' AND syntheo_has_tag_bits(g.tag) GROUP BY 1, 2;
