CREATE TABLE "title_words" (
	"word" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
CREATE INDEX "title_words_word_idx" ON "title_words" USING btree ("word");--> statement-breakpoint
CREATE INDEX "title_words_trgm_idx" ON "title_words" USING gin ("word" gin_trgm_ops);--> statement-breakpoint
-- Hand-written below (drizzle-kit generates the lines above from src/db/schema-pg/filters.ts): the words of titles and
-- ids as title grams, so that list_meetings answers a common title word from keys (issue 19). A `query` of 3+
-- characters was matched by ILIKE on the titles the trigram index proposed, every one of them read and rechecked to
-- count them (`design`, 16,068 meetings at 100k: 12-22 ms).
--
-- A word is a run of characters between the participant words' separators (migration 0007) in the lower-cased title
-- and id, so a fragment without a separator is in a title or id exactly when it is in one of its words (lower() maps
-- no other character to a separator). Each word is a gram `gw<word>` of meeting_grams (`w` is no hex digit: apart
-- from 0008's `g<hex>` and 0009's `gu<hex>`); a word longer than 64 characters is its chunks of 64 starting every 32
-- characters, so a fragment of at most 32 characters inside it is inside one of them, and every key stays short.
-- title_words holds each distinct word (chunk) about once, with a trigram index: the fragment is matched against
-- those, then its meetings are the key ranges of the few matching words' grams, counted from meeting_tag_counts.
-- In PL/pgSQL, so that it is not inlined and its row estimate holds: inlined, the planner guessed 1,000 words of 1,000
-- chunks each (regexp_split_to_table, generate_series), so a 20-meeting insert was costed above jit_above_cost and
-- JIT-compiled its grams' statement (0.1 -> 0.9 s).
CREATE FUNCTION syntheo_title_words(title text, id text) RETURNS SETOF text LANGUAGE plpgsql STABLE PARALLEL SAFE ROWS 8 AS $$
BEGIN
  RETURN QUERY SELECT DISTINCT substr(w, s, 64) COLLATE "C"
    FROM regexp_split_to_table(lower(title) || ' ' || lower(id), '[ @.,_()/''"+;:\t\n\r-]+') w
    CROSS JOIN LATERAL generate_series(1, greatest(char_length(w) - 32, 1), 32) s
    WHERE w <> '';
END $$;
--> statement-breakpoint
-- 0009's grams and the words: the view meeting_gram_rows, and so the triggers, the doctor, `--repair-search` and
-- `db copy`, read them all from here.
CREATE OR REPLACE FUNCTION syntheo_title_grams(title text, id text) RETURNS SETOF text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT DISTINCT ('g' || encode(substring(x.b FROM i FOR k.n), 'hex')) COLLATE "C"
  FROM unnest(ARRAY[convert_to(lower(title), 'UTF8'), convert_to(lower(id), 'UTF8')]) x(b)
  CROSS JOIN LATERAL generate_series(1, length(x.b)) i CROSS JOIN (VALUES (1), (2)) k(n)
  WHERE get_byte(x.b, i - 1) < 128 AND (k.n = 1 OR (i < length(x.b) AND get_byte(x.b, i) < 128))
  UNION ALL
  SELECT syntheo_title_grams_beyond_ascii(title, id)
  UNION ALL
  SELECT ('gw' || w) COLLATE "C" FROM syntheo_title_words(title, id) w $$;
--> statement-breakpoint
-- title_words follows meeting_grams: whoever writes a word's gram (the meetings' triggers, the repair, `db copy`'s
-- fill) adds the word unless it is already visible. No unique key, as participant_words: no writer waits for
-- another's uncommitted word; a word twice only matches the same grams twice. Never removed: a word no meeting holds
-- any more has no gram, so it matches nothing.
CREATE FUNCTION syntheo_title_words_kept() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  INSERT INTO title_words (word)
    SELECT DISTINCT substr(a.tag, 3) FROM added a
    WHERE a.tag >= 'gw' AND a.tag < 'gx' AND NOT EXISTS (SELECT 1 FROM title_words x WHERE x.word = substr(a.tag, 3));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER meeting_grams_words_ai AFTER INSERT ON meeting_grams REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_title_words_kept();
--> statement-breakpoint
-- `syntheo doctor --repair-search` (0008's function, called with NULL at the end): also every word of a gram that
-- title_words lacks.
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
  ELSE
    PERFORM syntheo_refresh_meeting_grams(ids);
  END IF;
END $$;
--> statement-breakpoint
-- The words of the meetings there are (their counts and title_words follow, by meeting_grams' triggers). Writers of
-- meetings wait (SHARE) until the migration commits: none writes grams with the old function meanwhile.
LOCK TABLE meetings IN SHARE MODE;
--> statement-breakpoint
INSERT INTO meeting_grams (tag, started_at, meeting_id)
  SELECT ('gw' || w) COLLATE "C", m.started_at COLLATE "C", m.id FROM meetings m CROSS JOIN LATERAL syntheo_title_words(m.title, m.id) w
  ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- The participant handles (migration 0005) holding a fragment across words (`Sam Berg 297`), by its ILIKE patterns,
-- from their trigram index: planned in the list's statement, the 4,000 handles were read one by one (a table that small
-- looks cheaper to scan: 2-4 ms at 100k meetings, twice a list) where the index answers in ~0.05 ms.
CREATE FUNCTION syntheo_handles_like(patterns text[]) RETURNS SETOF text LANGUAGE sql STABLE PARALLEL SAFE ROWS 4 SET enable_seqscan = off AS $$
  SELECT DISTINCT h.handle FROM unnest(patterns) p CROSS JOIN LATERAL (SELECT handle FROM participant_handles WHERE handle ILIKE p ESCAPE '\') h $$;
--> statement-breakpoint
-- Roles made by `syntheo db roles` before this migration got write privileges on the new table (its default
-- privileges): neither may write it (only the triggers do), as that command now says for roles made after.
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT DISTINCT grantee FROM information_schema.role_table_grants
    WHERE table_schema = current_schema() AND table_name = 'title_words' AND privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE') AND grantee NOT IN (current_user, 'PUBLIC')
  LOOP
    EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON title_words FROM %I', r.grantee);
  END LOOP;
END $$;
