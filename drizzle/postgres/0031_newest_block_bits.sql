-- (drizzle-kit's CREATE TABLEs, made statements that run again: tests put a database back to before an earlier
-- migration and open it, which runs every later migration again.)
CREATE TABLE IF NOT EXISTS "search_bitmap_tail" (
	"block" integer PRIMARY KEY NOT NULL,
	"upto" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "search_bitmap_tail_stale" (
	"passage_id" bigint PRIMARY KEY NOT NULL
);
--> statement-breakpoint
-- Hand-written below (drizzle-kit generates the tables above from src/db/schema-pg/bitmaps.ts): the newest block's bits
-- (issue 19). The rounds (0013, 0027) built complete blocks only: the newest, partial block was counted from its rows at
-- every search, ~2,000 passages on a live database (0 to 4,095), where the bench's file has 521. With 4,617 passages
-- there, `the` + `person1` took 25 ms against 13 at 100k meetings. It cannot be built as the others are: each new passage
-- would mark it stale, and a stale block is built again whole (0.5-1.4 s at 100k meetings).
--
-- Now the kept terms built as far as the newest block (built = its number, from block 1 on: a term is added built as
-- far as block 0) have its bits for the passage ids below search_bitmap_tail.upto, and each round adds the passages
-- written since, TAIL_PASSAGES at most (the names of the constants are the comments'; their values are written where
-- they are used). A search reads those bits, and counts from the rows only the passages from `upto` on
-- (src/db/postgres/bitmaps.ts); and its words' counts (search_counts) likewise, written by the rounds with the bits
-- (the triggers of 0020 write none of that block's).
--
-- Exactness, as 0013's: the triggers take the rounds' lock (shared) before they read the boundaries, and a round runs
-- only with it (exclusive). A changed passage below the newest block's `upto` (search_bitmap_tail_boundary: the highest
-- any round set, never lowered) is recorded (search_bitmap_tail_stale, the lowest of each statement), and a search
-- reads no bits of that block while one is (nor while the block is marked stale). The next round takes the bits from
-- the lowest on away (a transcript's last passage, rewritten at each chunk the worker appends, costs only its own
-- bits), lowers `upto` to it, and adds them again from the rows. When passages fill the block (the highest passage id's
-- block is higher), its partial rows are dropped and the rounds build it whole as any complete block, and the newest
-- block starts empty.
CREATE SEQUENCE IF NOT EXISTS search_bitmap_tail_boundary AS bigint MINVALUE 0 START 0;
--> statement-breakpoint
-- 0013's, with the newest block's changed passages recorded.
CREATE OR REPLACE FUNCTION syntheo_search_bitmaps_stale() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  boundary bigint;
  tail bigint;
BEGIN
  -- 1651078253: 'bitm' in ASCII, the class of this lock (0010's are 'word').
  PERFORM pg_advisory_xact_lock_shared(1651078253, 0);
  SELECT last_value INTO boundary FROM search_bitmap_boundary;
  SELECT last_value INTO tail FROM search_bitmap_tail_boundary;
  IF boundary = 0 AND tail = 0 THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO search_bitmap_stale (block) SELECT DISTINCT (passage_id >> 12)::int FROM added WHERE passage_id < boundary * 4096 ORDER BY 1 ON CONFLICT DO NOTHING;
    INSERT INTO search_bitmap_tail_stale (passage_id) SELECT min(passage_id) FROM added WHERE passage_id >= boundary * 4096 AND passage_id < tail HAVING count(*) > 0 ON CONFLICT DO NOTHING;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    INSERT INTO search_bitmap_stale (block) SELECT DISTINCT (passage_id >> 12)::int FROM removed WHERE passage_id < boundary * 4096 ORDER BY 1 ON CONFLICT DO NOTHING;
    INSERT INTO search_bitmap_tail_stale (passage_id) SELECT min(passage_id) FROM removed WHERE passage_id >= boundary * 4096 AND passage_id < tail HAVING count(*) > 0 ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- search_postings or search_tags truncated: no bitmap holds (the rounds build them again).
CREATE OR REPLACE FUNCTION syntheo_search_bitmaps_truncate() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  TRUNCATE search_bitmaps, search_bitmap_terms, search_bitmap_stale, search_bitmap_tail, search_bitmap_tail_stale;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- The bits of the passage ids lo to hi - 1 (within block b) of the kept grams built as far as b: each passage's meeting's
-- participants' names and e-mails (those whose tags search_tags holds for each of the meeting's passages, migration
-- 0015) with each one's grams (search_handle_grams, its rows for those names written first where lacking), ORed by
-- gram. Not syntheo_read_handle_grams as before a whole block's: it looks every name up, 33-52 ms at 100k meetings even
-- when none is lacking; nor each name's grams computed here (22 ms for 128 passages' 65 names). Each statement planned
-- for its values at each call (EXECUTE): planned for any range (a SQL function's), it took 185 ms. Hashed, not sorted
-- (as 0027's), and not compiled (JIT): a sort turned off costs a plan 10^10, past jit_above_cost, and compiling it took
-- ~220 ms. At 100k meetings, 128 passages: ~10 ms.
CREATE OR REPLACE FUNCTION syntheo_gram_range_bits(lo bigint, hi bigint, b int) RETURNS TABLE (term text, bits bit(4096)) LANGUAGE plpgsql SET search_path = public SET enable_sort = off SET jit = off AS $$
BEGIN
  EXECUTE
    'INSERT INTO search_handle_grams (tag, grams)
       SELECT t.tag, array(SELECT syntheo_people_grams(lower(h.handle)) ORDER BY 1)
       FROM (SELECT DISTINCT h.handle FROM (SELECT DISTINCT meeting_id FROM search_passages WHERE id >= $1 AND id < $2) m
               JOIN participants pa ON pa.meeting_id = m.meeting_id CROSS JOIN LATERAL (VALUES (pa.name), (pa.email)) h(handle)
             WHERE h.handle IS NOT NULL) h
         CROSS JOIN LATERAL (SELECT syntheo_handle_tag(h.handle) AS tag) t
       WHERE NOT EXISTS (SELECT 1 FROM search_handle_grams c WHERE c.tag = t.tag)
       ON CONFLICT DO NOTHING' USING lo, hi;
  RETURN QUERY EXECUTE
    'SELECT u.gram, bit_or(x.bits) FROM (
         SELECT c.grams, bit_or(pm.bits) AS bits
         FROM (SELECT p.meeting_id, syntheo_block_bits(array_agg(p.id)) AS bits FROM search_passages p WHERE p.id >= $1 AND p.id < $2 GROUP BY 1) pm
           JOIN participants pa ON pa.meeting_id = pm.meeting_id
           CROSS JOIN LATERAL (VALUES (pa.name), (pa.email)) h(handle)
           JOIN search_handle_grams c ON c.tag = syntheo_handle_tag(h.handle)
         GROUP BY c.tag) x
       CROSS JOIN unnest(x.grams) u(gram)
       JOIN search_bitmap_terms k ON k.kind = ''g'' AND k.term = u.gram AND k.built = $3
     GROUP BY u.gram' USING lo, hi, b;
END $$;
--> statement-breakpoint
-- The newest block's (b) counts of the passage ids lo to hi - 1 (0020's, from the postings) laid into those of the kept
-- words built as far as it, or of the word `one`. (A search ranks its window, the newest matches, from them: looked up
-- in the postings instead, `the and` with 4,617 passages in the newest block took 15.2 ms against 8.7 with its counts.)
-- Planned for its values at each call (EXECUTE). The range's bytes made alone (syntheo_range_counts), then laid in: made
-- as a whole block's (syntheo_block_counts: each byte set copies the block's 4,096), 128 passages' took ~30 ms more.
CREATE OR REPLACE FUNCTION syntheo_range_counts(len int, cells int[]) RETURNS bytea LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  counts bytea := decode(repeat('00', len), 'hex');
BEGIN
  FOR i IN 1 .. coalesce(array_length(cells, 1), 0) LOOP
    counts := set_byte(counts, cells[i] >> 8, cells[i] & 255);
  END LOOP;
  RETURN counts;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION syntheo_add_tail_counts(b int, lo bigint, hi bigint, one text) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  EXECUTE 'INSERT INTO search_counts (term, block, counts)
      SELECT k.term, $1, overlay(decode(repeat(''00'', 4096), ''hex'') PLACING syntheo_range_counts(($3 - $2)::int, array_agg((x.passage_id - $2)::int << 8 | least(x.n, 255)))
                                 FROM ($2 & 4095)::int + 1)
      FROM search_bitmap_terms k
        JOIN search_postings x ON x.lexeme = k.term AND x.passage_id >= $2 AND x.passage_id < $3
        WHERE k.kind = ''w'' AND ' || CASE WHEN one IS NULL THEN 'k.built = $1' ELSE 'k.term = $4' END || ' GROUP BY k.term
    ON CONFLICT (term, block) DO UPDATE
      SET counts = overlay(search_counts.counts PLACING substring(excluded.counts FROM ($2 & 4095)::int + 1 FOR ($3 - $2)::int) FROM ($2 & 4095)::int + 1)'
  USING b, lo, hi, one;
