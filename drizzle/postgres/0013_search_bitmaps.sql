CREATE TABLE "search_bitmap_stale" (
	"block" integer PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE TABLE "search_bitmap_terms" (
	"kind" text NOT NULL,
	"term" text COLLATE "C" NOT NULL,
	"built" integer NOT NULL,
	CONSTRAINT "search_bitmap_terms_kind_term_pk" PRIMARY KEY("kind","term")
);
--> statement-breakpoint
CREATE TABLE "search_bitmaps" (
	"kind" text NOT NULL,
	"term" text COLLATE "C" NOT NULL,
	"block" integer NOT NULL,
	"bits" bit(4096) NOT NULL,
	CONSTRAINT "search_bitmaps_kind_term_block_pk" PRIMARY KEY("kind","term","block")
);
--> statement-breakpoint
-- Hand-written below (drizzle-kit generates the lines above from src/db/schema-pg/bitmaps.ts): the bitmaps' upkeep
-- (issue 19). search_transcripts' exact total of a common word with a broad filter merged the word's postings with
-- the filter's tags (`the` and a participant: 346,673 postings, 166,000 tags, ~40 ms at 100k meetings). Each dense
-- term (a word or tag in more than 1/64 of the passage ids) keeps one bitmap a block of 4,096 passage ids; the total
-- over the built blocks is sum(bit_count(word & word & (tag | tag) & ...)), and the rest (the blocks not built yet,
-- the newest of them, and blocks marked stale) is counted from the postings as before (src/db/postgres/search.ts).
--
-- Who writes what:
-- - The worker's rounds (syntheo_build_search_bitmaps, a short transaction each) build the complete blocks (below the
--   highest passage id's), add newly dense terms block by block, and rebuild the stale blocks.
-- - Statement triggers on search_postings and search_tags mark the blocks their rows changed, below the boundary
--   (search_bitmap_boundary: the blocks any round may have built), as stale. New passages (higher ids) mark nothing.
-- Exactness: a round never builds from a snapshot that misses a change no mark records. The triggers take a shared
-- advisory lock (until their transaction ends) before they read the boundary; a round runs only when it gets the
-- exclusive lock at once (a try: it never waits, and no writer waits for it unless a round is under way). So a
-- round sees every change made before it (their writers committed), and a writer that changes rows after a round
-- started reads the boundary that round set (it waits for the round's commit). The boundary is a sequence, read
-- whatever the writer's snapshot (a repeatable-read writer's is older than the lock), and never lowered.
CREATE SEQUENCE search_bitmap_boundary AS integer MINVALUE 0 START 0;
--> statement-breakpoint
-- The rows changed by a statement: their blocks below the boundary marked stale (a block once).
CREATE FUNCTION syntheo_search_bitmaps_stale() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  boundary bigint;
BEGIN
  -- 1651078253: 'bitm' in ASCII, the class of this lock (0010's are 'word').
  PERFORM pg_advisory_xact_lock_shared(1651078253, 0);
  SELECT last_value INTO boundary FROM search_bitmap_boundary;
  IF boundary = 0 THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO search_bitmap_stale (block) SELECT DISTINCT (passage_id >> 12)::int FROM added WHERE passage_id < boundary * 4096 ORDER BY 1 ON CONFLICT DO NOTHING;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    INSERT INTO search_bitmap_stale (block) SELECT DISTINCT (passage_id >> 12)::int FROM removed WHERE passage_id < boundary * 4096 ORDER BY 1 ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- search_postings or search_tags truncated: no bitmap holds (the rounds build them again).
CREATE FUNCTION syntheo_search_bitmaps_truncate() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  TRUNCATE search_bitmaps, search_bitmap_terms, search_bitmap_stale;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- One block of a term's passage ids as bits (bit i: passage id block * 4096 + i).
CREATE FUNCTION syntheo_block_bits(ids bigint[]) RETURNS bit(4096) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT bit_or(B'1'::bit(4096) >> (i & 4095)::int) FROM unnest(ids) i
$$;
--> statement-breakpoint
-- The terms that became dense (each word's and tag's kept count against the passage ids and the meetings, 5-50 ms at
-- 100k meetings) added, their blocks not built yet; the number added. Outside the rounds' lock: a term with no block
-- built is not read (src/db/postgres/bitmaps.ts), so writers need not wait for this.
CREATE FUNCTION syntheo_add_search_bitmap_terms() RETURNS int LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  added int;
BEGIN
  INSERT INTO search_bitmap_terms (kind, term, built)
    -- Words by their counts with the pending deltas (migration 0011: a new database's are all pending until a fold).
    SELECT 'w', lexeme, 0 FROM search_word_totals WHERE n * 64 > (SELECT coalesce(max(id), 0) FROM search_passages)
    UNION ALL
    -- Tags by their meetings' share (grams, `g…`, are title search's, not passages').
    SELECT 't', tag, 0 FROM meeting_tag_counts WHERE tag NOT LIKE 'g%' GROUP BY tag HAVING sum(n) * 64 > (SELECT count(*) FROM meetings)
    ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS added = ROW_COUNT;
  RETURN added;
END $$;
--> statement-breakpoint
-- A round of the worker's upkeep (src/db/postgres/bitmaps.ts), about `budget_ms` of work in one transaction: stale
-- blocks rebuilt, then kept terms built up to the last complete block, a few blocks of one term at a time. Returns
-- the units of work done; 0: nothing to do; -1: writers of postings or tags were under way (the lock was not free),
-- try later. Writers of postings and tags that come meanwhile wait for it (at most a round).
CREATE FUNCTION syntheo_build_search_bitmaps(budget_ms int) RETURNS int LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
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
    END IF;
    DELETE FROM search_bitmap_stale WHERE block = s;
    done := done + 1;
  END LOOP;
  LOOP
    EXIT WHEN done > 0 AND clock_timestamp() - started > budget_ms * interval '1 ms';
    SELECT kind, term, built INTO t FROM search_bitmap_terms WHERE built < target ORDER BY built, kind, term LIMIT 1;
    EXIT WHEN NOT FOUND;
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
-- `syntheo doctor --repair-search`: every bitmap dropped (the worker's rounds build them again). Waits for a round
-- under way; writers of postings and tags wait for this short transaction.
CREATE FUNCTION syntheo_clear_search_bitmaps() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(1651078253, 0);
  DELETE FROM search_bitmaps;
  DELETE FROM search_bitmap_terms;
  DELETE FROM search_bitmap_stale;
END $$;
--> statement-breakpoint
CREATE TRIGGER search_postings_bitmaps_ai AFTER INSERT ON search_postings REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_search_bitmaps_stale();
--> statement-breakpoint
CREATE TRIGGER search_postings_bitmaps_au AFTER UPDATE ON search_postings REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_search_bitmaps_stale();
--> statement-breakpoint
CREATE TRIGGER search_postings_bitmaps_ad AFTER DELETE ON search_postings REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION syntheo_search_bitmaps_stale();
--> statement-breakpoint
CREATE TRIGGER search_postings_bitmaps_at AFTER TRUNCATE ON search_postings FOR EACH STATEMENT EXECUTE FUNCTION syntheo_search_bitmaps_truncate();
--> statement-breakpoint
CREATE TRIGGER search_tags_bitmaps_ai AFTER INSERT ON search_tags REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_search_bitmaps_stale();
--> statement-breakpoint
CREATE TRIGGER search_tags_bitmaps_au AFTER UPDATE ON search_tags REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_search_bitmaps_stale();
--> statement-breakpoint
CREATE TRIGGER search_tags_bitmaps_ad AFTER DELETE ON search_tags REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION syntheo_search_bitmaps_stale();
--> statement-breakpoint
CREATE TRIGGER search_tags_bitmaps_at AFTER TRUNCATE ON search_tags FOR EACH STATEMENT EXECUTE FUNCTION syntheo_search_bitmaps_truncate();
--> statement-breakpoint
-- Roles made by `syntheo db roles` before this migration got write privileges on the new tables and the sequence
-- (their default privileges): neither may write them (only the functions above do), as that command now says.
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT DISTINCT grantee FROM information_schema.role_table_grants
    WHERE table_schema = current_schema() AND table_name IN ('search_bitmaps', 'search_bitmap_terms', 'search_bitmap_stale')
      AND privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE') AND grantee NOT IN (current_user, 'PUBLIC')
  LOOP
    EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON search_bitmaps, search_bitmap_terms, search_bitmap_stale FROM %I', r.grantee);
  END LOOP;
  FOR r IN SELECT DISTINCT grantee FROM information_schema.usage_privileges
    WHERE object_schema = current_schema() AND object_name = 'search_bitmap_boundary' AND grantee NOT IN (current_user, 'PUBLIC')
  LOOP
    EXECUTE format('REVOKE USAGE, UPDATE ON SEQUENCE search_bitmap_boundary FROM %I', r.grantee);
  END LOOP;
END $$;
