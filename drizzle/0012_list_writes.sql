-- Hand-written (triggers, views): a meeting insert as cheap as before migration 0011 (issue 19). 0011 made each insert
-- 5-10x slower (4.3 ms CPU against 0.77, one meeting per transaction); measured with perf, two causes:
-- 1. Temporary b-trees: the grams view's recursive CTE and the split of the tags into meeting_tags (another),
--    each open one, with its own page cache allocated and freed per statement.
--    The positions of the grams now come from json_each over a list of n zeros, the tags from json_each.
--    (The rest is the allocator: see settleAllocator in src/db/open.ts.)
-- 2. FTS5 writes of the same row twice: the terms row was written by the insert trigger, then deleted and written
--    again when the tags trigger set search_tags (in whichever order SQLite fired them), and FTS5 writes its
--    pending index out as a segment whenever a rowid at or below the last one written comes again. One trigger
--    now sets the tags, then writes the meeting's key, title row and terms row once, with its final tags.
-- The answers are unchanged: the grams are 0011's (compared with JavaScript's gramsOf, test/db/list-order.test.ts).
-- The grams of a meeting (see 0011): the positions 0 .. n-1 of each text as the keys of a JSON array of n zeros
-- (instead of a recursive CTE). The texts stay a MATERIALIZED CTE: inlined, each position would lower-case and
-- cast the whole title again (a 325 KB title: minutes instead of 0.26 s).
DROP VIEW `meeting_list_terms`;
--> statement-breakpoint
CREATE VIEW `meeting_list_terms` AS SELECT k.key, m.id AS meeting_id, m.title, m.search_tags AS tags,
    (WITH src(b, n) AS MATERIALIZED (SELECT b, CASE instr(b, x'00') WHEN 0 THEN length(b) ELSE instr(b, x'00') - 1 END FROM (SELECT CAST(lower(m.title) AS BLOB) AS b UNION ALL SELECT CAST(lower(m.id) AS BLOB)))
    SELECT coalesce(group_concat('x' || hex(substr(src.b, j.key + 1, 1)) || iif(j.key + 1 < src.n AND substr(src.b, j.key + 2, 1) < x'80', ' x' || hex(substr(src.b, j.key + 1, 2)), ''), ' '), '')
      FROM src, json_each('[' || rtrim(replace(hex(zeroblob(src.n)), '00', '0,'), ',') || ']') AS j
      WHERE substr(src.b, j.key + 1, 1) < x'80') AS grams
  FROM meetings m JOIN meeting_keys k ON k.meeting_id = m.id;
--> statement-breakpoint
DROP TRIGGER `meetings_titles_ai`;
--> statement-breakpoint
DROP TRIGGER `meetings_search_tags_ai`;
--> statement-breakpoint
-- A new meeting (or one written again by INSERT OR REPLACE, whose delete triggers may not fire): its tags and their
-- meeting_tags rows (also when the tags came with the row: meetings_search_tags_au fires only on a change), then
-- its old list rows go and its key, title row and terms row come. Replaces meetings_search_tags_ai (0010) and
-- meetings_titles_ai (0011), whose order SQLite does not define.
CREATE TRIGGER `meetings_indexes_ai` AFTER INSERT ON `meetings` BEGIN
  UPDATE meetings SET search_tags = (SELECT tags FROM meeting_search_tags v WHERE v.meeting_id = meetings.id) WHERE id = new.id;
  INSERT OR IGNORE INTO meeting_tags (tag, started_at, meeting_id)
    SELECT value, new.started_at, new.id FROM json_each('["' || replace((SELECT search_tags FROM meetings WHERE id = new.id), ' ', '","') || '"]') WHERE value != '';
  DELETE FROM meeting_titles WHERE rowid = (SELECT key FROM meeting_keys WHERE meeting_id = new.id);
  DELETE FROM meeting_terms WHERE rowid = (SELECT key FROM meeting_keys WHERE meeting_id = new.id);
  DELETE FROM meeting_keys WHERE meeting_id = new.id;
  INSERT INTO meeting_keys (key, meeting_id) SELECT key, meeting_id FROM meeting_next_key WHERE meeting_id = new.id;
  INSERT INTO meeting_titles (rowid, title, id) SELECT key, title, meeting_id FROM meeting_list_terms WHERE meeting_id = new.id;
  INSERT INTO meeting_terms (rowid, tags, grams) SELECT key, tags, grams FROM meeting_list_terms WHERE meeting_id = new.id;
END;
--> statement-breakpoint
-- New tags (folder moved, series or participants changed): the terms row again, same key, in one write.
DROP TRIGGER `meetings_terms_tags_au`;
--> statement-breakpoint
CREATE TRIGGER `meetings_terms_tags_au` AFTER UPDATE OF search_tags ON `meetings` WHEN old.search_tags IS NOT new.search_tags BEGIN
  INSERT OR REPLACE INTO meeting_terms (rowid, tags, grams) SELECT key, tags, grams FROM meeting_list_terms WHERE meeting_id = new.id;
END;
--> statement-breakpoint
-- The tags split with json_each (they are words of [0-9A-Za-z]: see meeting_search_tags).
DROP TRIGGER `meetings_search_tags_au`;
--> statement-breakpoint
CREATE TRIGGER `meetings_search_tags_au` AFTER UPDATE OF search_tags ON `meetings` WHEN old.search_tags IS NOT new.search_tags BEGIN
  UPDATE search_passages SET tags = new.search_tags WHERE meeting_id = new.id AND tags IS NOT new.search_tags;
  DELETE FROM meeting_tags WHERE meeting_id = new.id;
  INSERT OR IGNORE INTO meeting_tags (tag, started_at, meeting_id)
    SELECT value, new.started_at, new.id FROM json_each('["' || replace(new.search_tags, ' ', '","') || '"]') WHERE value != '';
END;
