-- How many passages say each word (issue 19): the total of a one-word search without filters, and each word's
-- IDF for the ranking (src/db/queries/rank.ts), become one key lookup instead of a walk of the word's postings
-- (`the`, said in 346,673 of 444,523 passages at 100k meetings: 8 ms a call). Kept exact by triggers on the
-- passages. A trigger cannot tokenise text, so the passage's text goes through `search_words_scratch`, an FTS5
-- table with search_fts's tokenizer that holds that one row while its vocabulary (`fts5vocab` 'row': each word
-- once) is read, then is emptied. The words of search_fts's `text` column only: the tags column holds filter
-- tokens, never counted here.
CREATE VIRTUAL TABLE `search_words_scratch` USING fts5(`text`, content='', detail=none, tokenize='unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE VIRTUAL TABLE `search_scratch_vocab` USING fts5vocab(`search_words_scratch`, 'row');
--> statement-breakpoint
-- search_fts's words by column: the first counts below, `syntheo doctor`'s check and the repair read them.
CREATE VIRTUAL TABLE `search_vocab` USING fts5vocab(`search_fts`, 'col');
--> statement-breakpoint
CREATE TABLE `search_word_counts` (
	`word` text PRIMARY KEY NOT NULL,
	`passages` integer NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO search_word_counts (word, passages) SELECT term, doc FROM search_vocab WHERE col = 'text';
--> statement-breakpoint
CREATE TRIGGER `search_passages_words_ai` AFTER INSERT ON `search_passages` BEGIN
  INSERT INTO search_words_scratch (rowid, text) VALUES (1, new.text);
  INSERT INTO search_word_counts (word, passages) SELECT term, 1 FROM search_scratch_vocab WHERE true
    ON CONFLICT (word) DO UPDATE SET passages = passages + 1;
  INSERT INTO search_words_scratch (search_words_scratch) VALUES ('delete-all');
END;
--> statement-breakpoint
CREATE TRIGGER `search_passages_words_ad` AFTER DELETE ON `search_passages` BEGIN
  INSERT INTO search_words_scratch (rowid, text) VALUES (1, old.text);
  UPDATE search_word_counts SET passages = passages - 1 WHERE word IN (SELECT term FROM search_scratch_vocab);
  DELETE FROM search_word_counts WHERE passages <= 0 AND word IN (SELECT term FROM search_scratch_vocab);
  INSERT INTO search_words_scratch (search_words_scratch) VALUES ('delete-all');
END;
--> statement-breakpoint
CREATE TRIGGER `search_passages_words_au` AFTER UPDATE OF text ON `search_passages` WHEN old.text IS NOT new.text BEGIN
  INSERT INTO search_words_scratch (rowid, text) VALUES (1, old.text);
  UPDATE search_word_counts SET passages = passages - 1 WHERE word IN (SELECT term FROM search_scratch_vocab);
  DELETE FROM search_word_counts WHERE passages <= 0 AND word IN (SELECT term FROM search_scratch_vocab);
  INSERT INTO search_words_scratch (search_words_scratch) VALUES ('delete-all');
  INSERT INTO search_words_scratch (rowid, text) VALUES (1, new.text);
  INSERT INTO search_word_counts (word, passages) SELECT term, 1 FROM search_scratch_vocab WHERE true
    ON CONFLICT (word) DO UPDATE SET passages = passages + 1;
  INSERT INTO search_words_scratch (search_words_scratch) VALUES ('delete-all');
END;