END $$;
--> statement-breakpoint
-- The newest block's bits of the passage ids lo to hi - 1 ORed into those of the kept terms built as far as it (b), and
-- its words' counts laid in; or its grams' bits only. (Counts are written here: syntheo_search_counts writes none of
-- the newest block's.)
CREATE OR REPLACE FUNCTION syntheo_add_tail_bits(b int, lo bigint, hi bigint, grams_only boolean) RETURNS void LANGUAGE sql SECURITY DEFINER SET search_path = public AS $$
  INSERT INTO search_bitmaps (kind, term, block, bits)
    SELECT 'w', k.term, b, syntheo_block_bits(array_agg(x.passage_id)) FROM search_bitmap_terms k
      JOIN search_postings x ON x.lexeme = k.term AND x.passage_id >= lo AND x.passage_id < hi
      WHERE k.kind = 'w' AND k.built = b AND NOT grams_only GROUP BY k.term
    UNION ALL
    SELECT 't', k.term, b, syntheo_block_bits(array_agg(x.passage_id)) FROM search_bitmap_terms k
      JOIN search_tags x ON x.tag = k.term AND x.passage_id >= lo AND x.passage_id < hi
      WHERE k.kind = 't' AND k.built = b AND NOT grams_only GROUP BY k.term
    UNION ALL
    SELECT 'g', g.term, b, g.bits FROM syntheo_gram_range_bits(lo, hi, b) g
  ON CONFLICT (kind, term, block) DO UPDATE SET bits = search_bitmaps.bits | excluded.bits;
  SELECT syntheo_add_tail_counts(b, lo, hi, NULL) WHERE NOT grams_only;
$$;
--> statement-breakpoint
-- A statement's words' bitmap rows (kind `w`): their counts deleted, or written from the postings it sees; 0020's, but
-- for the newest block's rows (their bits are of part of it).
CREATE OR REPLACE FUNCTION syntheo_search_counts() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM search_counts c USING removed r WHERE r.kind = 'w' AND c.term = r.term AND c.block = r.block;
  ELSE
    PERFORM syntheo_write_search_counts(array_agg(a.term), array_agg(a.block)) FROM added a
      WHERE a.kind = 'w' AND a.block < coalesce((SELECT max(block) FROM search_bitmap_tail), 2147483647) HAVING count(*) > 0;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- 0027's round, with the newest block's bits: first its changed passages' bits taken away, and its partial rows dropped
-- when it is no longer the newest; a term built as far as it built to `upto` at once; then the passages from `upto` on
-- added, TAIL_PASSAGES (128: 49-72 ms at 100k meetings) at most, within the round's budget.
CREATE OR REPLACE FUNCTION syntheo_build_search_bitmaps(budget_ms int) RETURNS int LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  started timestamptz := clock_timestamp();
  target int;
  top int;
  s int;
  t record;
  hi int;
  tb int;
  tu bigint;
  ts bigint;
  nu bigint;
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
  -- The newest block's bits: those of its changed passages (the lowest's on) taken away; all of them when the block is
  -- marked stale (a round that failed after it raised search_bitmap_boundary past it; the loop below drops the mark).
  SELECT block, upto INTO tb, tu FROM search_bitmap_tail;
  IF NOT FOUND THEN
    tb := target; tu := target::bigint * 4096;
    INSERT INTO search_bitmap_tail (block, upto) VALUES (tb, tu);
  END IF;
  SELECT min(p) INTO ts FROM (SELECT passage_id AS p FROM search_bitmap_tail_stale UNION ALL SELECT block::bigint * 4096 FROM search_bitmap_stale WHERE block >= tb) x;
  IF ts IS NOT NULL THEN
    ts := greatest(ts, tb::bigint * 4096);
    IF ts < tu THEN
      -- Bit i kept for i below ts's place in the block (a bit string's first bit is bit 0).
      UPDATE search_bitmaps b SET bits = b.bits & ~(~B'0'::bit(4096) >> (ts - tb::bigint * 4096)::int)
        FROM search_bitmap_terms k WHERE b.kind = k.kind AND b.term = k.term AND b.block = tb AND k.built = tb;
      DELETE FROM search_bitmaps b USING search_bitmap_terms k
        WHERE b.kind = k.kind AND b.term = k.term AND b.block = tb AND k.built = tb AND bit_count(b.bits) = 0;
      -- And the words' counts (those of the rows deleted went with them).
      UPDATE search_counts c SET counts = overlay(c.counts PLACING decode(repeat('00', 4096 - (ts - tb::bigint * 4096)::int), 'hex') FROM (ts - tb::bigint * 4096)::int + 1)
        FROM search_bitmap_terms k WHERE k.kind = 'w' AND k.term = c.term AND k.built = tb AND c.block = tb;
      tu := ts;
      UPDATE search_bitmap_tail SET upto = tu;
    END IF;
    DELETE FROM search_bitmap_tail_stale;
    done := done + 1;
  END IF;
  -- Passages filled it: its partial rows dropped (the loop below builds it whole), the newest block's started empty.
  IF tb < target THEN
    DELETE FROM search_bitmaps b USING search_bitmap_terms k WHERE b.kind = k.kind AND b.term = k.term AND b.block = tb AND k.built = tb;
    DELETE FROM search_bitmap_tail;
    tb := target; tu := target::bigint * 4096;
    INSERT INTO search_bitmap_tail (block, upto) VALUES (tb, tu);
    done := done + 1;
  END IF;
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
      -- Built as far as the newest block: its bits below `upto` too (ORed again into those of the grams built as far
      -- before: the same bits).
      IF t.built + 1 = tb AND tu > tb::bigint * 4096 THEN PERFORM syntheo_add_tail_bits(tb, tb::bigint * 4096, tu, true); END IF;
      done := done + 1;
      CONTINUE;
    END IF;
    -- About 4,000 rows of bits at a time (~5-15 ms): one block of `the` (in 89% of the passage ids), 60 of a word in 1/64.
    -- A tag's count is of meetings: about 4 passages each. Built as far as the newest block: its bits below `upto` too.
    hi := least(target, t.built + greatest(1, least(64, 4000 * target::bigint / greatest(1,
      CASE WHEN t.kind = 'w' THEN (SELECT coalesce(sum(n), 0) FROM search_word_counts WHERE lexeme = t.term)
        + (SELECT coalesce(sum((d.counts ->> t.term)::bigint), 0) FROM search_word_deltas d WHERE d.bucket = syntheo_word_bucket(t.term)) ELSE 4 * (SELECT sum(n) FROM meeting_tag_counts WHERE tag = t.term) END))));
    IF t.kind = 'w' THEN
      INSERT INTO search_bitmaps (kind, term, block, bits)
        SELECT 'w', t.term, (passage_id >> 12)::int, syntheo_block_bits(array_agg(passage_id)) FROM search_postings
        WHERE lexeme = t.term AND passage_id >= t.built::bigint * 4096 AND passage_id < CASE WHEN hi = tb THEN tu ELSE hi::bigint * 4096 END GROUP BY 3
        ON CONFLICT (kind, term, block) DO UPDATE SET bits = excluded.bits;
      IF hi = tb AND tu > tb::bigint * 4096 THEN PERFORM syntheo_add_tail_counts(tb, tb::bigint * 4096, tu, t.term); END IF;
    ELSE
      INSERT INTO search_bitmaps (kind, term, block, bits)
        SELECT 't', t.term, (passage_id >> 12)::int, syntheo_block_bits(array_agg(passage_id)) FROM search_tags
        WHERE tag = t.term AND passage_id >= t.built::bigint * 4096 AND passage_id < CASE WHEN hi = tb THEN tu ELSE hi::bigint * 4096 END GROUP BY 3
        ON CONFLICT (kind, term, block) DO UPDATE SET bits = excluded.bits;
    END IF;
    UPDATE search_bitmap_terms SET built = hi WHERE kind = t.kind AND term = t.term;
    done := done + 1;
  END LOOP;
  -- The passages written since added to the newest block's bits, within the budget. Not block 0's: a term is added
  -- built as far as block 0 (syntheo_add_search_bitmap_terms), without its bits there.
  IF tb > 0 AND (done = 0 OR clock_timestamp() - started <= budget_ms * interval '1 ms') THEN
    SELECT least(coalesce(max(id), -1) + 1, tu + 128, (tb + 1)::bigint * 4096) INTO nu FROM search_passages;
    IF nu > tu THEN
      IF nu > (SELECT last_value FROM search_bitmap_tail_boundary) THEN PERFORM setval('search_bitmap_tail_boundary', nu); END IF;
      PERFORM syntheo_add_tail_bits(tb, tu, nu, false);
      UPDATE search_bitmap_tail SET upto = nu;
      done := done + 1;
    END IF;
  END IF;
  RETURN done;
