-- Custom SQL migration file: syntheo_refresh_meeting_tags (0007) computes the wanted tags of the given meetings
-- only, then deletes what they no longer have. Its `DELETE ... NOT EXISTS (SELECT ... FROM meeting_tag_rows w WHERE
-- w.meeting_id = t.meeting_id ...)` was planned as a hash anti join over the whole view (the correlation is a join
-- clause, never pushed into the view's branches): at 100k meetings 2.2M rows computed for any refresh, so moving one
-- meeting to another folder took 31 s, and so did each statement of a load that rewrites a meeting's participants.
-- Every write path that refreshes tags goes through this function (meetings inserted, moved, re-dated, given another
-- series, deleted; participants inserted, changed, deleted; a folder moved under another parent, for its subtree's
-- meetings; the doctor's repair), so each now costs in proportion to the meetings it touches.
-- The wanted set is a MATERIALIZED CTE filtered by `meeting_id = ANY(ids)`, which the planner pushes into each branch
-- of the view (an index lookup per meeting), and the anti join runs against it alone. Not `NOT IN (subquery)` as
-- 0008's grams: when the planner expects the subquery not to fit in work_mem (a folder subtree of thousands of
-- meetings) NOT IN rescans it for every old row.
CREATE OR REPLACE FUNCTION syntheo_refresh_meeting_tags(ids text[]) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF cardinality(ids) = 0 THEN RETURN; END IF;
  PERFORM 1 FROM meetings WHERE id = ANY(ids) ORDER BY id COLLATE "C" FOR NO KEY UPDATE;
  WITH wanted AS MATERIALIZED (SELECT w.tag, w.started_at, w.meeting_id FROM meeting_tag_rows w WHERE w.meeting_id = ANY(ids))
  DELETE FROM meeting_tags t WHERE t.meeting_id = ANY(ids)
    AND NOT EXISTS (SELECT 1 FROM wanted w WHERE w.meeting_id = t.meeting_id AND w.tag = t.tag AND w.started_at = t.started_at);
  INSERT INTO meeting_tags (tag, started_at, meeting_id) SELECT tag, started_at, meeting_id FROM meeting_tag_rows WHERE meeting_id = ANY(ids) ON CONFLICT DO NOTHING;
END $$;
--> statement-breakpoint
-- meeting_tags rows deleted: a passage loses a tag only when its meeting has it at no start. 0007 asked that of the
-- primary key (tag, started_at, meeting_id), which without the start reads the whole tag's range for each deleted
-- row: a folder of 8,636 meetings moved read 8,636 entries 8,636 times. Asked of the meeting's own rows
-- (meeting_tags_meeting_idx, ~22 a meeting) it costs the same for any tag.
CREATE OR REPLACE FUNCTION syntheo_meeting_tags_search() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM search_tags s USING removed r, search_passages p
      WHERE p.meeting_id = r.meeting_id AND s.tag = r.tag AND s.passage_id = p.id
        AND r.tag NOT IN (SELECT k.tag FROM meeting_tags k WHERE k.meeting_id = r.meeting_id);
  ELSE
    INSERT INTO search_tags (tag, passage_id) SELECT a.tag, p.id FROM added a JOIN search_passages p ON p.meeting_id = a.meeting_id ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
