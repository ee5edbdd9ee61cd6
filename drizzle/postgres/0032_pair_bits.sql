-- Hand-written: the passages holding two words side by side, kept as bits (issue 19). A search ranks the exact phrase
-- first within its window (src/db/postgres/search.ts), and PostgreSQL's index of the words (GIN, the postings) keeps
-- no positions: the phrase was looked for in each passage of the window, its words read (`p.words @@ phraseto_tsquery`)
-- in rank order until the page was full, and in every one when fewer held it. A passage read by its key costs
-- 1.3-2.8 us at 100k meetings, the more the window is spread over the table: two middling words with a third,
-- `usplagrepla sude have`, whose 2,000 window passages span 79 blocks, read every one of them for none, ~5 ms of a 14 ms
-- statement (EXPLAIN ANALYZE).
--
-- Each adjacent pair of a passage's words (lexemes at positions i and i + 1 of its tsvector, the positions phrase
-- matching compares) is hashed into one of PAIR_BUCKETS (1024) buckets (syntheo_pair_bucket), and each bucket is a kept
-- term of kind `p` (its name the bucket's number): a block's bits of the passages holding a pair of that bucket. A
-- passage holding a phrase holds each of its adjacent pairs, so it has the bit of each pair's bucket; a passage without
-- one of those bits cannot hold the phrase, and its words are not read. A passage of ~40 words sets ~40 buckets of the
-- 1024 (~4% of the passages in a bucket): a window's passages holding the bits of a two-word phrase's one bucket are
-- ~4% of those without the phrase, of a three-word phrase's two ~0.2%.
--
-- Built, kept and read as the other kept terms (0013, 0027, 0031): by the rounds, all the buckets one block further at
-- once (a round of ~340 ms at 100k meetings, the pairs made in ~220 of them; 96 rounds, 33 s, for a database upgraded
-- whole; writers of postings and tags wait for such a round as for a stale block's); a stale block's again with its
-- words (~0.3 s more); the newest block's below its `upto` (a round's 128 passages, ~30-60 ms more); the doctor
-- rebuilds and compares a sample. 49 MB at 100k meetings (up to 1024 rows of 512 bytes a block).
-- The hash is PostgreSQL's hashtext (as syntheo_word_bucket's): a version hashing otherwise would have the doctor name
-- the bits wrong, and `syntheo doctor --repair-search` build them again; until then a phrase might not rank first (the
-- matches and the total do not depend on them).
CREATE OR REPLACE FUNCTION syntheo_pair_bucket(a text, b text) RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT hashtext(a || ' ' || b) & 1023
$$;
--> statement-breakpoint
-- The buckets of the adjacent pairs of the passage ids lo to hi - 1 (one block's, or part of it), each with its
-- passages' bits. Not compiled (JIT): the rows expected (~400,000) cost past jit_above_cost, and compiling took longer
-- than the statement. Paired by a window over each passage's positions, the pairs made distinct by hashing: ~220 ms a
-- block at 100k meetings (a self-join on the next position, sorted, ~400).
CREATE OR REPLACE FUNCTION syntheo_pair_bits(lo bigint, hi bigint) RETURNS TABLE (term text, bits bit(4096)) LANGUAGE sql STABLE SET search_path = public SET jit = off AS $$
  SELECT x.bucket::text, syntheo_block_bits(array_agg(x.id)) FROM (
      SELECT y.id, syntheo_pair_bucket(y.prev, y.lexeme) AS bucket FROM (
          SELECT p.id, u.lexeme, u.pos, lag(u.lexeme) OVER w AS prev, lag(u.pos) OVER w AS before
          FROM search_passages p CROSS JOIN LATERAL (SELECT v.lexeme, a.pos FROM unnest(p.words) v CROSS JOIN LATERAL unnest(v.positions) a(pos)) u
          WHERE p.id >= lo AND p.id < hi
          WINDOW w AS (PARTITION BY p.id ORDER BY u.pos)) y
      WHERE y.before = y.pos - 1
      GROUP BY 1, 2) x
  GROUP BY x.bucket
$$;
--> statement-breakpoint
-- The pair bits of the passage ids lo to hi - 1 of block b ORed into those of the buckets built as far as b (the newest
-- block's). With the caller's rights: the rounds' functions call it.
CREATE OR REPLACE FUNCTION syntheo_add_pair_bits(b int, lo bigint, hi bigint) RETURNS void LANGUAGE sql SET search_path = public AS $$
  INSERT INTO search_bitmaps (kind, term, block, bits)
    SELECT 'p', x.term, b, x.bits FROM syntheo_pair_bits(lo, hi) x JOIN search_bitmap_terms k ON k.kind = 'p' AND k.term = x.term AND k.built = b
  ON CONFLICT (kind, term, block) DO UPDATE SET bits = search_bitmaps.bits | excluded.bits;
$$;
--> statement-breakpoint
-- The passages of `ids` (a search's window's) that may hold `words` (its words, each one lexeme, joined by spaces) as a
-- phrase: those the bits answer for (below `upto`, the pair buckets' as src/db/postgres/search.ts reads a kept term's,
-- and not in a stale block) holding the bits of each of its pairs' buckets, and all the others. NULL (read them all) when
-- the bits would cost more than the passages they spare: `passage_us` a passage read, against `block_us` a block they
-- span and bucket and `fixed_us` (the caller's estimates). In the caller's snapshot (STABLE), so that the bits and the
-- passages read agree. A function, not the search's statement: written there, its ~40 plan nodes made every phrase's
-- statement longer to plan (0.9 ms more a window planned, ~0.1 ms more a call to start).
CREATE OR REPLACE FUNCTION syntheo_phrase_candidates(words text, ids bigint[], upto bigint, passage_us float8, block_us float8, fixed_us float8) RETURNS bigint[] LANGUAGE plpgsql STABLE SET search_path = public AS $$
DECLARE
  terms text[];
  lo int;
  hi int;
BEGIN
  SELECT (min(i) >> 12)::int, (max(i) >> 12)::int INTO lo, hi FROM unnest(ids) i;
  terms := ARRAY(SELECT DISTINCT syntheo_pair_bucket(lower(a.t), lower(b.t))::text
                 FROM unnest(string_to_array(words, ' ')) WITH ORDINALITY a(t, i) JOIN unnest(string_to_array(words, ' ')) WITH ORDINALITY b(t, i) ON b.i = a.i + 1);
  IF lo IS NULL OR upto = 0 OR cardinality(terms) = 0 OR passage_us * cardinality(ids) <= fixed_us + block_us * cardinality(terms) * (hi - lo + 1) THEN RETURN NULL; END IF;
  RETURN ARRAY(SELECT i FROM unnest(ids) i
                 LEFT JOIN (SELECT b.block, bit_and(b.bits) AS bits FROM search_bitmaps b
                            WHERE b.kind = 'p' AND b.term = ANY(terms) AND b.block BETWEEN lo AND hi
                            GROUP BY b.block HAVING count(*) = cardinality(terms)) x ON x.block = (i >> 12)::int
               WHERE i >= upto OR (i >> 12)::int IN (SELECT s.block FROM search_bitmap_stale s) OR get_bit(x.bits, (i & 4095)::int) = 1);
END $$;
--> statement-breakpoint
-- 0031's, with the pair bits.
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
  SELECT syntheo_add_pair_bits(b, lo, hi) WHERE NOT grams_only;
$$;
--> statement-breakpoint
-- 0027's, with the pairs' buckets.
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
    UNION ALL
    -- The pairs' buckets, all of them (once: they are added together).
    SELECT 'p', b::text, 0 FROM generate_series(0, 1023) b WHERE NOT EXISTS (SELECT 1 FROM search_bitmap_terms WHERE kind = 'p')
    ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS added = ROW_COUNT;
  RETURN added;
END $$;
--> statement-breakpoint
-- 0031's round, with the pair bits: a stale block's built again with its words, tags and grams; every bucket one block
-- further at once, as the grams.
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
        SELECT 'g', g.term, s, g.bits FROM syntheo_gram_block_bits(s, s + 1, 2147483647) g
        UNION ALL
        SELECT 'p', x.term, s, x.bits FROM syntheo_pair_bits(s::bigint * 4096, (s + 1)::bigint * 4096) x
          JOIN search_bitmap_terms k ON k.kind = 'p' AND k.term = x.term AND k.built > s;
    END IF;
    DELETE FROM search_bitmap_stale WHERE block = s;
    done := done + 1;
  END LOOP;
  LOOP
    EXIT WHEN done > 0 AND clock_timestamp() - started > budget_ms * interval '1 ms';
    SELECT kind, term, built INTO t FROM search_bitmap_terms WHERE built < target ORDER BY built, kind, term LIMIT 1;
    EXIT WHEN NOT FOUND;
    IF t.kind = 'p' THEN
      -- Every pair bucket built as far as this one, one block further, in one statement (they are added together);
      -- built as far as the newest block, its bits below `upto` too.
      INSERT INTO search_bitmaps (kind, term, block, bits)
        SELECT 'p', x.term, t.built, x.bits FROM syntheo_pair_bits(t.built::bigint * 4096, (t.built + 1)::bigint * 4096) x
          JOIN search_bitmap_terms k ON k.kind = 'p' AND k.term = x.term AND k.built = t.built
        ON CONFLICT (kind, term, block) DO UPDATE SET bits = excluded.bits;
      UPDATE search_bitmap_terms SET built = t.built + 1 WHERE kind = 'p' AND built = t.built;
      IF t.built + 1 = tb AND tu > tb::bigint * 4096 THEN PERFORM syntheo_add_pair_bits(tb, tb::bigint * 4096, tu); END IF;
      done := done + 1;
      CONTINUE;
    END IF;
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
