-- (drizzle-kit's CREATE TABLE and CREATE INDEXes, made statements that run again: tests put a database back to before an
-- earlier migration, and every later one runs again.)
CREATE TABLE IF NOT EXISTS "title_pairs" (
	"tag" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "title_pairs_tag_idx" ON "title_pairs" USING btree ("tag");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "title_pairs_trgm_idx" ON "title_pairs" USING gin ("tag" gin_trgm_ops);--> statement-breakpoint
-- Hand-written below (drizzle-kit generates the lines above from src/db/schema-pg/filters.ts): the pairs of adjacent
-- words of titles and ids as title grams, so that list_meetings answers a `query` across two words from keys (issue
-- 19). Such a fragment was matched by ILIKE on the titles the trigram index proposed, or on the meetings holding two
-- of its pairs of characters, every one read and rechecked to count them: at 100k meetings `ing ` (41,165 meetings)
-- took 30 ms, `Incident review` (6,738) 12, `g #` (26,698) 230.
--
-- The words are title_words' (migration 0012): runs of characters between the participant words' separators, in the
-- lower-cased title and, apart, the id. For each word followed by separators (its run):
--   `gv` + the word's last 32 characters + the run's first 8: a fragment of a word's end and separators (`ing `) is
--     in a title or id exactly when it is in one of these (its end at the word's end, its separators the run's start);
--   `gp` + the word's last 32 characters + the run + the next word, when a word follows and the run is at most 8
--     characters: the next word whole when it is 1-32 ASCII letters, else its first character and U+0001 (no
--     fragment holds it). A fragment of a word's end, separators and a word's start (`Incident review`, `g #`) is in a
--     title or id exactly when in one of these; in those of U+0001, only its first character after the separators is
--     known (`review #2`: `review #` + U+0001), and those are checked on the titles.
-- A word is the ASCII letters of a language, a next word beyond them mostly a number or a random part (`#6436`,
-- `mtg_k2...`): 499 distinct pairs at 100k meetings, 6.5 a meeting.
-- In PL/pgSQL, so that it is not inlined and its row estimate holds (as syntheo_title_words).
CREATE OR REPLACE FUNCTION syntheo_title_pairs(title text, id text) RETURNS SETOF text LANGUAGE plpgsql STABLE PARALLEL SAFE ROWS 8 AS $$
BEGIN
  RETURN QUERY SELECT DISTINCT x.tag COLLATE "C" FROM (
    SELECT w.word, w.run, lead(w.word) OVER (PARTITION BY w.s ORDER BY w.ord) AS next
    FROM unnest(ARRAY[lower(title), lower(id)]) WITH ORDINALITY t(text, s)
    CROSS JOIN LATERAL regexp_matches(t.text, '([^ @.,_()/''"+;:\t\n\r-]+)([ @.,_()/''"+;:\t\n\r-]*)', 'g') WITH ORDINALITY m(parts, ord)
    CROSS JOIN LATERAL (SELECT t.s, m.ord, m.parts[1] AS word, m.parts[2] AS run) w
  ) p CROSS JOIN LATERAL (
    SELECT 'gv' || right(p.word, 32) || left(p.run, 8) WHERE p.run <> ''
    UNION ALL
    SELECT 'gp' || right(p.word, 32) || p.run || CASE WHEN p.next COLLATE "C" ~ '^[a-z]{1,32}$' THEN p.next ELSE left(p.next, 1) || chr(1) END
      WHERE p.next IS NOT NULL AND char_length(p.run) <= 8
  ) x(tag);
END $$;
--> statement-breakpoint
-- 0012's grams and the pairs: the view meeting_gram_rows, and so the triggers, the doctor, `--repair-search` and
-- `db copy`, read them all from here.
CREATE OR REPLACE FUNCTION syntheo_title_grams(title text, id text) RETURNS SETOF text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT DISTINCT ('g' || encode(substring(x.b FROM i FOR k.n), 'hex')) COLLATE "C"
  FROM unnest(ARRAY[convert_to(lower(title), 'UTF8'), convert_to(lower(id), 'UTF8')]) x(b)
  CROSS JOIN LATERAL generate_series(1, length(x.b)) i CROSS JOIN (VALUES (1), (2)) k(n)
  WHERE get_byte(x.b, i - 1) < 128 AND (k.n = 1 OR (i < length(x.b) AND get_byte(x.b, i) < 128))
  UNION ALL
  SELECT syntheo_title_grams_beyond_ascii(title, id)
  UNION ALL
  SELECT ('gw' || w) COLLATE "C" FROM syntheo_title_words(title, id) w
  UNION ALL
  SELECT syntheo_title_pairs(title, id) $$;
--> statement-breakpoint
-- The pairs whose first word is of ASCII letters have bits, as those words (0030): few, held by many meetings each.
CREATE OR REPLACE FUNCTION syntheo_has_tag_bits(tag text) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT left(tag, 1) <> 'g' OR tag ~ '^g([0-7][0-9a-f]){1,2}$' OR tag ~ '^gw[a-z]+$' OR tag ~ '^g[vp][a-z]+[ @.,_()/''"+;:\t\n\r-]' $$;
--> statement-breakpoint
-- title_pairs follows meeting_grams as title_words does (syntheo_title_words_kept): no unique key, never removed.
CREATE OR REPLACE FUNCTION syntheo_title_pairs_kept() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  INSERT INTO title_pairs (tag)
    SELECT DISTINCT a.tag FROM added a
    WHERE ((a.tag >= 'gp' AND a.tag < 'gq') OR (a.tag >= 'gv' AND a.tag < 'gw')) AND NOT EXISTS (SELECT 1 FROM title_pairs x WHERE x.tag = a.tag);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE TRIGGER meeting_grams_pairs_ai AFTER INSERT ON meeting_grams REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_title_pairs_kept();
--> statement-breakpoint
-- `syntheo doctor --repair-search` (0012's, called with NULL at the end): also every pair of a gram that title_pairs lacks.
CREATE OR REPLACE FUNCTION syntheo_repair_meeting_grams(ids text[]) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF ids IS NULL THEN
    -- The tables locked first, so that no writer adds a gram or a delta meanwhile.
    LOCK TABLE meeting_tags, meeting_grams, meeting_tag_counts IN SHARE ROW EXCLUSIVE MODE;
    DELETE FROM meeting_grams g WHERE NOT EXISTS (SELECT 1 FROM meetings m WHERE m.id = g.meeting_id);
    DELETE FROM meeting_tag_counts;
    INSERT INTO meeting_tag_counts (tag, n) SELECT tag, count(*) FROM meeting_grams GROUP BY tag UNION ALL SELECT tag, count(*) FROM meeting_tags GROUP BY tag;
    INSERT INTO title_words (word)
      SELECT DISTINCT substr(g.tag, 3) FROM meeting_grams g
      WHERE g.tag >= 'gw' AND g.tag < 'gx' AND NOT EXISTS (SELECT 1 FROM title_words x WHERE x.word = substr(g.tag, 3));
    INSERT INTO title_pairs (tag)
      SELECT DISTINCT g.tag FROM meeting_grams g
      WHERE ((g.tag >= 'gp' AND g.tag < 'gq') OR (g.tag >= 'gv' AND g.tag < 'gw')) AND NOT EXISTS (SELECT 1 FROM title_pairs x WHERE x.tag = g.tag);
  ELSE
    PERFORM syntheo_refresh_meeting_grams(ids);
  END IF;
END $$;
--> statement-breakpoint
-- The pairs of the meetings there are (their counts, bits and title_pairs follow, by meeting_grams' triggers). Writers
-- of meetings and of grams wait until the migration commits: none writes grams with the old function meanwhile.
LOCK TABLE meetings IN SHARE MODE;
--> statement-breakpoint
LOCK TABLE meeting_grams IN SHARE ROW EXCLUSIVE MODE;
--> statement-breakpoint
INSERT INTO meeting_grams (tag, started_at, meeting_id)
  SELECT p, m.started_at COLLATE "C", m.id FROM meetings m CROSS JOIN LATERAL syntheo_title_pairs(m.title, m.id) p
  ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- Their bits made again from the grams (the trigger made those of the rows just added): when tests run this migration
-- again after an earlier one, that one may have made the grams' bits again without these.
DELETE FROM meeting_tag_bits WHERE (tag >= 'gp' AND tag < 'gq') OR (tag >= 'gv' AND tag < 'gw');
--> statement-breakpoint
INSERT INTO meeting_tag_bits (tag, block, bits)
  SELECT g.tag, n.n >> 12, bit_or(B'1'::bit(4096) >> (n.n & 4095)) FROM meeting_grams g JOIN meeting_numbers n ON n.meeting_id = g.meeting_id
  WHERE ((g.tag >= 'gp' AND g.tag < 'gq') OR (g.tag >= 'gv' AND g.tag < 'gw')) AND syntheo_has_tag_bits(g.tag) GROUP BY 1, 2;
--> statement-breakpoint
-- Roles made by `syntheo db roles` before this migration got write privileges on the new table (its default
-- privileges): neither may write it (only the triggers do), as that command now says for roles made after.
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT DISTINCT grantee FROM information_schema.role_table_grants
    WHERE table_schema = current_schema() AND table_name = 'title_pairs' AND privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE') AND grantee NOT IN (current_user, 'PUBLIC')
  LOOP
    EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON title_pairs FROM %I', r.grantee);
  END LOOP;
END $$;
