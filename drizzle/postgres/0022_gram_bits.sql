-- The meetings of each ASCII title gram (migration 0008: a character, or a pair of adjacent characters, of the
-- lower-cased title and id) as bits, as migration 0019 keeps them for meeting_tags (issue 19). A list with a title
-- fragment of 1-2 characters and another filter was counted by merging their key ranges: `e` (in 91,577 of 100k
-- meetings) with the most frequent participant word (42,942) read 134,519 index entries, 22 ms of a 35 ms list; a
-- one-character fragment in a leaf folder at offset 1,319 read the gram's 100,000 twice. From the bits the total is
-- bit_count() of a few rows a block (src/db/postgres/meetings.ts, bitsTotal).
--
-- Only the ASCII grams (`g` and 2 or 4 hex digits): 1,178 at 100k meetings, 29,426 (gram, block) rows, ~15 MB beside
-- meeting_tag_bits' 134. Not the words of titles (`gw…`, migration 0012: 200,028 words, mostly a meeting or a few each)
-- nor the grams beyond ASCII (`gu…`, 0009): sparse, each would be a block's 512 bytes for a bit or two.
--
-- The same XOR deltas as meeting_tags' (syntheo_meeting_tag_bits, now also on meeting_grams' statements, the other
-- grams left out); the gram tags begin with `g`, which no tag of meeting_tags does.
--
-- Whether a tag of meeting_tags or meeting_grams has bits: every tag of meeting_tags, the ASCII grams of meeting_grams.
CREATE OR REPLACE FUNCTION syntheo_has_tag_bits(tag text) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT left(tag, 1) <> 'g' OR tag ~ '^g([0-7][0-9a-f]){1,2}$' $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION syntheo_meeting_tag_bits() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  ts text[];
  bs int[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    -- New meetings numbered in the order they started (a list's blocks then hold neighbours).
    INSERT INTO meeting_numbers (meeting_id)
      SELECT a.meeting_id FROM added a WHERE NOT EXISTS (SELECT 1 FROM meeting_numbers n WHERE n.meeting_id = a.meeting_id)
      GROUP BY a.meeting_id ORDER BY min(a.started_at), a.meeting_id ON CONFLICT DO NOTHING;
    WITH written AS (
      INSERT INTO meeting_tag_bits (tag, block, bits)
        SELECT a.tag, n.n >> 12, bit_or(B'1'::bit(4096) >> (n.n & 4095)) FROM added a JOIN meeting_numbers n ON n.meeting_id = a.meeting_id
        WHERE syntheo_has_tag_bits(a.tag) GROUP BY 1, 2
        RETURNING tag, block)
    SELECT array_agg(tag), array_agg(block) INTO ts, bs FROM written;
  ELSE
    WITH written AS (
      INSERT INTO meeting_tag_bits (tag, block, bits)
        SELECT r.tag, n.n >> 12, bit_or(B'1'::bit(4096) >> (n.n & 4095)) FROM removed r JOIN meeting_numbers n ON n.meeting_id = r.meeting_id
        WHERE syntheo_has_tag_bits(r.tag) GROUP BY 1, 2
        RETURNING tag, block)
    SELECT array_agg(tag), array_agg(block) INTO ts, bs FROM written;
  END IF;
  -- As meeting_tag_counts' deltas are summed (migration 0008): in read committed only, where the DELETE reads the rows
  -- committed before it (another transaction's newer rows stay, to be folded later).
  IF current_setting('transaction_isolation') <> 'read committed' THEN RETURN NULL; END IF;
  FOR i IN 1 .. coalesce(array_length(ts, 1), 0) LOOP
    -- 1835166068: 'mbit' in ASCII, the class of these locks (a collision of two blocks' keys only skips a fold).
    IF (SELECT count(*) FROM (SELECT 1 FROM meeting_tag_bits b WHERE b.tag = ts[i] AND b.block = bs[i] LIMIT 9) y) > 8
       AND pg_try_advisory_xact_lock(1835166068, hashtext(ts[i]) # bs[i]) THEN
      WITH gone AS (DELETE FROM meeting_tag_bits b WHERE b.tag = ts[i] AND b.block = bs[i] RETURNING b.bits)
      INSERT INTO meeting_tag_bits (tag, block, bits) SELECT ts[i], bs[i], bit_xor(bits) FROM gone HAVING bit_count(bit_xor(bits)) > 0;
    END IF;
  END LOOP;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE TRIGGER meeting_grams_bits_ai AFTER INSERT ON meeting_grams REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meeting_tag_bits();
--> statement-breakpoint
CREATE OR REPLACE TRIGGER meeting_grams_bits_ad AFTER DELETE ON meeting_grams REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meeting_tag_bits();
--> statement-breakpoint
-- meeting_grams truncated (with the meetings): no gram has a meeting. meeting_tags' bits stay.
CREATE OR REPLACE FUNCTION syntheo_meeting_gram_bits_truncate() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  DELETE FROM meeting_tag_bits WHERE tag >= 'g' AND tag < 'h';
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE TRIGGER meeting_grams_bits_at AFTER TRUNCATE ON meeting_grams FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meeting_gram_bits_truncate();
--> statement-breakpoint
-- The bits computed again from the rows of both tables (`syntheo doctor --repair-search`, and this migration's first bits).
CREATE OR REPLACE FUNCTION syntheo_repair_meeting_tag_bits() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  LOCK TABLE meeting_tags, meeting_grams IN SHARE ROW EXCLUSIVE MODE;
  INSERT INTO meeting_numbers (meeting_id)
    SELECT t.meeting_id FROM (SELECT meeting_id, started_at FROM meeting_tags UNION ALL SELECT meeting_id, started_at FROM meeting_grams) t
    WHERE NOT EXISTS (SELECT 1 FROM meeting_numbers n WHERE n.meeting_id = t.meeting_id)
    GROUP BY t.meeting_id ORDER BY min(t.started_at), t.meeting_id ON CONFLICT DO NOTHING;
  DELETE FROM meeting_tag_bits;
  INSERT INTO meeting_tag_bits (tag, block, bits)
    SELECT t.tag, n.n >> 12, bit_or(B'1'::bit(4096) >> (n.n & 4095)) FROM meeting_tags t JOIN meeting_numbers n ON n.meeting_id = t.meeting_id GROUP BY 1, 2;
  INSERT INTO meeting_tag_bits (tag, block, bits)
    SELECT t.tag, n.n >> 12, bit_or(B'1'::bit(4096) >> (n.n & 4095)) FROM meeting_grams t JOIN meeting_numbers n ON n.meeting_id = t.meeting_id
    WHERE syntheo_has_tag_bits(t.tag) GROUP BY 1, 2;
END $$;
--> statement-breakpoint
-- The grams' first bits (meeting_tags' are already there). Writers of grams wait until the migration commits.
LOCK TABLE meeting_grams IN SHARE ROW EXCLUSIVE MODE;
--> statement-breakpoint
INSERT INTO meeting_numbers (meeting_id)
  SELECT g.meeting_id FROM meeting_grams g WHERE NOT EXISTS (SELECT 1 FROM meeting_numbers n WHERE n.meeting_id = g.meeting_id)
  GROUP BY g.meeting_id ORDER BY min(g.started_at), g.meeting_id ON CONFLICT DO NOTHING;
--> statement-breakpoint
DELETE FROM meeting_tag_bits WHERE tag >= 'g' AND tag < 'h';
--> statement-breakpoint
INSERT INTO meeting_tag_bits (tag, block, bits)
  SELECT g.tag, n.n >> 12, bit_or(B'1'::bit(4096) >> (n.n & 4095)) FROM meeting_grams g JOIN meeting_numbers n ON n.meeting_id = g.meeting_id
  WHERE syntheo_has_tag_bits(g.tag) GROUP BY 1, 2;
