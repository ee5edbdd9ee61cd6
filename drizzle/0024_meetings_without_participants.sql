-- A meeting with no participants carries the tag `hx` (meetings.search_tags, so meeting_tags, meeting_terms and each
-- passage's search_fts row too). A `participant` fragment held by most names (a letter, a domain: `e` or
-- `example.test` in 3,118 or 2,000 of the 4,000 names and e-mails at 100k meetings) passes most meetings: the few it
-- fails are those whose every participant lacks it, found from the names and e-mails that lack it and from this tag
-- (src/db/queries/participant-words.ts), where every meeting's participants were probed (`e`: 68 ms for a list's
-- count, 70 for a search of `the`). Finding the meetings without participants otherwise is an anti-join of every
-- meeting (~30 ms at 100k). The participants' triggers already recompute a meeting's tags from this view.
DROP VIEW `meeting_search_tags`;
--> statement-breakpoint
-- As in 0018, with `hx` after the handles' tags.
CREATE VIEW `meeting_search_tags` AS SELECT meetings.id AS meeting_id, trim(
    coalesce((WITH RECURSIVE chain(id, parent, depth) AS (
        SELECT id, parent_id, 0 FROM folders WHERE id = meetings.folder_id
        UNION ALL SELECT f.id, f.parent_id, c.depth + 1 FROM folders f JOIN chain c ON f.id = c.parent WHERE c.depth < 64)
      SELECT group_concat('f' || hex(id), ' ') FROM chain), '')
    || CASE WHEN meetings.series_id IS NULL THEN '' ELSE ' s' || hex(meetings.series_id) END
    || coalesce(' ' || (SELECT group_concat('p' || w.id, ' ' ORDER BY w.id) FROM (
        WITH RECURSIVE split(rest, word) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(p.name || ' ' || coalesce(p.email, ''), '@', ' '), '.', ' '), ',', ' '), '-', ' '), '_', ' '), '(', ' '), ')', ' '), '/', ' '), '''', ' '), '"', ' '), '+', ' '), ';', ' '), ':', ' '), char(9), ' '), char(10), ' '), char(13), ' ') || ' ', NULL FROM participants p WHERE p.meeting_id = meetings.id UNION ALL SELECT substr(rest, instr(rest, ' ') + 1), substr(rest, 1, instr(rest, ' ') - 1) FROM split WHERE rest != '')
        SELECT DISTINCT word FROM split WHERE word != '') s JOIN participant_words w ON w.word = s.word), '')
    || coalesce(' ' || (SELECT group_concat('h' || h.id, ' ' ORDER BY h.id) FROM (
        SELECT DISTINCT h.id FROM participants p JOIN participant_handles h ON h.handle IN (p.name, p.email) WHERE p.meeting_id = meetings.id) h), '')
    || CASE WHEN EXISTS (SELECT 1 FROM participants p WHERE p.meeting_id = meetings.id) THEN '' ELSE ' hx' END
    || CASE WHEN date(substr(meetings.started_at, 1, 10)) IS substr(meetings.started_at, 1, 10)
         THEN ' y' || substr(meetings.started_at, 1, 4) || ' m' || substr(meetings.started_at, 1, 4) || substr(meetings.started_at, 6, 2)
           || ' d' || substr(meetings.started_at, 1, 4) || substr(meetings.started_at, 6, 2) || substr(meetings.started_at, 9, 2)
         ELSE ' dx' END) AS tags FROM meetings;
--> statement-breakpoint
-- Through the triggers (meetings_search_tags_au and the others): only the meetings without participants change.
UPDATE meetings SET search_tags = (SELECT tags FROM meeting_search_tags v WHERE v.meeting_id = meetings.id)
  WHERE NOT EXISTS (SELECT 1 FROM participants p WHERE p.meeting_id = meetings.id);
