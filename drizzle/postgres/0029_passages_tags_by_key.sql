-- Custom SQL migration file: passages deleted (a transcript's last passage rewritten at each appended chunk, a
-- transcript indexed again) drop their tags with `DELETE FROM search_tags s USING removed r, meeting_tags t WHERE
-- ... s.tag = t.tag AND s.passage_id = r.id` (0007, 0016). The planner joined the removed passages to their meetings'
-- tags, then looked search_tags up by the tag alone, filtering the passage: every passage holding each of the
-- meeting's ~30 tags (its year, month, folders, names' words) read for each removed passage. At 10,000 meetings one
-- passage's delete read 1.5-2.8 million entries (0.1-1.2 s, growing with the database), in every append of the
-- worker's and in `--repair-search` (~a transcript each).
-- The (tag, passage) pairs are computed first (a MATERIALIZED CTE), so each is one lookup of search_tags' key:
-- 1.2 s -> 3 ms. The rest is 0016's function as it was.
CREATE OR REPLACE FUNCTION syntheo_passages_tags() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM syntheo_lock_meetings_for_tags(array(SELECT DISTINCT meeting_id FROM added));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM syntheo_lock_meetings_for_tags(array(SELECT DISTINCT meeting_id FROM removed));
  ELSE
    PERFORM syntheo_lock_meetings_for_tags(array(SELECT meeting_id FROM added UNION SELECT meeting_id FROM removed));
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    WITH held AS MATERIALIZED (SELECT t.tag, r.id FROM removed r JOIN meeting_tags t ON t.meeting_id = r.meeting_id)
    DELETE FROM search_tags s USING held h WHERE s.tag = h.tag AND s.passage_id = h.id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO search_tags (tag, passage_id) SELECT DISTINCT t.tag, a.id FROM added a JOIN meeting_tags t ON t.meeting_id = a.meeting_id ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
