-- (drizzle-kit's CREATE TABLE, made a statement that runs again: tests put a database back to before an earlier
-- migration and open it, which runs every later migration again.)
CREATE TABLE IF NOT EXISTS "search_counts" (
	"term" text COLLATE "C" NOT NULL,
	"block" integer NOT NULL,
	"counts" "bytea" NOT NULL,
	CONSTRAINT "search_counts_term_block_pk" PRIMARY KEY("term","block")
);
--> statement-breakpoint
-- Hand-written below (drizzle-kit generates the lines above from src/db/schema-pg/bitmaps.ts): how often each passage
-- of a block says a kept word, built with the word's bitmaps (issue 19). A search of one common word with a filter read
-- its window's 2,000 matches from the bitmaps (migration 0013) and ranked them by how often each says the word, looked
-- up in search_postings one passage at a time (1.4 µs each: 2.8 of the 7 ms of `the` + one month at 100k meetings).
-- Read from these bytes instead (src/db/postgres/bitmaps.ts), the statement took 4.6 ms.
--
-- A row is the block's 4,096 passage ids, a byte each: the passage's n (its positions of the word), 255 for 255 or
-- more, 0 where it does not say the word. ~0.9 KB compressed (lz4, where the server has it): 31 MB for the 380 kept
-- words of 100k meetings (35,812 rows). Exactness: the rows are written only where the word's bitmap is, in the same transaction
-- (the rounds, their rebuild of stale blocks, the clear); a block marked stale is read from neither. A search reads a
-- byte only for a passage of a built block not marked stale, and looks up the posting for 0 and 255.
DO $$
BEGIN
  ALTER TABLE search_counts ALTER COLUMN counts SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL; -- a server built without lz4 keeps its default (pglz)
END $$;
--> statement-breakpoint
-- A block's counts from its postings, each as its passage's place in the block (0-4095) times 256 plus its count (at
-- most 255): one aggregate, in any order. A byte set a posting (96 blocks of `the`, 346,673 postings: 65 ms, against
-- 153 for the same bytes aggregated as hex text in passage order).
CREATE OR REPLACE FUNCTION syntheo_block_counts(cells int[]) RETURNS bytea LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  counts bytea := decode(repeat('00', 4096), 'hex');
BEGIN
  FOR i IN 1 .. coalesce(array_length(cells, 1), 0) LOOP
    counts := set_byte(counts, cells[i] >> 8, cells[i] & 255);
  END LOOP;
  RETURN counts;
