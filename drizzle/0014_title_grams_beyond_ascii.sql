-- Hand-written (a view, a backfill): list_meetings `query` of 1-2 characters beyond ASCII (`é`, `会議`, an emoji, an NFD
-- `e` + U+0301) from meeting_terms, not a LIKE over every title (issue 19). The grams of a meeting are now each code
-- point and each pair of adjacent code points of the lowercased title and id (SQLite's lower() folds ASCII only, as
-- LIKE does): all ASCII, `x<hex>` as before (0011); any byte beyond ASCII, `u<hex of its UTF-8 bytes>` (no `x` token
-- has such a byte, and tags start with f, s, p, d, m or y). The walk is 0012's over the bytes; a position is kept when
-- its byte starts a code point (below 0x80 or from 0xC0), whose length its first byte tells (1 + one for each of
-- 0xC0, 0xE0, 0xF0 it reaches); the pair runs to the end of the next code point. Equal to gramsOf in JavaScript
-- (src/db/queries/list-index.ts; compared in test/db/list-grams.test.ts).
DROP VIEW `meeting_list_terms`;
--> statement-breakpoint
CREATE VIEW `meeting_list_terms` AS SELECT k.key, m.id AS meeting_id, m.title, m.search_tags AS tags,
    (WITH src(b, n) AS MATERIALIZED (SELECT b, CASE instr(b, x'00') WHEN 0 THEN length(b) ELSE instr(b, x'00') - 1 END FROM (SELECT CAST(lower(m.title) AS BLOB) AS b UNION ALL SELECT CAST(lower(m.id) AS BLOB)))
    SELECT coalesce(group_concat(CASE
        -- An ASCII byte followed by an ASCII byte or the end: 0012's grams.
        WHEN substr(src.b, j.key + 1, 1) < x'80' AND (j.key + 1 >= src.n OR substr(src.b, j.key + 2, 1) < x'80')
          THEN 'x' || hex(substr(src.b, j.key + 1, 1)) || iif(j.key + 1 < src.n, ' x' || hex(substr(src.b, j.key + 1, 2)), '')
        -- Else the code point (its length: 1 + one for each of 0xC0, 0xE0, 0xF0 its first byte reaches) and, when
        -- another follows, the two.
        ELSE iif(substr(src.b, j.key + 1, 1) < x'80', 'x', 'u') || hex(substr(src.b, j.key + 1, (1 + (substr(src.b, j.key + 1, 1) >= x'C0') + (substr(src.b, j.key + 1, 1) >= x'E0') + (substr(src.b, j.key + 1, 1) >= x'F0'))))
          || iif(j.key + (1 + (substr(src.b, j.key + 1, 1) >= x'C0') + (substr(src.b, j.key + 1, 1) >= x'E0') + (substr(src.b, j.key + 1, 1) >= x'F0')) < src.n,
                 ' ' || iif(substr(src.b, j.key + 1, 1) < x'80' AND substr(src.b, j.key + 1 + (1 + (substr(src.b, j.key + 1, 1) >= x'C0') + (substr(src.b, j.key + 1, 1) >= x'E0') + (substr(src.b, j.key + 1, 1) >= x'F0')), 1) < x'80', 'x', 'u') || hex(substr(src.b, j.key + 1, (1 + (substr(src.b, j.key + 1, 1) >= x'C0') + (substr(src.b, j.key + 1, 1) >= x'E0') + (substr(src.b, j.key + 1, 1) >= x'F0')) + 1 + ((substr(src.b, j.key + 1 + (1 + (substr(src.b, j.key + 1, 1) >= x'C0') + (substr(src.b, j.key + 1, 1) >= x'E0') + (substr(src.b, j.key + 1, 1) >= x'F0')), 1) >= x'C0') + (substr(src.b, j.key + 1 + (1 + (substr(src.b, j.key + 1, 1) >= x'C0') + (substr(src.b, j.key + 1, 1) >= x'E0') + (substr(src.b, j.key + 1, 1) >= x'F0')), 1) >= x'E0') + (substr(src.b, j.key + 1 + (1 + (substr(src.b, j.key + 1, 1) >= x'C0') + (substr(src.b, j.key + 1, 1) >= x'E0') + (substr(src.b, j.key + 1, 1) >= x'F0')), 1) >= x'F0')))), '')
      END, ' '), '')
      FROM src, json_each('[' || rtrim(replace(hex(zeroblob(src.n)), '00', '0,'), ',') || ']') AS j
      WHERE substr(src.b, j.key + 1, 1) < x'80' OR substr(src.b, j.key + 1, 1) >= x'C0') AS grams
  FROM meetings m JOIN meeting_keys k ON k.meeting_id = m.id;
--> statement-breakpoint
-- The meetings whose title or id has a character beyond ASCII (more bytes than characters; none in most
-- databases): their terms row again, same key, with the new grams.
INSERT OR REPLACE INTO meeting_terms (rowid, tags, grams) SELECT key, tags, grams FROM meeting_list_terms
  WHERE length(CAST(title AS BLOB)) != length(title) OR length(CAST(meeting_id AS BLOB)) != length(meeting_id);
--> statement-breakpoint
-- One segment again: the rows written again above left the index in pieces, which slowed every gram's read (100k
-- meetings, 27k re-written: query `e` 4.5 -> 9.4 ms p50 without it). 2.5 s there; nothing to do when none was.
INSERT INTO meeting_terms (meeting_terms) VALUES ('optimize');
