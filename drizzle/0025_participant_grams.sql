-- Hand-written (a view, a backfill): list_meetings `participant` fragments in many names and e-mails read from
-- meeting_terms (issue 19). Such a fragment (`person1`, in 1,111 of the 4,000 names and e-mails at 100k meetings; two
-- or three letters of real names) was counted by probing every meeting's participants (47 ms at 100k), or, in up to
-- 500 names, by an FTS5 OR of their tags (`4@e`: 15 ms). Each meeting's row now also holds its participants' grams:
-- each ASCII byte, pair and triple of bytes of its lowercased names and e-mails (SQLite's lower() and LIKE fold ASCII
-- only), as `q<hex>` (tags start with f, s, p, d, m, y or h; title grams with x or u). A fragment of 1-3 ASCII
-- characters is one gram; a longer one is read from the gram of three of its characters held by the fewest names and
-- e-mails that lack the fragment (src/db/queries/participant-words.ts). The row is written again whenever the
-- meeting's tags change, and its names and e-mails are among its tags (migration 0018), so the grams follow them.
-- Equal to peopleGramsOf in JavaScript (src/db/queries/list-index.ts; compared in test/db/people-grams.test.ts).
DROP VIEW `meeting_list_terms`;
--> statement-breakpoint
CREATE VIEW `meeting_list_terms` AS SELECT k.key, m.id AS meeting_id, m.title, m.search_tags AS tags,
    -- The title's and id's grams (0014).
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
      WHERE substr(src.b, j.key + 1, 1) < x'80' OR substr(src.b, j.key + 1, 1) >= x'C0')
    -- The participants' grams: each ASCII byte, pair and triple of the lowercased names and e-mails, as ` q<hex>`.
    || (WITH src(b, n) AS MATERIALIZED (SELECT b, CASE instr(b, x'00') WHEN 0 THEN length(b) ELSE instr(b, x'00') - 1 END
                                        FROM (SELECT CAST(lower(p.name) AS BLOB) AS b FROM participants p WHERE p.meeting_id = m.id
                                              UNION ALL SELECT CAST(lower(p.email) AS BLOB) FROM participants p WHERE p.meeting_id = m.id AND p.email IS NOT NULL))
        SELECT coalesce(group_concat(' q' || hex(substr(src.b, j.key + 1, 1))
            || iif(j.key + 1 < src.n AND substr(src.b, j.key + 2, 1) < x'80',
                   ' q' || hex(substr(src.b, j.key + 1, 2)) || iif(j.key + 2 < src.n AND substr(src.b, j.key + 3, 1) < x'80', ' q' || hex(substr(src.b, j.key + 1, 3)), ''), ''), ''), '')
          FROM src, json_each('[' || rtrim(replace(hex(zeroblob(src.n)), '00', '0,'), ',') || ']') AS j
          WHERE substr(src.b, j.key + 1, 1) < x'80') AS grams
  FROM meetings m JOIN meeting_keys k ON k.meeting_id = m.id;
--> statement-breakpoint
-- Every row written again, holding up to 64 MiB in memory before a segment is written, then FTS5's default again and
-- one segment (as 0018).
INSERT INTO meeting_terms (meeting_terms, rank) VALUES ('hashsize', 67108864);
--> statement-breakpoint
INSERT INTO meeting_terms (meeting_terms) VALUES ('delete-all');
--> statement-breakpoint
INSERT INTO meeting_terms (rowid, tags, grams) SELECT key, tags, grams FROM meeting_list_terms;
--> statement-breakpoint
INSERT INTO meeting_terms (meeting_terms, rank) VALUES ('hashsize', 1048576);
--> statement-breakpoint
INSERT INTO meeting_terms (meeting_terms) VALUES ('optimize');