END $$;
--> statement-breakpoint
-- Migration 0013's round, with each word's counts written where its bits are (the lines marked `counts`).
CREATE OR REPLACE FUNCTION syntheo_build_search_bitmaps(budget_ms int) RETURNS int LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  started timestamptz := clock_timestamp();
  target int;
  top int;
  s int;
  t record;
  hi int;
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
      INSERT INTO search_bitmaps (kind, term, block, bits)
        SELECT 'w', k.term, s, syntheo_block_bits(array_agg(x.passage_id)) FROM search_bitmap_terms k
          JOIN search_postings x ON x.lexeme = k.term AND x.passage_id >= s::bigint * 4096 AND x.passage_id < (s + 1)::bigint * 4096
          WHERE k.kind = 'w' AND k.built > s GROUP BY k.term
        UNION ALL
        SELECT 't', k.term, s, syntheo_block_bits(array_agg(x.passage_id)) FROM search_bitmap_terms k
          JOIN search_tags x ON x.tag = k.term AND x.passage_id >= s::bigint * 4096 AND x.passage_id < (s + 1)::bigint * 4096
          WHERE k.kind = 't' AND k.built > s GROUP BY k.term;
      -- counts
      DELETE FROM search_counts c USING search_bitmap_terms k WHERE k.kind = 'w' AND c.term = k.term AND c.block = s AND k.built > s;
      INSERT INTO search_counts (term, block, counts)
        SELECT k.term, s, syntheo_block_counts(array_agg((x.passage_id & 4095)::int << 8 | least(x.n, 255)))
          FROM search_bitmap_terms k
          JOIN search_postings x ON x.lexeme = k.term AND x.passage_id >= s::bigint * 4096 AND x.passage_id < (s + 1)::bigint * 4096
          WHERE k.kind = 'w' AND k.built > s GROUP BY k.term;
    END IF;
    DELETE FROM search_bitmap_stale WHERE block = s;
    done := done + 1;
  END LOOP;
  LOOP
    EXIT WHEN done > 0 AND clock_timestamp() - started > budget_ms * interval '1 ms';
    SELECT kind, term, built INTO t FROM search_bitmap_terms WHERE built < target ORDER BY built, kind, term LIMIT 1;
    EXIT WHEN NOT FOUND;
    -- About 4,000 rows of bits at a time (~5-15 ms, ~1-2 more for a word's counts): one block of `the` (in 89% of the
    -- passage ids), 60 of a word in 1/64. A tag's count is of meetings: about 4 passages each.
    hi := least(target, t.built + greatest(1, least(64, 4000 * target::bigint / greatest(1,
      CASE WHEN t.kind = 'w' THEN (SELECT coalesce(sum(n), 0) FROM search_word_counts WHERE lexeme = t.term)
        + (SELECT coalesce(sum((d.counts ->> t.term)::bigint), 0) FROM search_word_deltas d WHERE d.bucket = syntheo_word_bucket(t.term)) ELSE 4 * (SELECT sum(n) FROM meeting_tag_counts WHERE tag = t.term) END))));
    IF t.kind = 'w' THEN
      INSERT INTO search_bitmaps (kind, term, block, bits)
        SELECT 'w', t.term, (passage_id >> 12)::int, syntheo_block_bits(array_agg(passage_id)) FROM search_postings
        WHERE lexeme = t.term AND passage_id >= t.built::bigint * 4096 AND passage_id < hi::bigint * 4096 GROUP BY 3
        ON CONFLICT (kind, term, block) DO UPDATE SET bits = excluded.bits;
      -- counts
      INSERT INTO search_counts (term, block, counts)
        SELECT t.term, (passage_id >> 12)::int, syntheo_block_counts(array_agg((passage_id & 4095)::int << 8 | least(n, 255)))
        FROM search_postings
        WHERE lexeme = t.term AND passage_id >= t.built::bigint * 4096 AND passage_id < hi::bigint * 4096 GROUP BY 2
        ON CONFLICT (term, block) DO UPDATE SET counts = excluded.counts;
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
-- `syntheo doctor --repair-search`: every bitmap and count dropped (the worker's rounds build them again).
CREATE OR REPLACE FUNCTION syntheo_clear_search_bitmaps() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(1651078253, 0);
  DELETE FROM search_bitmaps;
  DELETE FROM search_counts;
  DELETE FROM search_bitmap_terms;
  DELETE FROM search_bitmap_stale;
END $$;
--> statement-breakpoint
-- search_postings or search_tags truncated: no bitmap or count holds (the rounds build them again).
CREATE OR REPLACE FUNCTION syntheo_search_bitmaps_truncate() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  TRUNCATE search_bitmaps, search_counts, search_bitmap_terms, search_bitmap_stale;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- The counts of every word's built blocks (stale ones too: they are rebuilt with their bits), under the rounds' lock.
-- 100k meetings: the 9.2 million postings of 380 kept words, 3.9 s.
DO $$
BEGIN
  PERFORM pg_advisory_xact_lock(1651078253, 0);
  DELETE FROM search_counts;
  INSERT INTO search_counts (term, block, counts)
    SELECT x.lexeme, (x.passage_id >> 12)::int, syntheo_block_counts(array_agg((x.passage_id & 4095)::int << 8 | least(x.n, 255)))
    FROM search_bitmap_terms k JOIN search_postings x ON x.lexeme = k.term AND x.passage_id < k.built::bigint * 4096
    WHERE k.kind = 'w' GROUP BY 1, 2;
END $$;
--> statement-breakpoint
-- Roles made by `syntheo db roles` before this migration got write privileges on the new table (their default
-- privileges): neither may write it (only the functions above do), as that command now says.
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT DISTINCT grantee FROM information_schema.role_table_grants
    WHERE table_schema = current_schema() AND table_name = 'search_counts'
      AND privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE') AND grantee NOT IN (current_user, 'PUBLIC')
  LOOP
    EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON search_counts FROM %I', r.grantee);
  END LOOP;
END $$;
