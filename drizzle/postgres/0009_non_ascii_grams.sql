-- The title grams of list_meetings (migration 0008) beyond ASCII (issue 19): a `query` of 1-2 characters with no
-- ASCII character (`é`, `会議`, an emoji) read every title (~540 ms at 100k meetings). Each character and pair of
-- adjacent characters of the lower-cased title and id that holds a character beyond ASCII is a gram too, tagged
-- `gu<hex of its UTF-8 bytes>`: `u` is no hex digit, so no such tag is one of 0008's `g<hex>` (whose grams are all
-- ASCII), and every tag still begins with `g` (meeting_grams' tags, as the truncate trigger and the reader tell them).
-- ILIKE matches the lower-cased pattern in the lower-cased text character by character (UTF-8 is self-synchronizing:
-- a match of bytes is a match of characters), so a fragment whose lower-cased spelling is 1-2 characters is in a
-- title or id exactly when it is one of these grams or of 0008's.
--
-- Writers of meetings wait (SHARE) until the migration commits: none writes grams with the old function meanwhile.
LOCK TABLE meetings IN SHARE MODE;
--> statement-breakpoint
CREATE FUNCTION syntheo_title_grams_beyond_ascii(title text, id text) RETURNS SETOF text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT DISTINCT ('gu' || encode(convert_to(g.s, 'UTF8'), 'hex')) COLLATE "C"
  FROM (SELECT t FROM unnest(ARRAY[lower(title), lower(id)]) t WHERE octet_length(t) > char_length(t)) x
  CROSS JOIN LATERAL generate_series(1, char_length(x.t)) i CROSS JOIN (VALUES (1), (2)) k(n)
  CROSS JOIN LATERAL (SELECT substr(x.t, i, k.n) AS s) g
  WHERE (k.n = 1 OR i < char_length(x.t)) AND octet_length(g.s) > char_length(g.s) $$;
--> statement-breakpoint
-- 0008's grams (ASCII bytes and pairs of them) and those above: the view meeting_gram_rows, and so the triggers, the
-- doctor, `--repair-search` and `db copy`, read them all from here.
CREATE OR REPLACE FUNCTION syntheo_title_grams(title text, id text) RETURNS SETOF text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT DISTINCT ('g' || encode(substring(x.b FROM i FOR k.n), 'hex')) COLLATE "C"
  FROM unnest(ARRAY[convert_to(lower(title), 'UTF8'), convert_to(lower(id), 'UTF8')]) x(b)
  CROSS JOIN LATERAL generate_series(1, length(x.b)) i CROSS JOIN (VALUES (1), (2)) k(n)
  WHERE get_byte(x.b, i - 1) < 128 AND (k.n = 1 OR (i < length(x.b) AND get_byte(x.b, i) < 128))
  UNION ALL
  SELECT syntheo_title_grams_beyond_ascii(title, id) $$;
--> statement-breakpoint
-- The new grams of the meetings there are (their counts follow, by meeting_grams' triggers).
INSERT INTO meeting_grams (tag, started_at, meeting_id)
  SELECT g.tag, m.started_at COLLATE "C", m.id FROM meetings m CROSS JOIN LATERAL syntheo_title_grams_beyond_ascii(m.title, m.id) g(tag)
  WHERE octet_length(m.title) > char_length(m.title) OR octet_length(m.id) > char_length(m.id)
  ON CONFLICT DO NOTHING;
