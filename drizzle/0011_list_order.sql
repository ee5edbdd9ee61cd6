-- Hand-written (FTS5, triggers): list_meetings filters walked newest first inside indexes (issue 19).
-- Each meeting gets a key that follows its start time: (milliseconds since 1970) * 8192 + a slot among meetings
-- of the same millisecond. The title index and the filter-terms index use it as their rowid, so a filter is
-- read newest first (ORDER BY rowid DESC) and stops at offset + limit, a date range is a rowid range, and the
-- count is the index's. Within one millisecond the slot is arbitrary: the query sorts those by id.
CREATE TABLE `meeting_keys` (
  `key` integer PRIMARY KEY NOT NULL,
  `meeting_id` text NOT NULL
);
--> statement-breakpoint
-- The key of a meeting, when it is re-titled, re-timed, re-tagged or deleted.
CREATE UNIQUE INDEX `meeting_keys_meeting_unique` ON `meeting_keys` (`meeting_id`);
--> statement-breakpoint
-- list_meetings `query` of 1-2 characters, `folder_path`, `series_id`, `participant` (by word): one document per
-- meeting, rowid = its key. `tags`: meetings.search_tags. `grams`: each ASCII character and pair of characters
-- of the lowercased title and id, as `x<hex>` (ASCII case folding, as LIKE has). Only rowids are stored.
CREATE VIRTUAL TABLE `meeting_terms` USING fts5(`tags`, `grams`, content='', contentless_delete=1, detail='none');
--> statement-breakpoint
-- The title index again, with the meeting's key as rowid (was: an insertion counter).
DROP TRIGGER `meetings_titles_ai`;
--> statement-breakpoint
DROP TRIGGER `meetings_titles_au`;
--> statement-breakpoint
DROP TRIGGER `meetings_titles_ad`;
--> statement-breakpoint
DROP TABLE `meeting_titles`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `meeting_titles` USING fts5(`title`, `id`, tokenize='trigram');
--> statement-breakpoint
INSERT INTO meeting_keys (key, meeting_id)
  SELECT (ms * 8192) + row_number() OVER (PARTITION BY ms ORDER BY id) - 1, id
  FROM (SELECT id, coalesce(CAST(round(unixepoch(started_at, 'subsec') * 1000) AS INTEGER), 0) AS ms FROM meetings);
--> statement-breakpoint
INSERT INTO meeting_titles (rowid, title, id) SELECT k.key, m.title, m.id FROM meetings m JOIN meeting_keys k ON k.meeting_id = m.id;
--> statement-breakpoint
INSERT INTO meeting_terms (rowid, tags, grams)
  SELECT k.key, m.search_tags, (WITH RECURSIVE src(b, n) AS MATERIALIZED (SELECT b, CASE instr(b, x'00') WHEN 0 THEN length(b) ELSE instr(b, x'00') - 1 END FROM (SELECT CAST(lower(m.title) AS BLOB) AS b UNION ALL SELECT CAST(lower(m.id) AS BLOB))),
      pos(i, last) AS (SELECT 1, (SELECT max(n) FROM src) UNION ALL SELECT i + 1, last FROM pos WHERE i < last),
      g(t) AS (SELECT substr(b, i, 1) FROM src JOIN pos ON i <= n WHERE substr(b, i, 1) < x'80'
        UNION SELECT substr(b, i, 2) FROM src JOIN pos ON i < n WHERE substr(b, i, 1) < x'80' AND substr(b, i + 1, 1) < x'80')
    SELECT coalesce(group_concat('x' || hex(t), ' '), '') FROM g)
  FROM meetings m JOIN meeting_keys k ON k.meeting_id = m.id;
--> statement-breakpoint
-- A new meeting (or one written again by INSERT OR REPLACE, whose delete triggers may not fire): its old rows go, its key and rows come.
CREATE TRIGGER `meetings_titles_ai` AFTER INSERT ON `meetings` BEGIN
  DELETE FROM meeting_titles WHERE rowid = (SELECT key FROM meeting_keys WHERE meeting_id = new.id);
  DELETE FROM meeting_terms WHERE rowid = (SELECT key FROM meeting_keys WHERE meeting_id = new.id);
  DELETE FROM meeting_keys WHERE meeting_id = new.id;
  INSERT INTO meeting_keys (key, meeting_id)
    SELECT coalesce((SELECT max(key) + 1 FROM meeting_keys WHERE key BETWEEN ms * 8192 AND ms * 8192 + 8191), ms * 8192), new.id
    FROM (SELECT coalesce(CAST(round(unixepoch(new.started_at, 'subsec') * 1000) AS INTEGER), 0) AS ms);
  INSERT INTO meeting_titles (rowid, title, id) SELECT key, new.title, new.id FROM meeting_keys WHERE meeting_id = new.id;
  INSERT INTO meeting_terms (rowid, tags, grams)
    SELECT k.key, m.search_tags, (WITH RECURSIVE src(b, n) AS MATERIALIZED (SELECT b, CASE instr(b, x'00') WHEN 0 THEN length(b) ELSE instr(b, x'00') - 1 END FROM (SELECT CAST(lower(m.title) AS BLOB) AS b UNION ALL SELECT CAST(lower(m.id) AS BLOB))),
        pos(i, last) AS (SELECT 1, (SELECT max(n) FROM src) UNION ALL SELECT i + 1, last FROM pos WHERE i < last),
        g(t) AS (SELECT substr(b, i, 1) FROM src JOIN pos ON i <= n WHERE substr(b, i, 1) < x'80'
          UNION SELECT substr(b, i, 2) FROM src JOIN pos ON i < n WHERE substr(b, i, 1) < x'80' AND substr(b, i + 1, 1) < x'80')
      SELECT coalesce(group_concat('x' || hex(t), ' '), '') FROM g)
    FROM meetings m JOIN meeting_keys k ON k.meeting_id = m.id WHERE m.id = new.id;
