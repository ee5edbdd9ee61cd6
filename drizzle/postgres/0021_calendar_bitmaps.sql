-- Every year and month tag kept as bitmaps (issue 19), not only those in more than 1/64 of the meetings.
-- A date range is read as its months less the days it leaves out (monthsLessDays) only where the months are kept;
-- the others are read day by day from their tag rows, each passage tested in the words' bits. Under the 1/64 rule a
-- month is kept when it holds more than 1/64 of all meetings: every February, and the newest month until it is
-- nearly over, were not (1,475 and 1,500 meetings at 100k against 1,563), and with more than 64 months of history
-- hardly any month is. `the` + six months (May 30 to November 28, 2026) read the 30 days of May and November it
-- covers, 6,299 tag rows each tested in the word's bits (2.2 ms of EXPLAIN ANALYZE's 6.6), where November kept
-- less its last two days reads four days' rows.
-- Cheap to keep: a month's bitmap rows are at most one a block it has passages in (60 months at 100k meetings,
-- their passages in every one of the 95 blocks: 5,700 rows, ~3 MB; passages indexed in time order, a few blocks
-- each). The worker's rounds add them (syntheo_build_search_bitmaps builds them block by block, as any new term).
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
    ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS added = ROW_COUNT;
  RETURN added;
END $$;
