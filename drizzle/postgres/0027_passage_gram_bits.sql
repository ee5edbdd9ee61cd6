-- IF NOT EXISTS: run again when a later migration is (tests forget the history from an earlier one).
CREATE TABLE IF NOT EXISTS "search_handle_grams" (
	"tag" text COLLATE "C" PRIMARY KEY NOT NULL,
	"grams" text[] NOT NULL
);
--> statement-breakpoint
-- Hand-written below (drizzle-kit generates the table above from src/db/schema-pg/bitmaps.ts): the participants' grams
-- kept as passage bitmaps (issue 19), as SQLite's search bits keep them (its migration 0026).
-- search_transcripts with a participant fragment in too many names for tags and in most meetings (`person1`: 1,111 names,
-- 93% of the meetings at 100k) left out the meetings it fails: 6,985 read from its gram's bits (migration 0023), their
-- 27,441 passages looked up and tested against the words' bits (`the` + it: ~75 ms of a 90 ms search). A gram held by
-- 1/16 of the meetings or more (396 at 100k) is now a kept term of its own, kind `g`: a passage's bit set when one of its
-- meeting's names or e-mails holds the gram (lower-cased, as ILIKE matches them). A search whose fragment's meetings are
-- exactly its gram's (src/db/postgres/meetings.ts, peopleGram's `alone`) ANDs the gram's bits as it does a tag's.
-- Built from the passages' names' tags (search_tags, migration 0015) with each name's grams (search_handle_grams): a
-- block of every kept gram a round (~200 ms at 100k meetings, 19 s for the 95 blocks). The names' tags change when the
-- participants do, and mark their blocks stale as any tag does (0013's triggers): a stale block's grams are built again
-- with its words and tags. search_handle_grams holds every gram of a name (kept or not: a gram kept later needs no row
-- written again); the round writes those of the names it lacks before it reads them.
CREATE OR REPLACE FUNCTION syntheo_read_handle_grams() RETURNS void LANGUAGE sql SECURITY DEFINER SET search_path = public AS $$
  INSERT INTO search_handle_grams (tag, grams)
    SELECT t.tag, array(SELECT syntheo_people_grams(h.folded) ORDER BY 1) FROM participant_handles h, LATERAL (SELECT syntheo_handle_tag(h.handle) AS tag) t
    WHERE NOT EXISTS (SELECT 1 FROM search_handle_grams c WHERE c.tag = t.tag)
    ON CONFLICT DO NOTHING
$$;
--> statement-breakpoint
-- Block $1's bits of the kept grams built from $2 to $3 blocks: its passages' names' tags (each name's bits in the
-- block), each name's bits ORed into each of its kept grams'. A gram none of the block's passages holds has no row, as
-- a word absent from it. (STABLE: read in its caller's snapshot.) Its grams' rows hashed, not sorted: planned for any
-- block, the rows were expected ~100 and sorted, each with its name's bits (115,000 rows, 60 MB on disk, ~275 ms of 550 at
-- 100k meetings; hashed, ~160 ms a block).
CREATE OR REPLACE FUNCTION syntheo_gram_block_bits(int, int, int) RETURNS TABLE (term text, bits bit(4096)) LANGUAGE sql STABLE SET search_path = public SET enable_sort = off AS $$
  SELECT u.gram, bit_or(x.bits) FROM (
      SELECT c.grams, syntheo_block_bits(array_agg(t.passage_id)) AS bits FROM search_handle_grams c
        JOIN search_tags t ON t.tag = c.tag AND t.passage_id >= $1::bigint * 4096 AND t.passage_id < ($1 + 1)::bigint * 4096
        GROUP BY c.tag) x
    CROSS JOIN unnest(x.grams) u(gram)
    JOIN search_bitmap_terms k ON k.kind = 'g' AND k.term = u.gram AND k.built BETWEEN $2 AND $3
    GROUP BY u.gram
