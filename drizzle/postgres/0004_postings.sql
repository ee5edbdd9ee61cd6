CREATE TABLE "search_postings" (
	"lexeme" text COLLATE "C" NOT NULL,
	"passage_id" bigint NOT NULL,
	"n" smallint NOT NULL,
	CONSTRAINT "search_postings_lexeme_passage_id_pk" PRIMARY KEY("lexeme","passage_id") INCLUDE ("n")
);
--> statement-breakpoint
-- Hand-written: INCLUDE ("n") above (Drizzle cannot say it); below, the triggers that keep
-- search_postings, and its first rows. Once per statement, from the transition tables (a transcript's chunk inserts its passages in one statement). SECURITY
-- DEFINER: the note and summary triggers of 0002 insert passages as the schema's owner, and the app's
-- role writes them directly; neither role needs (nor has, for the assistants) a privilege on postings.
CREATE FUNCTION syntheo_search_postings() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    DELETE FROM search_postings s USING removed r, unnest(r.words) u
      WHERE s.lexeme = u.lexeme COLLATE "C" AND s.passage_id = r.id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO search_postings (lexeme, passage_id, n) SELECT u.lexeme, a.id, cardinality(u.positions) FROM added a, unnest(a.words) u;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER search_passages_postings_ai AFTER INSERT ON search_passages REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_search_postings();
--> statement-breakpoint
CREATE TRIGGER search_passages_postings_au AFTER UPDATE ON search_passages REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION syntheo_search_postings();
--> statement-breakpoint
CREATE TRIGGER search_passages_postings_ad AFTER DELETE ON search_passages REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION syntheo_search_postings();
--> statement-breakpoint
CREATE FUNCTION syntheo_search_postings_truncate() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  TRUNCATE search_postings;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER search_passages_postings_at AFTER TRUNCATE ON search_passages FOR EACH STATEMENT EXECUTE FUNCTION syntheo_search_postings_truncate();
--> statement-breakpoint
LOCK TABLE search_passages IN SHARE MODE;
--> statement-breakpoint
INSERT INTO search_postings (lexeme, passage_id, n) SELECT u.lexeme, p.id, cardinality(u.positions) FROM search_passages p, unnest(p.words) u ORDER BY 1, 2;
