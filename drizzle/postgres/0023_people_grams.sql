-- The meetings holding each ASCII gram of the participants' names and e-mails as bits (issue 19), as SQLite's list index
-- holds them (its migration 0025): a gram is a run of 1-3 ASCII characters of a lower-cased name or e-mail, as a tag
-- `q` and its bytes in hex (`q6f6e31` for `on1`). A meeting holds the gram exactly when one of its names or e-mails
-- does, and ILIKE lower-cases both sides as lower() does: a fragment of 1-3 ASCII characters is in a meeting's
-- participants exactly when the meeting holds its gram, and a longer one only when it holds each of its triples.
-- list_meetings with a fragment in more names than MAX_PARTICIPANT_HANDLES and in too many meetings for their
-- exceptions (`person1`, in 1,111 of the 4,000 names and e-mails and 93,015 of 100k meetings) counted its total by
-- probing every meeting's participants (~120 ms); from the bits it is bit_count() of a few rows a block
-- (src/db/postgres/meetings.ts, gramsTotal).
--
-- Only bits, in meeting_tag_bits beside meeting_tags' (no rows: ~160 grams a meeting would be 16M rows at 100k
-- meetings; the bits are 43,269 (gram, block) rows, ~21 MB). They are kept from the participants' changes: once a
-- statement's meetings are locked (syntheo_refresh_meeting_tags locks them, in id order, for the tags), the grams of
-- the names and e-mails it added to or removed from each are looked for in the meeting's names and e-mails before and
-- after it, and those held on one side only are XORed into their blocks. Two writers of one meeting's participants take turns on its lock, and in read committed the second then reads
-- the first's rows: its "before" is what the first left. A repeatable-read or serializable writer whose snapshot is
-- older than another's change of the meeting is refused at the lock (40001: the meetings' versions, migration 0016)
-- before it computes anything. `syntheo doctor` compares a sample of blocks with the participants' names and e-mails;
-- `--repair-search` computes every gram's bits again.
--
-- The grams of a lower-cased name or e-mail: every run of 1-3 characters all ASCII (as many bytes as characters).
CREATE OR REPLACE FUNCTION syntheo_people_grams(folded text) RETURNS SETOF text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT DISTINCT 'q' || encode(convert_to(s.g, 'UTF8'), 'hex')
  FROM generate_series(1, length(folded)) i, generate_series(1, 3) k, LATERAL (SELECT substr(folded, i, k) AS g) s
  WHERE length(s.g) = k AND octet_length(s.g) = k $$;
