CREATE TABLE "search_word_counts" (
	"lexeme" text COLLATE "C" NOT NULL,
	"n" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "search_word_counts_lexeme_idx" ON "search_word_counts" USING btree ("lexeme","n");--> statement-breakpoint
-- Hand-written below (drizzle-kit generates the lines above from src/db/schema-pg/search.ts): how many passages say
-- each word, the rows of search_postings per lexeme, kept by statement triggers on search_postings (issue 19). The
-- total of a one-word search without filters becomes a few rows summed instead of the word's postings counted
-- (`the`: 346,673 of 444,523 passages at 100k meetings, ~20 ms).
--
-- As meeting_tag_counts (migration 0008): each statement's postings added (+) or removed (-) a word, as one delta a
-- word; a word like `the` is in every passage, and one counter row a word would make every writer of passages wait on
-- it until commit. A word with more than 32 deltas has them summed into one row by the writer that sees it, when no
-- other writer is summing that word (a try-lock: nobody waits). Only deltas visible to this statement are summed (read
-- committed: a new snapshot, taken after the lock, so after the previous summer's commit); rows other writers add
-- meanwhile stay as they are. Under repeatable read or serializable, whose snapshot is older, nothing is summed.
CREATE FUNCTION syntheo_search_word_counts() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  words text[];
  one text;
BEGIN
  IF TG_OP = 'INSERT' THEN
    WITH d AS (INSERT INTO search_word_counts (lexeme, n) SELECT lexeme, count(*) FROM added GROUP BY lexeme RETURNING lexeme)
    SELECT array_agg(lexeme) INTO words FROM d;
  ELSIF TG_OP = 'DELETE' THEN
    WITH d AS (INSERT INTO search_word_counts (lexeme, n) SELECT lexeme, -count(*) FROM removed GROUP BY lexeme RETURNING lexeme)
    SELECT array_agg(lexeme) INTO words FROM d;
  ELSE
    -- No writer updates postings (0004's triggers delete and insert them); one who did changes its words' counts.
    WITH d AS (INSERT INTO search_word_counts (lexeme, n)
                 SELECT lexeme, sum(k) FROM (SELECT lexeme, 1 AS k FROM added UNION ALL SELECT lexeme, -1 FROM removed) x GROUP BY lexeme HAVING sum(k) <> 0
               RETURNING lexeme)
    SELECT array_agg(lexeme) INTO words FROM d;
  END IF;
  IF words IS NULL OR current_setting('transaction_isolation') <> 'read committed' THEN RETURN NULL; END IF;
  -- Each word's rows are counted by one statement in eight (at random): counting them all, a statement of 20 passages
  -- (~400 words) read ~5,000 delta rows, 3-5 ms; a word then keeps 32 + 8 rows on average (more than 72 once in 200).
  FOR one IN SELECT x FROM unnest(words) x WHERE random() < 0.125 AND (SELECT count(*) FROM (SELECT 1 FROM search_word_counts c WHERE c.lexeme = x LIMIT 33) y) > 32 LOOP
    -- 2003792484: 'word' in ASCII, the class of these locks (0008's are 'gram').
    IF pg_try_advisory_xact_lock(2003792484, hashtext(one)) THEN
      -- A word no passage says any more keeps no row.
      WITH gone AS (DELETE FROM search_word_counts WHERE lexeme = one RETURNING n)
      INSERT INTO search_word_counts (lexeme, n) SELECT one, sum(n) FROM gone HAVING sum(n) <> 0;
    END IF;
  END LOOP;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- search_postings truncated (search_passages truncated: 0004's trigger): no word is said any more.
CREATE FUNCTION syntheo_search_word_counts_truncate() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  TRUNCATE search_word_counts;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- `syntheo doctor --repair-search`: every word's count recomputed from the postings (whoever runs it: neither role may
-- write the table). The tables locked first, so that no writer adds a posting or a delta meanwhile.
CREATE FUNCTION syntheo_repair_word_counts() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  LOCK TABLE search_postings, search_word_counts IN SHARE ROW EXCLUSIVE MODE;
  DELETE FROM search_word_counts;
  INSERT INTO search_word_counts (lexeme, n) SELECT lexeme, count(*) FROM search_postings GROUP BY lexeme;
END $$;
--> statement-breakpoint
-- First rows, from what is there, before the triggers below exist (the statement `db copy` runs once at its end, its
-- trigger set aside). Writers of passages, and so of postings, wait (SHARE) until the migration commits.
LOCK TABLE search_passages, search_postings IN SHARE MODE;
--> statement-breakpoint
INSERT INTO search_word_counts (lexeme, n) SELECT lexeme, count(*) FROM search_postings GROUP BY lexeme;
--> statement-breakpoint
CREATE TRIGGER search_postings_counts_ai AFTER INSERT ON search_postings REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_search_word_counts();
--> statement-breakpoint
CREATE TRIGGER search_postings_counts_au AFTER UPDATE ON search_postings REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_search_word_counts();
--> statement-breakpoint
CREATE TRIGGER search_postings_counts_ad AFTER DELETE ON search_postings REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION syntheo_search_word_counts();
--> statement-breakpoint
CREATE TRIGGER search_postings_counts_at AFTER TRUNCATE ON search_postings FOR EACH STATEMENT EXECUTE FUNCTION syntheo_search_word_counts_truncate();
--> statement-breakpoint
-- Roles made by `syntheo db roles` before this migration got write privileges on the new table (its default
-- privileges): neither may write it (only the triggers do), as that command now says for roles made after.
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT DISTINCT grantee FROM information_schema.role_table_grants
    WHERE table_schema = current_schema() AND table_name = 'search_word_counts' AND privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE') AND grantee NOT IN (current_user, 'PUBLIC')
  LOOP
    EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON search_word_counts FROM %I', r.grantee);
  END LOOP;
END $$;