END $$;
--> statement-breakpoint
-- `syntheo doctor --repair-search`: 0027's, the newest block's bits dropped too.
CREATE OR REPLACE FUNCTION syntheo_clear_search_bitmaps() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(1651078253, 0);
  DELETE FROM search_bitmaps;
  DELETE FROM search_bitmap_terms;
  DELETE FROM search_bitmap_stale;
  DELETE FROM search_bitmap_tail;
  DELETE FROM search_bitmap_tail_stale;
  DELETE FROM search_handle_grams;
END $$;
--> statement-breakpoint
-- Roles made by `syntheo db roles` before this migration got write privileges on the new tables and the sequence (their
-- default privileges): neither may write them (only the functions above do), as that command now says.
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT DISTINCT grantee FROM information_schema.role_table_grants
    WHERE table_schema = current_schema() AND table_name IN ('search_bitmap_tail', 'search_bitmap_tail_stale')
      AND privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE') AND grantee NOT IN (current_user, 'PUBLIC')
  LOOP
    EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON search_bitmap_tail, search_bitmap_tail_stale FROM %I', r.grantee);
  END LOOP;
  FOR r IN SELECT DISTINCT grantee FROM information_schema.usage_privileges
    WHERE object_schema = current_schema() AND object_name = 'search_bitmap_tail_boundary' AND grantee NOT IN (current_user, 'PUBLIC')
  LOOP
    EXECUTE format('REVOKE USAGE, UPDATE ON SEQUENCE search_bitmap_tail_boundary FROM %I', r.grantee);
  END LOOP;
END $$;