--> statement-breakpoint
-- Each name and e-mail the participants carry (its tag, migration 0015) with each of its grams: a gram's meetings are
-- those of the names and e-mails holding it (the fill below, and `syntheo doctor`'s check of a sample of blocks).
CREATE OR REPLACE VIEW participant_handle_grams AS
  SELECT syntheo_handle_tag(x.handle) AS tag, syntheo_people_grams(lower(x.handle)) AS gram
  FROM (SELECT name AS handle FROM participants UNION SELECT email FROM participants WHERE email IS NOT NULL) x;
--> statement-breakpoint
-- Whoever writes the ninth row of a (tag, block), in read committed and when no other writer is doing it, replaces
-- them by their XOR (none when no bit is left), as migration 0019 folds meeting_tags' deltas. The (tag, block) rows
-- are counted in one statement rather than one a loop's turn (50 meetings' 350 participants write ~1,000 grams' rows;
-- no change measured in that statement's time).
CREATE OR REPLACE FUNCTION syntheo_fold_tag_bits(ts text[], bs int[]) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  t text;
  b int;
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN RETURN; END IF;
  FOR t, b IN SELECT u.t, u.b FROM unnest(ts, bs) u(t, b)
              WHERE (SELECT count(*) FROM (SELECT 1 FROM meeting_tag_bits x WHERE x.tag = u.t AND x.block = u.b LIMIT 9) y) > 8 LOOP
    -- 1835166068: 'mbit' in ASCII, the class of these locks (a collision of two blocks' keys only skips a fold).
    IF pg_try_advisory_xact_lock(1835166068, hashtext(t) # b) THEN
      WITH gone AS (DELETE FROM meeting_tag_bits x WHERE x.tag = t AND x.block = b RETURNING x.bits)
      INSERT INTO meeting_tag_bits (tag, block, bits) SELECT t, b, bit_xor(bits) FROM gone HAVING bit_count(bit_xor(bits)) > 0;
    END IF;
  END LOOP;
END $$;
--> statement-breakpoint
-- meeting_tags' and meeting_grams' deltas (migrations 0019, 0022), folded by the same function as the grams'.
CREATE OR REPLACE FUNCTION syntheo_meeting_tag_bits() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  ts text[];
  bs int[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    -- New meetings numbered in the order they started (a list's blocks then hold neighbours).
    INSERT INTO meeting_numbers (meeting_id)
      SELECT a.meeting_id FROM added a WHERE NOT EXISTS (SELECT 1 FROM meeting_numbers n WHERE n.meeting_id = a.meeting_id)
      GROUP BY a.meeting_id ORDER BY min(a.started_at), a.meeting_id ON CONFLICT DO NOTHING;
    WITH written AS (
      INSERT INTO meeting_tag_bits (tag, block, bits)
        SELECT a.tag, n.n >> 12, bit_or(B'1'::bit(4096) >> (n.n & 4095)) FROM added a JOIN meeting_numbers n ON n.meeting_id = a.meeting_id
        WHERE syntheo_has_tag_bits(a.tag) GROUP BY 1, 2
        RETURNING tag, block)
    SELECT array_agg(tag), array_agg(block) INTO ts, bs FROM written;
  ELSE
    WITH written AS (
      INSERT INTO meeting_tag_bits (tag, block, bits)
        SELECT r.tag, n.n >> 12, bit_or(B'1'::bit(4096) >> (n.n & 4095)) FROM removed r JOIN meeting_numbers n ON n.meeting_id = r.meeting_id
        WHERE syntheo_has_tag_bits(r.tag) GROUP BY 1, 2
        RETURNING tag, block)
    SELECT array_agg(tag), array_agg(block) INTO ts, bs FROM written;
  END IF;
  PERFORM syntheo_fold_tag_bits(ts, bs);
  RETURN NULL;
END $$;
--> statement-breakpoint
-- The grams of meetings `ids` (their rows locked by the caller) held before the statement and not now, or now and not
-- before, XORed into their bits. Before: their participants now less those the statement wrote (`added`, their ids),
-- with those it removed (`gone_meetings`, `gone_names`, `gone_emails`, one entry each). Only the grams of the names
-- and e-mails a meeting gained or lost can change, each then looked for in its other names and e-mails (a gram is
-- held when its text is in one): a statement that changes no name or e-mail (a role, a position) computes nothing.
CREATE OR REPLACE FUNCTION syntheo_people_gram_bits(ids text[], added text[], gone_meetings text[], gone_names text[], gone_emails text[])
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  ts text[];
  bs int[];
BEGIN
  IF cardinality(ids) = 0 THEN RETURN; END IF;
  WITH now AS MATERIALIZED (SELECT p.id, p.meeting_id, lower(p.name) AS name, lower(p.email) AS email FROM participants p WHERE p.meeting_id = ANY(ids)),
       was AS (SELECT n.meeting_id, n.name, n.email FROM now n WHERE NOT EXISTS (SELECT 1 FROM unnest(added) a(id) WHERE a.id = n.id)
               UNION ALL SELECT g.m, lower(g.n), lower(g.e) FROM unnest(gone_meetings, gone_names, gone_emails) g(m, n, e)),
       handles AS MATERIALIZED (SELECT meeting_id, h, bool_or(side) AS now, bool_or(NOT side) AS was
                                FROM (SELECT meeting_id, name AS h, true AS side FROM now UNION ALL SELECT meeting_id, email, true FROM now
                                      UNION ALL SELECT meeting_id, name, false FROM was UNION ALL SELECT meeting_id, email, false FROM was) x
                                WHERE h IS NOT NULL GROUP BY 1, 2),
       candidates AS (SELECT DISTINCT c.meeting_id, g.g, convert_from(decode(substr(g.g, 2), 'hex'), 'UTF8') AS text
                      FROM handles c CROSS JOIN LATERAL syntheo_people_grams(c.h) g(g) WHERE c.now <> c.was),
       changed AS (SELECT c.meeting_id, c.g FROM candidates c JOIN handles x ON x.meeting_id = c.meeting_id AND strpos(x.h, c.text) > 0
                   GROUP BY 1, 2 HAVING bool_or(x.now) <> bool_or(x.was)),
       written AS (
         INSERT INTO meeting_tag_bits (tag, block, bits)
           SELECT c.g, n.n >> 12, bit_or(B'1'::bit(4096) >> (n.n & 4095)) FROM changed c JOIN meeting_numbers n ON n.meeting_id = c.meeting_id AND n.meeting_id = ANY(ids)
           GROUP BY 1, 2
           RETURNING tag, block)
  SELECT array_agg(tag), array_agg(block) INTO ts, bs FROM written;
  PERFORM syntheo_fold_tag_bits(ts, bs);
END $$;
--> statement-breakpoint
-- The participants' triggers (migration 0007): the tags refreshed (their meetings locked), then the grams' bits.
CREATE OR REPLACE FUNCTION syntheo_participants_tags() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  ids text[];
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO participant_words (word)
      SELECT DISTINCT w.word FROM added a CROSS JOIN LATERAL syntheo_participant_words_of(a.name, a.email) w(word)
      WHERE NOT EXISTS (SELECT 1 FROM participant_words x WHERE x.word = w.word);
  END IF;
  IF TG_OP = 'INSERT' THEN
    ids := array(SELECT DISTINCT meeting_id FROM added);
    PERFORM syntheo_refresh_meeting_tags(ids);
    PERFORM syntheo_people_gram_bits(ids, array(SELECT id FROM added), '{}', '{}', '{}');
  ELSIF TG_OP = 'DELETE' THEN
    ids := array(SELECT DISTINCT meeting_id FROM removed);
    PERFORM syntheo_refresh_meeting_tags(ids);
    PERFORM syntheo_people_gram_bits(ids, '{}', array(SELECT meeting_id FROM removed), array(SELECT name FROM removed), array(SELECT email FROM removed));
  ELSE
    ids := array(SELECT meeting_id FROM added UNION SELECT meeting_id FROM removed);
    PERFORM syntheo_refresh_meeting_tags(ids);
    PERFORM syntheo_people_gram_bits(ids, array(SELECT id FROM added), array(SELECT meeting_id FROM removed), array(SELECT name FROM removed), array(SELECT email FROM removed));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Every gram's bits computed again (this migration, `db copy`'s fill, the repair), from the bits of the names' and
-- e-mails' tags (migration 0015: `h` and the md5 of each): a gram's meetings are those of the names and e-mails holding
-- it. Those bits must be whole first (the callers write meeting_tags, or its bits, before).
CREATE OR REPLACE FUNCTION syntheo_fill_people_gram_bits() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  DELETE FROM meeting_tag_bits WHERE tag >= 'q' AND tag < 'r';
  INSERT INTO meeting_tag_bits (tag, block, bits)
    SELECT g.gram, x.block, bit_or(x.bits)
    FROM participant_handle_grams g
    JOIN (SELECT b.tag, b.block, bit_xor(b.bits) AS bits FROM meeting_tag_bits b WHERE b.tag >= 'h' AND b.tag < 'i' GROUP BY 1, 2) x ON x.tag = g.tag
    GROUP BY 1, 2 HAVING bit_count(bit_or(x.bits)) > 0;
END $$;
--> statement-breakpoint
-- The repair (migrations 0019, 0022) with the grams' bits.
CREATE OR REPLACE FUNCTION syntheo_repair_meeting_tag_bits() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  LOCK TABLE meeting_tags, meeting_grams IN SHARE ROW EXCLUSIVE MODE;
  INSERT INTO meeting_numbers (meeting_id)
    SELECT t.meeting_id FROM (SELECT meeting_id, started_at FROM meeting_tags UNION ALL SELECT meeting_id, started_at FROM meeting_grams) t
    WHERE NOT EXISTS (SELECT 1 FROM meeting_numbers n WHERE n.meeting_id = t.meeting_id)
    GROUP BY t.meeting_id ORDER BY min(t.started_at), t.meeting_id ON CONFLICT DO NOTHING;
  DELETE FROM meeting_tag_bits;
  INSERT INTO meeting_tag_bits (tag, block, bits)
    SELECT t.tag, n.n >> 12, bit_or(B'1'::bit(4096) >> (n.n & 4095)) FROM meeting_tags t JOIN meeting_numbers n ON n.meeting_id = t.meeting_id GROUP BY 1, 2;
  INSERT INTO meeting_tag_bits (tag, block, bits)
    SELECT t.tag, n.n >> 12, bit_or(B'1'::bit(4096) >> (n.n & 4095)) FROM meeting_grams t JOIN meeting_numbers n ON n.meeting_id = t.meeting_id
    WHERE syntheo_has_tag_bits(t.tag) GROUP BY 1, 2;
  PERFORM syntheo_fill_people_gram_bits();
END $$;
--> statement-breakpoint
-- The first bits. Writers of participants wait until the migration commits (their tags' refresh writes meeting_tags).
LOCK TABLE participants, meeting_tags IN SHARE ROW EXCLUSIVE MODE;
--> statement-breakpoint
SELECT syntheo_fill_people_gram_bits();
