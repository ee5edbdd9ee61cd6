-- Custom SQL migration file: passages deleted (a transcript's last passage rewritten at each appended chunk, a
-- transcript indexed again) drop their tags with `DELETE FROM search_tags s USING removed r, meeting_tags t WHERE
-- ... s.tag = t.tag AND s.passage_id = r.id` (0007, 0016). Whether search_tags was looked up by its whole key depended
-- on the statistics: with some (a 10,000-meeting database once autovacuum had analyzed it mid-repair; the 1,500
-- meetings of filter-tags.test.ts) the planner joined the removed passages to their meetings' tags, then read
-- search_tags by the tag alone, filtering the passage: every passage of the meeting's year, month, folders and names'
-- words for each removed passage. There a transcript's 15 passages deleted read 1.5-2.8 million entries (0.6-1.2 s),
-- and one passage 70-120 ms: in every chunk the worker appends and in each transcript `--repair-search` indexes again.
-- (At 100k meetings freshly analyzed the planner chose the key: 20 transcripts' passages 99-199 ms before, 88-93 after.)
-- The (tag, passage) pairs are computed first (a MATERIALIZED CTE) and each is one lookup of the key, whatever the
-- statistics: 20 passages at 10,000 meetings 1.4-2.4 s -> 14-32 ms. The rest is 0016's function as it was.
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
--> statement-breakpoint
-- The two other deletes of search_tags whose key's columns come from two tables (a tag from one, a passage from the
-- other), in the same form, so that no statistics can turn them into reads of a tag's every passage: a meeting's tags
-- dropped (moved to another folder, re-dated, a participant renamed; 0014's function, as it was but for the form) and
-- a meeting deleted (0007's BEFORE DELETE trigger: its passages' tags go before the cascades delete both).
CREATE OR REPLACE FUNCTION syntheo_meeting_tags_search() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    WITH dropped AS MATERIALIZED (
      SELECT r.tag, p.id FROM removed r JOIN search_passages p ON p.meeting_id = r.meeting_id
      WHERE r.tag NOT IN (SELECT k.tag FROM meeting_tags k WHERE k.meeting_id = r.meeting_id))
    DELETE FROM search_tags s USING dropped d WHERE s.tag = d.tag AND s.passage_id = d.id;
  ELSE
    INSERT INTO search_tags (tag, passage_id) SELECT a.tag, p.id FROM added a JOIN search_passages p ON p.meeting_id = a.meeting_id ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION syntheo_meetings_tags_bd() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  WITH held AS MATERIALIZED (SELECT t.tag, p.id FROM meeting_tags t JOIN search_passages p ON p.meeting_id = t.meeting_id WHERE t.meeting_id = OLD.id)
  DELETE FROM search_tags s USING held h WHERE s.tag = h.tag AND s.passage_id = h.id;
  RETURN OLD;
END $$;