END;
--> statement-breakpoint
-- Re-titled or re-timed (a new key: another place in time): its rows again.
CREATE TRIGGER `meetings_titles_au` AFTER UPDATE OF id, title, started_at ON `meetings` BEGIN
  DELETE FROM meeting_titles WHERE rowid = (SELECT key FROM meeting_keys WHERE meeting_id = old.id);
  DELETE FROM meeting_terms WHERE rowid = (SELECT key FROM meeting_keys WHERE meeting_id = old.id);
  DELETE FROM meeting_keys WHERE meeting_id IN (old.id, new.id);
  INSERT INTO meeting_keys (key, meeting_id)
    SELECT coalesce((SELECT max(key) + 1 FROM meeting_keys WHERE key BETWEEN ms * 8192 AND ms * 8192 + 8191), ms * 8192), new.id
    FROM (SELECT coalesce(CAST(round(unixepoch(new.started_at, 'subsec') * 1000) AS INTEGER), 0) AS ms);
  INSERT INTO meeting_titles (rowid, title, id) SELECT key, new.title, new.id FROM meeting_keys WHERE meeting_id = new.id;
  INSERT INTO meeting_terms (rowid, tags, grams)
    SELECT k.key, m.search_tags, (WITH RECURSIVE src(b, n) AS MATERIALIZED (SELECT b, CASE instr(b, x'00') WHEN 0 THEN length(b) ELSE instr(b, x'00') - 1 END FROM (SELECT CAST(lower(m.title) AS BLOB) AS b UNION ALL SELECT CAST(lower(m.id) AS BLOB))),
        pos(i, last) AS (SELECT 1, (SELECT max(n) FROM src) UNION ALL SELECT i + 1, last FROM pos WHERE i < last),
        g(t) AS (SELECT substr(b, i, 1) FROM src JOIN pos ON i <= n WHERE substr(b, i, 1) < x'80'
          UNION SELECT substr(b, i, 2) FROM src JOIN pos ON i < n WHERE substr(b, i, 1) < x'80' AND substr(b, i + 1, 1) < x'80')
      SELECT coalesce(group_concat('x' || hex(t), ' '), '') FROM g)
    FROM meetings m JOIN meeting_keys k ON k.meeting_id = m.id WHERE m.id = new.id;
END;
--> statement-breakpoint
-- New tags (folder moved, series or participants changed): the terms row again, same key.
CREATE TRIGGER `meetings_terms_tags_au` AFTER UPDATE OF search_tags ON `meetings` WHEN old.search_tags IS NOT new.search_tags BEGIN
  DELETE FROM meeting_terms WHERE rowid = (SELECT key FROM meeting_keys WHERE meeting_id = new.id);
  INSERT INTO meeting_terms (rowid, tags, grams)
    SELECT k.key, m.search_tags, (WITH RECURSIVE src(b, n) AS MATERIALIZED (SELECT b, CASE instr(b, x'00') WHEN 0 THEN length(b) ELSE instr(b, x'00') - 1 END FROM (SELECT CAST(lower(m.title) AS BLOB) AS b UNION ALL SELECT CAST(lower(m.id) AS BLOB))),
        pos(i, last) AS (SELECT 1, (SELECT max(n) FROM src) UNION ALL SELECT i + 1, last FROM pos WHERE i < last),
        g(t) AS (SELECT substr(b, i, 1) FROM src JOIN pos ON i <= n WHERE substr(b, i, 1) < x'80'
          UNION SELECT substr(b, i, 2) FROM src JOIN pos ON i < n WHERE substr(b, i, 1) < x'80' AND substr(b, i + 1, 1) < x'80')
      SELECT coalesce(group_concat('x' || hex(t), ' '), '') FROM g)
    FROM meetings m JOIN meeting_keys k ON k.meeting_id = m.id WHERE m.id = new.id;
END;
--> statement-breakpoint
CREATE TRIGGER `meetings_titles_ad` AFTER DELETE ON `meetings` BEGIN
  DELETE FROM meeting_titles WHERE rowid = (SELECT key FROM meeting_keys WHERE meeting_id = old.id);
  DELETE FROM meeting_terms WHERE rowid = (SELECT key FROM meeting_keys WHERE meeting_id = old.id);
  DELETE FROM meeting_keys WHERE meeting_id = old.id;
END;
