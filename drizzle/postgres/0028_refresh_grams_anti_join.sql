-- Custom SQL migration file: syntheo_refresh_meeting_grams (0008) deletes the grams its meetings no longer have with
-- `(tag, started_at, meeting_id) NOT IN (SELECT ... FROM meeting_gram_rows ...)`. NOT IN is hashed only when the
-- planner expects the subquery to fit in work_mem; past that (~60 rows a meeting: a few hundred meetings at the default
-- 4 MB) every old row rescans the whole materialized subquery, so the cost grows with the square of the meetings:
-- `syntheo doctor --repair-search` refreshes 1,000 meetings a call, and that call took 178 s at 2,000 meetings (the
-- whole repair 415 s, SQLite's 4.4 s; at 100k it would not end), as did one statement renaming 1,000 titles.
-- Written as 0014 writes the tags' refresh: the wanted grams computed once (a MATERIALIZED CTE, filtered by the ids
-- in the view's branches), then an anti join against them, which hashes in batches when it does not fit: 1,000
-- meetings 178 s -> 0.25 s. Same rows: no column of meeting_grams is NULL, so NOT IN and NOT EXISTS agree.
CREATE OR REPLACE FUNCTION syntheo_refresh_meeting_grams(ids text[]) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF cardinality(ids) = 0 THEN RETURN; END IF;
  PERFORM 1 FROM meetings WHERE id = ANY(ids) ORDER BY id COLLATE "C" FOR NO KEY UPDATE;
  WITH wanted AS MATERIALIZED (SELECT w.tag, w.started_at, w.meeting_id FROM meeting_gram_rows w WHERE w.meeting_id = ANY(ids))
  DELETE FROM meeting_grams t WHERE t.meeting_id = ANY(ids)
    AND NOT EXISTS (SELECT 1 FROM wanted w WHERE w.meeting_id = t.meeting_id AND w.tag = t.tag AND w.started_at = t.started_at);
  INSERT INTO meeting_grams (tag, started_at, meeting_id) SELECT tag, started_at, meeting_id FROM meeting_gram_rows WHERE meeting_id = ANY(ids) ON CONFLICT DO NOTHING;
END $$;
