-- (drizzle-kit's CREATE TABLE and CREATE INDEX, made statements that run again: tests put a database back to before
-- an earlier migration and open it, which runs every later migration again.)
CREATE TABLE IF NOT EXISTS "meeting_numbers" (
	"meeting_id" text PRIMARY KEY NOT NULL,
	"n" integer GENERATED ALWAYS AS IDENTITY (sequence name "meeting_numbers_n_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1)
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "meeting_tag_bits" (
	"tag" text COLLATE "C" NOT NULL,
	"block" integer NOT NULL,
	"bits" bit(4096) NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "meeting_tag_bits_tag_block_idx" ON "meeting_tag_bits" USING btree ("tag","block");
--> statement-breakpoint
-- Hand-written below (drizzle-kit generates the lines above from src/db/schema-pg/filters.ts): the meetings of each tag
-- of meeting_tags as bits (issue 19). list_meetings counted a participant fragment in a few words (`om`: `tom` and
-- `omar`, 56,460 of 100k meetings) by merging their key ranges and making the meetings distinct: 66,446 entries, 23 ms,
-- and ~5 ms at best for two words by inclusion and exclusion. From the bits, a tag's block ORed with the other words'
-- and ANDed with the other filters' is bit_count() of a few rows a block (src/db/postgres/meetings.ts).
--
-- Each meeting has a number (meeting_numbers, made when its first tag is written); a block holds 4,096 numbers. The bits
-- are XOR deltas: each statement that inserts or deletes tag rows inserts, a (tag, block) a row, the bits of the
-- meetings whose tag it added or removed. A (tag, meeting) pair is in meeting_tags once (a meeting has one start), so a
-- meeting holds a tag exactly when its bit is set in the XOR of the tag's rows for its block. No writer waits for
-- another: the rows are never updated. Whoever writes the ninth row of a (tag, block), in read committed and when no
-- other writer is doing it, replaces them by their XOR (none when no bit is left).
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
        SELECT a.tag, n.n >> 12, bit_or(B'1'::bit(4096) >> (n.n & 4095)) FROM added a JOIN meeting_numbers n ON n.meeting_id = a.meeting_id GROUP BY 1, 2
        RETURNING tag, block)
    SELECT array_agg(tag), array_agg(block) INTO ts, bs FROM written;
  ELSE
    WITH written AS (
      INSERT INTO meeting_tag_bits (tag, block, bits)
        SELECT r.tag, n.n >> 12, bit_or(B'1'::bit(4096) >> (n.n & 4095)) FROM removed r JOIN meeting_numbers n ON n.meeting_id = r.meeting_id GROUP BY 1, 2
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
CREATE OR REPLACE TRIGGER meeting_tags_bits_ai AFTER INSERT ON meeting_tags REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meeting_tag_bits();
--> statement-breakpoint
CREATE OR REPLACE TRIGGER meeting_tags_bits_ad AFTER DELETE ON meeting_tags REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meeting_tag_bits();
--> statement-breakpoint
-- meeting_tags truncated (the repair refills it): no tag has a meeting. The numbers stay.
CREATE OR REPLACE FUNCTION syntheo_meeting_tag_bits_truncate() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  TRUNCATE meeting_tag_bits;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE TRIGGER meeting_tags_bits_at AFTER TRUNCATE ON meeting_tags FOR EACH STATEMENT EXECUTE FUNCTION syntheo_meeting_tag_bits_truncate();
--> statement-breakpoint
-- The bits computed again from the rows (`syntheo doctor --repair-search`, and this migration's first bits): numbers for the
-- meetings without one, every block's bits as one row. Writers of tags wait until it commits; readers do not.
CREATE OR REPLACE FUNCTION syntheo_repair_meeting_tag_bits() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  LOCK TABLE meeting_tags IN SHARE ROW EXCLUSIVE MODE;
  INSERT INTO meeting_numbers (meeting_id)
    SELECT t.meeting_id FROM meeting_tags t WHERE NOT EXISTS (SELECT 1 FROM meeting_numbers n WHERE n.meeting_id = t.meeting_id)
    GROUP BY t.meeting_id ORDER BY min(t.started_at), t.meeting_id ON CONFLICT DO NOTHING;
  DELETE FROM meeting_tag_bits;
  INSERT INTO meeting_tag_bits (tag, block, bits)
    SELECT t.tag, n.n >> 12, bit_or(B'1'::bit(4096) >> (n.n & 4095)) FROM meeting_tags t JOIN meeting_numbers n ON n.meeting_id = t.meeting_id GROUP BY 1, 2;
END $$;
--> statement-breakpoint
SELECT syntheo_repair_meeting_tag_bits();