$$;
--> statement-breakpoint
-- 0021's, with the participants' grams held by 1/16 of the meetings or more, as their bits' rows count them (migration
-- 0023's deltas, XORed: their counts summed are the meetings holding the gram or more). Each worker's idle sweep runs it:
-- at 100k meetings 55 ms before, 119 with the grams (353 with each (gram, block)'s deltas XORed first).
CREATE OR REPLACE FUNCTION syntheo_add_search_bitmap_terms() RETURNS int LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  added int;
BEGIN
  INSERT INTO search_bitmap_terms (kind, term, built)
    -- Words by their counts with the pending deltas (migration 0011: a new database's are all pending until a fold).
    SELECT 'w', lexeme, 0 FROM search_word_totals WHERE n * 64 > (SELECT coalesce(max(id), 0) FROM search_passages)
    UNION ALL
    -- Tags by their meetings' share (grams, `g…`, are title search's, not passages'), and every year and month.
    SELECT 't', tag, 0 FROM meeting_tag_counts WHERE tag NOT LIKE 'g%' GROUP BY tag
      HAVING sum(n) * 64 > (SELECT count(*) FROM meetings) OR (tag ~ '^(y[0-9]{4}|m[0-9]{6})$' AND sum(n) > 0)
    UNION ALL
    -- The participants' grams by their meetings' share.
    SELECT 'g', tag, 0 FROM meeting_tag_bits WHERE tag LIKE 'q%' GROUP BY tag HAVING sum(bit_count(bits)) * 16 >= greatest((SELECT count(*) FROM meetings), 1)
    ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS added = ROW_COUNT;
  RETURN added;
END $$;
--> statement-breakpoint
-- 0013's round, with the grams: a stale block's built again with its words and tags; a block of every kept gram whose
-- blocks are built the least (the grams are added together) built at once, one block a round.
CREATE OR REPLACE FUNCTION syntheo_build_search_bitmaps(budget_ms int) RETURNS int LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  started timestamptz := clock_timestamp();
  target int;
  top int;
  s int;
  t record;
  hi int;
  named boolean := false;
  done int := 0;
BEGIN
  IF NOT pg_try_advisory_xact_lock(1651078253, 0) THEN RETURN -1; END IF;
  -- The tables read, before any written: a truncate of the passages (which then writes the bitmaps' tables) waits
  -- for this round, or this round for it, never each for the other.
  LOCK TABLE search_passages, search_postings, search_tags IN ACCESS SHARE MODE;
  -- Blocks below the highest passage id's are complete (new passages take higher ids).
  SELECT coalesce(max(id), 0) >> 12 INTO target FROM search_passages;
  IF target > (SELECT last_value FROM search_bitmap_boundary) THEN PERFORM setval('search_bitmap_boundary', target); END IF;
  SELECT coalesce(max(built), 0) INTO top FROM search_bitmap_terms;
  FOR s IN SELECT block FROM search_bitmap_stale ORDER BY block LOOP
    EXIT WHEN done > 0 AND clock_timestamp() - started > budget_ms * interval '1 ms';
    IF s < top THEN
      DELETE FROM search_bitmaps b USING search_bitmap_terms k WHERE b.kind = k.kind AND b.term = k.term AND b.block = s AND k.built > s;
      -- The names' grams read before the block's names' tags (writers of tags wait for this round: no name is added between).
      IF NOT named AND EXISTS (SELECT 1 FROM search_bitmap_terms WHERE kind = 'g' AND built > s) THEN PERFORM syntheo_read_handle_grams(); named := true; END IF;
      INSERT INTO search_bitmaps (kind, term, block, bits)
        SELECT 'w', k.term, s, syntheo_block_bits(array_agg(x.passage_id)) FROM search_bitmap_terms k
          JOIN search_postings x ON x.lexeme = k.term AND x.passage_id >= s::bigint * 4096 AND x.passage_id < (s + 1)::bigint * 4096
          WHERE k.kind = 'w' AND k.built > s GROUP BY k.term
        UNION ALL
        SELECT 't', k.term, s, syntheo_block_bits(array_agg(x.passage_id)) FROM search_bitmap_terms k
          JOIN search_tags x ON x.tag = k.term AND x.passage_id >= s::bigint * 4096 AND x.passage_id < (s + 1)::bigint * 4096
          WHERE k.kind = 't' AND k.built > s GROUP BY k.term
        UNION ALL
        SELECT 'g', g.term, s, g.bits FROM syntheo_gram_block_bits(s, s + 1, 2147483647) g;
    END IF;
    DELETE FROM search_bitmap_stale WHERE block = s;
    done := done + 1;
  END LOOP;
  LOOP
    EXIT WHEN done > 0 AND clock_timestamp() - started > budget_ms * interval '1 ms';
    SELECT kind, term, built INTO t FROM search_bitmap_terms WHERE built < target ORDER BY built, kind, term LIMIT 1;
    EXIT WHEN NOT FOUND;
    IF t.kind = 'g' THEN
      -- Every kept gram built as far as this one, one block further, in one statement (one snapshot: a gram added
      -- meanwhile, by syntheo_add_search_bitmap_terms outside this lock, is neither built nor marked built here).
      IF NOT named THEN PERFORM syntheo_read_handle_grams(); named := true; END IF;
      WITH g AS (SELECT * FROM syntheo_gram_block_bits(t.built, t.built, t.built)),
           w AS (INSERT INTO search_bitmaps (kind, term, block, bits) SELECT 'g', g.term, t.built, g.bits FROM g
                 ON CONFLICT (kind, term, block) DO UPDATE SET bits = excluded.bits)
      UPDATE search_bitmap_terms SET built = t.built + 1 WHERE kind = 'g' AND built = t.built;
      done := done + 1;
      CONTINUE;
    END IF;
    -- About 4,000 rows of bits at a time (~5-15 ms): one block of `the` (in 89% of the passage ids), 60 of a word in 1/64.
    -- A tag's count is of meetings: about 4 passages each.
    hi := least(target, t.built + greatest(1, least(64, 4000 * target::bigint / greatest(1,
      CASE WHEN t.kind = 'w' THEN (SELECT coalesce(sum(n), 0) FROM search_word_counts WHERE lexeme = t.term)
        + (SELECT coalesce(sum((d.counts ->> t.term)::bigint), 0) FROM search_word_deltas d WHERE d.bucket = syntheo_word_bucket(t.term)) ELSE 4 * (SELECT sum(n) FROM meeting_tag_counts WHERE tag = t.term) END))));
    IF t.kind = 'w' THEN
      INSERT INTO search_bitmaps (kind, term, block, bits)
        SELECT 'w', t.term, (passage_id >> 12)::int, syntheo_block_bits(array_agg(passage_id)) FROM search_postings
        WHERE lexeme = t.term AND passage_id >= t.built::bigint * 4096 AND passage_id < hi::bigint * 4096 GROUP BY 3
        ON CONFLICT (kind, term, block) DO UPDATE SET bits = excluded.bits;
    ELSE
      INSERT INTO search_bitmaps (kind, term, block, bits)
        SELECT 't', t.term, (passage_id >> 12)::int, syntheo_block_bits(array_agg(passage_id)) FROM search_tags
        WHERE tag = t.term AND passage_id >= t.built::bigint * 4096 AND passage_id < hi::bigint * 4096 GROUP BY 3
        ON CONFLICT (kind, term, block) DO UPDATE SET bits = excluded.bits;
    END IF;
    UPDATE search_bitmap_terms SET built = hi WHERE kind = t.kind AND term = t.term;
    done := done + 1;
  END LOOP;
  RETURN done;
END $$;
--> statement-breakpoint
-- `syntheo doctor --repair-search`: 0013's, the names' grams read again too.
CREATE OR REPLACE FUNCTION syntheo_clear_search_bitmaps() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(1651078253, 0);
  DELETE FROM search_bitmaps;
  DELETE FROM search_bitmap_terms;
  DELETE FROM search_bitmap_stale;
  DELETE FROM search_handle_grams;
END $$;
--> statement-breakpoint
-- Roles made by `syntheo db roles` before this migration got write privileges on the new table (their default
-- privileges): neither may write it (only the rounds do), as that command now says.
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT DISTINCT grantee FROM information_schema.role_table_grants
    WHERE table_schema = current_schema() AND table_name = 'search_handle_grams'
      AND privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE') AND grantee NOT IN (current_user, 'PUBLIC')
  LOOP
    EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON search_handle_grams FROM %I', r.grantee);
  END LOOP;
END $$;
