-- (drizzle-kit's CREATE TABLE, made a statement that runs again: tests put a database back to before an earlier
-- migration and open it, which runs every later migration again.)
CREATE TABLE IF NOT EXISTS "search_counts" (
	"term" text COLLATE "C" NOT NULL,
	"block" integer NOT NULL,
	"counts" "bytea" NOT NULL,
	CONSTRAINT "search_counts_term_block_pk" PRIMARY KEY("term","block")
);
--> statement-breakpoint
-- Hand-written below (drizzle-kit generates the lines above from src/db/schema-pg/bitmaps.ts): how often each passage
-- of a block says a kept word, built with the word's bitmaps (issue 19). A search of one common word with a filter read
-- its window's 2,000 matches from the bitmaps (migration 0013) and ranked them by how often each says the word, looked
-- up in search_postings one passage at a time (1.4 µs each: 2.8 of the 7 ms of `the` + one month at 100k meetings).
-- Read from these bytes instead (src/db/postgres/bitmaps.ts), the statement took 4.6 ms.
--
-- A row is the block's 4,096 passage ids, a byte each: the passage's n (its positions of the word), 255 for 255 or
-- more, 0 where it does not say the word. ~0.9 KB compressed (lz4, where the server has it): 31 MB for the 380 kept
-- words of 100k meetings (35,812 rows). Exactness: a word's row of a block follows its bitmap row, by triggers on
-- search_bitmaps (written, rewritten, deleted, truncated: whoever writes the bits, in that statement), so migration
-- 0013's rounds, clear and truncate are left as they are; a block marked stale is read from neither. A search reads a
-- byte only for a passage of a built block not marked stale, and looks up the posting for 0 and 255.
DO $$
BEGIN
  ALTER TABLE search_counts ALTER COLUMN counts SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL; -- a server built without lz4 keeps its default (pglz)
END $$;
--> statement-breakpoint
-- A block's counts from its postings, each as its passage's place in the block (0-4095) times 256 plus its count (at
-- most 255): one aggregate, in any order. A byte set a posting (96 blocks of `the`, 346,673 postings: 65 ms, against
-- 153 for the same bytes aggregated as hex text in passage order).
CREATE OR REPLACE FUNCTION syntheo_block_counts(cells int[]) RETURNS bytea LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  counts bytea := decode(repeat('00', 4096), 'hex');
BEGIN
  FOR i IN 1 .. coalesce(array_length(cells, 1), 0) LOOP
    counts := set_byte(counts, cells[i] >> 8, cells[i] & 255);
  END LOOP;
  RETURN counts;
END $$;
--> statement-breakpoint
-- The counts of the words' blocks `terms[i]`, `blocks[i]` from their postings, written over what was there.
CREATE OR REPLACE FUNCTION syntheo_write_search_counts(terms text[], blocks int[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO search_counts (term, block, counts)
    SELECT k.term, k.block, syntheo_block_counts(array_agg((x.passage_id & 4095)::int << 8 | least(x.n, 255)))
    FROM unnest(terms, blocks) AS k(term, block)
    JOIN search_postings x ON x.lexeme = k.term COLLATE "C" AND x.passage_id >= k.block::bigint * 4096 AND x.passage_id < (k.block + 1)::bigint * 4096
    GROUP BY k.term, k.block
  ON CONFLICT (term, block) DO UPDATE SET counts = excluded.counts
$$;
--> statement-breakpoint
-- A statement's words' bitmap rows (kind `w`): their counts deleted, or written from the postings it sees.
CREATE OR REPLACE FUNCTION syntheo_search_counts() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM search_counts c USING removed r WHERE r.kind = 'w' AND c.term = r.term AND c.block = r.block;
  ELSE
    PERFORM syntheo_write_search_counts(array_agg(a.term), array_agg(a.block)) FROM added a WHERE a.kind = 'w' HAVING count(*) > 0;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- search_bitmaps truncated (search_postings' or search_tags' truncate, migration 0013): no count holds either.
CREATE OR REPLACE FUNCTION syntheo_search_counts_truncate() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  TRUNCATE search_counts;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE TRIGGER search_bitmaps_counts_ai AFTER INSERT ON search_bitmaps REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_search_counts();
--> statement-breakpoint
CREATE OR REPLACE TRIGGER search_bitmaps_counts_au AFTER UPDATE ON search_bitmaps REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_search_counts();
--> statement-breakpoint
CREATE OR REPLACE TRIGGER search_bitmaps_counts_ad AFTER DELETE ON search_bitmaps REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION syntheo_search_counts();
--> statement-breakpoint
CREATE OR REPLACE TRIGGER search_bitmaps_counts_at AFTER TRUNCATE ON search_bitmaps FOR EACH STATEMENT EXECUTE FUNCTION syntheo_search_counts_truncate();
--> statement-breakpoint
-- The counts of every word's bitmap rows already there (stale blocks' too: they are rebuilt with their bits), under the
-- rounds' lock. 100k meetings: the 9.2 million postings of 380 kept words, 4.9 s.
DO $$
BEGIN
  PERFORM pg_advisory_xact_lock(1651078253, 0);
  DELETE FROM search_counts;
  PERFORM syntheo_write_search_counts(array_agg(term), array_agg(block)) FROM search_bitmaps WHERE kind = 'w' HAVING count(*) > 0;
END $$;
--> statement-breakpoint
-- Roles made by `syntheo db roles` before this migration got write privileges on the new table (their default
-- privileges): neither may write it (only the triggers above do), as that command now says.
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT DISTINCT grantee FROM information_schema.role_table_grants
    WHERE table_schema = current_schema() AND table_name = 'search_counts'
      AND privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE') AND grantee NOT IN (current_user, 'PUBLIC')
  LOOP
    EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON search_counts FROM %I', r.grantee);
  END LOOP;
END $$;
