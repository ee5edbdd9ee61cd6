CREATE TABLE `title_words` (
	`id` integer PRIMARY KEY NOT NULL,
	`word` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `title_words_word_unique` ON `title_words` (`word`);
--> statement-breakpoint
-- Hand-written below (drizzle-kit generates the lines above from src/db/schema/search.ts): the words of titles and ids
-- as tokens of meeting_terms, so that list_meetings reads a title fragment with the other filters in one FTS5 query
-- (issue 19), as PostgreSQL reads its title words (its migration 0012). A `query` of 3+ characters was read from
-- meeting_titles' trigrams: `design` (16,068 of 100k meetings) 3-5 ms alone, and with the most frequent participant word
-- (42,942) the two indexes' keys merged, 6.3 ms for the count alone.
--
-- A word is a run of characters between the participant words' separators (migration 0010) in the title and in the
-- id, ASCII letters lowercased (as SQLite's lower() does), so a fragment without a separator is in a title or id
-- exactly when it is in one of its words (the trigram index folds case beyond ASCII too: title_words_fts does the
-- same). A word longer than 64 characters is its chunks of 64 starting every 32, so a fragment of at most 32 characters
-- inside it is inside one of them. Each word is the token `w<hex of its UTF-8 bytes>` of the meeting's meeting_terms
-- row (tags start with f, s, p, d, m, y or h; grams with x, u or q); a title or id holding a NUL (which SQLite's text
-- functions and the tokenizers may read apart) adds the token `w` alone, and a fragment is not read from words while any meeting holds it.
-- title_words holds each distinct word once, with a trigram index: the fragment is matched against those, and up to
-- 32 of them are ORed in the FTS5 query. Never removed: a word no meeting holds any more is in no meeting_terms row.
-- Equal to titleWordsOf in JavaScript (src/db/queries/list-index.ts; compared in test/db/title-words.test.ts).
CREATE VIRTUAL TABLE `title_words_fts` USING fts5(`word`, content='title_words', content_rowid='id', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `title_words_ai` AFTER INSERT ON `title_words` BEGIN
  INSERT INTO title_words_fts (rowid, word) VALUES (new.id, new.word);
END;
--> statement-breakpoint
CREATE TRIGGER `title_words_ad` AFTER DELETE ON `title_words` BEGIN
  INSERT INTO title_words_fts (title_words_fts, rowid, word) VALUES ('delete', old.id, old.word);
END;
--> statement-breakpoint
CREATE TRIGGER `title_words_au` AFTER UPDATE ON `title_words` BEGIN
  INSERT INTO title_words_fts (title_words_fts, rowid, word) VALUES ('delete', old.id, old.word);
  INSERT INTO title_words_fts (rowid, word) VALUES (new.id, new.word);
END;
--> statement-breakpoint
-- A meeting's words as a JSON array (its chunks, distinct), with '' when its title or id holds a NUL. The separators
-- made spaces, the text is quoted as a JSON string (json_quote escapes what JSON must) and each space made `","`: an
-- array of the words, read without recursion (40 us a meeting against 90 splitting at each space in turn).
CREATE VIEW `meeting_title_words` AS SELECT m.id AS meeting_id, (
    WITH RECURSIVE chunks(word, at) AS (
        SELECT j.value, 1 FROM (SELECT m.title AS t UNION ALL SELECT m.id) x,
          json_each('[' || replace(json_quote(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(lower(x.t), '@', ' '), '.', ' '), ',', ' '), '-', ' '), '_', ' '), '(', ' '), ')', ' '), '/', ' '), '''', ' '), '"', ' '), '+', ' '), ';', ' '), ':', ' '), char(9), ' '), char(10), ' '), char(13), ' ')), ' ', '","') || ']') j WHERE j.value != ''
        UNION ALL SELECT word, at + 32 FROM chunks WHERE at + 32 <= length(word) - 32)
    SELECT json_group_array(c) FROM (
      SELECT DISTINCT substr(word, at, 64) AS c FROM chunks
      UNION SELECT '' WHERE instr(CAST(m.title AS BLOB), x'00') > 0 OR instr(CAST(m.id AS BLOB), x'00') > 0)) AS words
  FROM meetings m;
--> statement-breakpoint
-- Whoever writes a meeting or its title or id adds its missing words (no conflict clause: see 0019).
CREATE TRIGGER `meetings_title_words_ai` AFTER INSERT ON `meetings` BEGIN
  INSERT INTO title_words (word) SELECT DISTINCT j.value FROM meeting_title_words v, json_each(v.words) j
    WHERE v.meeting_id = new.id AND j.value != '' AND NOT EXISTS (SELECT 1 FROM title_words t WHERE t.word = j.value);
END;
--> statement-breakpoint
CREATE TRIGGER `meetings_title_words_au` AFTER UPDATE OF id, title ON `meetings` BEGIN
  INSERT INTO title_words (word) SELECT DISTINCT j.value FROM meeting_title_words v, json_each(v.words) j
    WHERE v.meeting_id = new.id AND j.value != '' AND NOT EXISTS (SELECT 1 FROM title_words t WHERE t.word = j.value);
END;
--> statement-breakpoint
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
    -- The title's and id's words (0027), as ` w<hex>`; ` w` alone when the title or id holds a NUL.
    || coalesce((SELECT group_concat(' w' || hex(j.value), '') FROM meeting_title_words v, json_each(v.words) j WHERE v.meeting_id = m.id), '')
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
-- The words of the meetings there are, then every meeting_terms row written again, holding up to 64 MiB in memory
-- before a segment is written, then FTS5's default again and one segment (as 0025).
INSERT INTO title_words (word) SELECT DISTINCT j.value FROM meeting_title_words v, json_each(v.words) j WHERE j.value != '';
--> statement-breakpoint
INSERT INTO meeting_terms (meeting_terms, rank) VALUES ('hashsize', 67108864);
--> statement-breakpoint
INSERT INTO meeting_terms (meeting_terms) VALUES ('delete-all');
--> statement-breakpoint
INSERT INTO meeting_terms (rowid, tags, grams) SELECT key, tags, grams FROM meeting_list_terms;
--> statement-breakpoint
INSERT INTO meeting_terms (meeting_terms, rank) VALUES ('hashsize', 1048576);
--> statement-breakpoint
INSERT INTO meeting_terms (meeting_terms) VALUES ('optimize');
