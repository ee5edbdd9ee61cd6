-- Hand-written: extensions and the folding function that the generated schema (0001) uses.
-- pg_trgm: ILIKE fragments of titles, ids, folder paths and participants through GIN trigram indexes.
-- unaccent: search folds diacritics away, as SQLite's unicode61 remove_diacritics 2 does.
-- Both are trusted extensions (PostgreSQL 13+): the database owner may create them.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS unaccent;
--> statement-breakpoint
-- Immutable (unaccent() is only stable, as its dictionary could change), so a generated column may use it.
CREATE OR REPLACE FUNCTION syntheo_fold(t text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, t)) $$;
