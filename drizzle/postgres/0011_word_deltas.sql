CREATE TABLE "search_word_deltas" (
	"bucket" smallint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "search_word_deltas_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"counts" jsonb NOT NULL,
	CONSTRAINT "search_word_deltas_bucket_id_pk" PRIMARY KEY("bucket","id")
);
--> statement-breakpoint
-- Hand-written below (drizzle-kit generates the lines above from src/db/schema-pg/search.ts): the words' counts of
-- migration 0010 (search_word_counts, kept exact by statement triggers on search_postings) made cheap to write again.
--
-- 0010 inserted one delta row a word a statement (~400 for a 20-passage statement) and deleted each again when a
-- word's rows were summed: a loader wrote 40% fewer passages a second, and two writers no longer scaled (bench/README).
-- Now a statement inserts one row per bucket of its words (8 buckets by the word's hash; `counts` is {lexeme: delta},
-- ~50 words a row, stored inline), and the writer of every 512th row (by id: ~64 statements of 20 passages), or of a
-- row that finds its bucket holding more than 128, folds all committed rows into the base counts, one row a word, when
-- no other writer is folding (a try-lock: nobody waits). A word's count is its base rows plus its entries in its
-- bucket's rows: ~64 rows of ~50 words just before a fold (~0.1 ms), at most ~190 when statements say words of one
-- bucket only; not a statement's 400 words 64 times over (one row a statement: 10-25 us a row to look a word up).
--
-- Exact: a statement's postings and its deltas commit together; a fold deletes the deltas it sums and writes their
-- sums in one statement, so a reader's snapshot sees every delta once, unfolded or folded. A fold sums only the rows
-- its snapshot sees (read committed: a new snapshot, taken after the lock, so after the previous fold's commit); rows
-- committed meanwhile stay for the next fold. Under repeatable read or serializable (an older snapshot, and rows
-- read would be rows other writers conflict on) a writer never folds: it only inserts.
CREATE FUNCTION syntheo_word_bucket(lexeme text) RETURNS smallint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (hashtext(lexeme) & 7)::smallint $$;
--> statement-breakpoint
-- Every delta committed before this statement, folded into the base counts; false when another writer is folding
-- (it holds the lock until it commits) or the transaction is not read committed. It changes no word's count.
CREATE FUNCTION syntheo_fold_word_counts() RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  -- (1718578276, 2003792484): 'fold', 'word' in ASCII; 0010's per-word locks were ('word', hashtext(word)).
  IF current_setting('transaction_isolation') <> 'read committed' OR NOT pg_try_advisory_xact_lock(1718578276, 2003792484) THEN
    RETURN false;
  END IF;
  -- A word no passage says any more keeps no row.
  WITH gone AS (DELETE FROM search_word_deltas RETURNING counts),
       d AS (SELECT e.key COLLATE "C" AS lexeme, sum(e.value::int) AS n FROM gone CROSS JOIN LATERAL jsonb_each_text(gone.counts) e GROUP BY 1 HAVING sum(e.value::int) <> 0),
       b AS (DELETE FROM search_word_counts c WHERE c.lexeme IN (SELECT lexeme FROM d) RETURNING c.lexeme, c.n)
  INSERT INTO search_word_counts (lexeme, n)
    SELECT lexeme, sum(n) FROM (SELECT lexeme, n FROM d UNION ALL SELECT lexeme, n FROM b) x GROUP BY lexeme HAVING sum(n) <> 0;
  RETURN true;
END $$;
--> statement-breakpoint
-- Only the triggers fold (they run as this owner): a role holding the fold's lock in an open transaction would keep
-- every writer from folding.
REVOKE EXECUTE ON FUNCTION syntheo_fold_word_counts() FROM PUBLIC;
--> statement-breakpoint
-- The triggers of 0010 (search_postings_counts_ai/au/ad) call this: the statement's words and their deltas, one row
-- per bucket.
CREATE OR REPLACE FUNCTION syntheo_search_word_counts() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  words text[];
  deltas bigint[];
  due boolean;
  looked smallint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(lexeme), array_agg(n) INTO words, deltas FROM (SELECT lexeme, count(*) AS n FROM added GROUP BY lexeme) x;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(lexeme), array_agg(n) INTO words, deltas FROM (SELECT lexeme, -count(*) AS n FROM removed GROUP BY lexeme) x;
  ELSE
    -- No writer updates postings (0004's triggers delete and insert them); one who did changes its words' counts.
    SELECT array_agg(lexeme), array_agg(n) INTO words, deltas
      FROM (SELECT lexeme, sum(k) AS n FROM (SELECT lexeme, 1 AS k FROM added UNION ALL SELECT lexeme, -1 FROM removed) y GROUP BY lexeme HAVING sum(k) <> 0) x;
  END IF;
  IF words IS NULL THEN RETURN NULL; END IF;
  WITH d AS (INSERT INTO search_word_deltas (bucket, counts)
               SELECT syntheo_word_bucket(w), jsonb_object_agg(w, n) FROM unnest(words, deltas) u(w, n) GROUP BY 1 RETURNING id, bucket)
  SELECT bool_or(id % 512 = 0), array_agg(bucket) FILTER (WHERE id % 64 = 0) INTO due, looked FROM d;
  -- Statements whose words fall in few buckets (one-word notes) fill one bucket faster: every 64th row, its bucket's
  -- rows are counted (at most 129 index entries), and more than 128 make a fold due. Read committed only: a
  -- serializable writer reading the bucket would conflict with the writers adding to it.
  IF NOT coalesce(due, false) AND looked IS NOT NULL AND current_setting('transaction_isolation') = 'read committed' THEN
    due := EXISTS (SELECT 1 FROM unnest(looked) b WHERE (SELECT count(*) FROM (SELECT 1 FROM search_word_deltas x WHERE x.bucket = b LIMIT 129) y) > 128);
  END IF;
  IF due THEN PERFORM syntheo_fold_word_counts(); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- search_postings truncated (search_passages truncated: 0004's trigger): no word is said any more.
CREATE OR REPLACE FUNCTION syntheo_search_word_counts_truncate() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  TRUNCATE search_word_counts, search_word_deltas;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- `syntheo doctor --repair-search` and `db copy`'s fill: every word's count recomputed from the postings (whoever runs
-- it: neither role may write the tables). The tables locked first, so that no writer adds a posting or a delta meanwhile.
CREATE OR REPLACE FUNCTION syntheo_repair_word_counts() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  LOCK TABLE search_postings, search_word_deltas, search_word_counts IN SHARE ROW EXCLUSIVE MODE;
  DELETE FROM search_word_deltas;
  DELETE FROM search_word_counts;
  INSERT INTO search_word_counts (lexeme, n) SELECT lexeme, count(*) FROM search_postings GROUP BY lexeme;
END $$;
--> statement-breakpoint
-- Every word's count, its base rows and pending deltas summed: what `syntheo doctor` compares with the postings.
-- (search_transcripts reads one word's rows directly: its bucket's deltas only.)
CREATE VIEW search_word_totals AS
  SELECT lexeme, sum(n)::bigint AS n FROM (
    SELECT lexeme, n FROM search_word_counts
    UNION ALL
    SELECT e.key COLLATE "C", e.value::int FROM search_word_deltas d CROSS JOIN LATERAL jsonb_each_text(d.counts) e) x
  GROUP BY lexeme;
--> statement-breakpoint
-- 0010's counts moved over: its rows (deltas a word) are base rows as they are; summed here into one row a word.
-- Writers still running 0010's trigger wait (EXCLUSIVE: readers do not) until this migration commits; rows they add
-- after it are base rows too, summed by the next fold of their word.
LOCK TABLE search_word_counts IN EXCLUSIVE MODE;
--> statement-breakpoint
WITH gone AS (DELETE FROM search_word_counts RETURNING lexeme, n)
INSERT INTO search_word_counts (lexeme, n) SELECT lexeme, sum(n) FROM gone GROUP BY lexeme HAVING sum(n) <> 0;
--> statement-breakpoint
-- Roles made by `syntheo db roles` before this migration got write privileges on the new table and view (its default
-- privileges): neither may write them (only the triggers do), as that command now says for roles made after.
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT DISTINCT grantee, table_name FROM information_schema.role_table_grants
    WHERE table_schema = current_schema() AND table_name IN ('search_word_deltas', 'search_word_totals')
      AND privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE') AND grantee NOT IN (current_user, 'PUBLIC')
  LOOP
    EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON %I FROM %I', r.table_name, r.grantee);
  END LOOP;
END $$;
