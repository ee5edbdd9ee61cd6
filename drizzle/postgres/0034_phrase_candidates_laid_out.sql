-- Hand-written (issue 19): syntheo_phrase_candidates (migration 0032) tests each passage's bit in its pairs' buckets'
-- bits laid end to end (one bytea from the first block on, as a search's window lays out the words' bits), rather than
-- joining the passages to the blocks' rows. A search's window runs on connections that merge rather than hash
-- (enable_hashjoin off: src/db/postgres/sql.ts, withMergePlans), and there the join of a window's 1,800 passages to the
-- blocks' rows was not hashed: at 100k meetings, `we the elra`'s 1,800 passages over 26 blocks, 1.15 ms a call against
-- 0.5 hashed; laid out, 0.5-0.6 either way. The same passages come back: a block whose buckets' bits are missing (no
-- passage of it holds every pair) is 512 zero bytes, and past the last block with bits no bit is set.
CREATE OR REPLACE FUNCTION syntheo_phrase_candidates(words text, ids bigint[], upto bigint, passage_us float8, block_us float8, fixed_us float8) RETURNS bigint[] LANGUAGE plpgsql STABLE SET search_path = public AS $$
DECLARE
  terms text[];
  lo int;
  hi int;
  laid bytea;
BEGIN
  SELECT (min(i) >> 12)::int, (max(i) >> 12)::int INTO lo, hi FROM unnest(ids) i;
  terms := ARRAY(SELECT DISTINCT syntheo_pair_bucket(lower(a.t), lower(b.t))::text
                 FROM unnest(string_to_array(words, ' ')) WITH ORDINALITY a(t, i) JOIN unnest(string_to_array(words, ' ')) WITH ORDINALITY b(t, i) ON b.i = a.i + 1);
  IF lo IS NULL OR upto = 0 OR cardinality(terms) = 0 OR passage_us * cardinality(ids) <= fixed_us + block_us * cardinality(terms) * (hi - lo + 1) THEN RETURN NULL; END IF;
  -- Each block's bits of every bucket ANDed, from block lo on; a bit string's binary form (varbit_send) is its length in
  -- bits as 4 bytes, then its bytes. A bit string's first bit is its first byte's highest, get_bit(bytea)'s its lowest:
  -- bit n of the blocks is get_bit's n # 7.
  SELECT string_agg(decode(repeat('00', 512 * x.gap), 'hex') || substring(varbit_send(x.bits) FROM 5), ''::bytea ORDER BY x.block) INTO laid
    FROM (SELECT y.block, y.bits, y.block - coalesce(lag(y.block) OVER (ORDER BY y.block) + 1, lo) AS gap
          FROM (SELECT b.block, bit_and(b.bits) AS bits FROM search_bitmaps b
                WHERE b.kind = 'p' AND b.term = ANY(terms) AND b.block BETWEEN lo AND hi
                GROUP BY b.block HAVING count(*) = cardinality(terms)) y) x;
  RETURN ARRAY(SELECT i FROM unnest(ids) i
               WHERE i >= upto OR (i >> 12)::int IN (SELECT s.block FROM search_bitmap_stale s)
                  OR (i - lo::bigint * 4096 < coalesce(octet_length(laid), 0)::bigint * 8 AND get_bit(laid, (i - lo::bigint * 4096) # 7) = 1));
END $$;
