-- Bitmaps of meeting_terms' dense tokens (src/db/queries/meeting-bits.ts), for the exact total of a list_meetings filter
-- read from meeting_terms (issue 19): FTS5 counts `(the six title words holding "ing") AND a participant's word` by
-- walking every entry of their doclists (~40 ns an entry: 4-5.5 ms at 100k meetings); from bitmaps it is ORs, ANDs and a
-- popcount over 4,096 meetings a row.
--
-- A generation numbers the meetings in key order as it begins (meeting_bits_keys; the changes' counter then is its
-- `seq`), then the worker builds each dense token's bits (meeting_bits: a row per token and block of 4,096 numbers, none
-- when no meeting of the block holds it) from FTS5's doclists in bounded rounds. The newest generation built whole
-- answers: what changed since its `seq` (meeting_bits_changed) is left out of its bits and asked of FTS5 key by key, and
-- the meetings after its last key are counted by FTS5 over that key range. Derived data: `syntheo doctor
-- --repair-search` empties it.
--
-- Every write of meeting_terms comes from a trigger on `meetings` (a meeting added or deleted, re-keyed when re-timed
-- or re-titled, its row written again when its tags change): the triggers below mark those meetings' keys, while a
-- generation exists (none below 4,096 meetings: the writes of a small file mark nothing; a generation begins in a
-- write transaction, so a change is marked exactly when it comes after one began). A migration writing meeting_terms
-- again whole must empty these tables too.
CREATE TABLE `meeting_bits_state` (
	`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1),
	`seq` integer NOT NULL,
	`gen` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO meeting_bits_state (id, seq, gen) VALUES (1, 0, 0);
--> statement-breakpoint
-- A generation: `seq`, the changes its bits hold; its dense tokens (held by `dense_min` meetings or more) read from
-- meeting_terms' vocabulary in chunks, up to `listed_to`, until `listed`; `meetings` numbered (0 to meetings - 1, in key
-- order) and the highest key numbered (`last_key`) once `numbered`; blocks [0, built) built for every token, and block
-- `built` up to token `term` (in byte order; null: none yet).
CREATE TABLE `meeting_bits_gens` (
	`gen` integer PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	`dense_min` integer NOT NULL,
	`listed_to` text NOT NULL DEFAULT '',
	`listed` integer NOT NULL DEFAULT 0,
	`meetings` integer NOT NULL,
	`last_key` integer,
	`numbered` integer NOT NULL DEFAULT 0,
	`built` integer NOT NULL DEFAULT 0,
	`term` text
);
--> statement-breakpoint
CREATE TABLE `meeting_bits_keys` (
	`gen` integer NOT NULL,
	`num` integer NOT NULL,
	`key` integer NOT NULL,
	PRIMARY KEY (`gen`, `num`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE UNIQUE INDEX `meeting_bits_keys_key_unique` ON `meeting_bits_keys` (`gen`, `key`);
--> statement-breakpoint
-- A generation's dense tokens, with how many meetings held each as it began (`doc`): what FTS5 would walk to count.
CREATE TABLE `meeting_bits_terms` (
	`gen` integer NOT NULL,
	`term` text NOT NULL,
	`doc` integer NOT NULL,
	PRIMARY KEY (`gen`, `term`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `meeting_bits` (
	`gen` integer NOT NULL,
	`term` text NOT NULL,
	`block` integer NOT NULL,
	`bits` blob NOT NULL,
	PRIMARY KEY (`gen`, `term`, `block`)
) WITHOUT ROWID;
--> statement-breakpoint
-- A key added or gone, or whose meeting_terms row was written again, with the changes' counter then (its latest:
-- deleted and inserted, not INSERT OR REPLACE, which a statement's own OR IGNORE would turn into an IGNORE).
CREATE TABLE `meeting_bits_changed` (
	`key` integer PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL
);
--> statement-breakpoint
-- The changes since a generation began, read in full from the index (those after its last key are skipped).
CREATE INDEX `meeting_bits_changed_seq_idx` ON `meeting_bits_changed` (`seq`, `key`);
--> statement-breakpoint
CREATE TRIGGER `meeting_keys_bits_ai` AFTER INSERT ON `meeting_keys` WHEN EXISTS (SELECT 1 FROM meeting_bits_gens) BEGIN
  UPDATE meeting_bits_state SET seq = seq + 1 WHERE id = 1;
  DELETE FROM meeting_bits_changed WHERE key = new.key;
  INSERT INTO meeting_bits_changed (key, seq) SELECT new.key, seq FROM meeting_bits_state WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `meeting_keys_bits_ad` AFTER DELETE ON `meeting_keys` WHEN EXISTS (SELECT 1 FROM meeting_bits_gens) BEGIN
  UPDATE meeting_bits_state SET seq = seq + 1 WHERE id = 1;
  DELETE FROM meeting_bits_changed WHERE key = old.key;
  INSERT INTO meeting_bits_changed (key, seq) SELECT old.key, seq FROM meeting_bits_state WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `meeting_keys_bits_au` AFTER UPDATE ON `meeting_keys` WHEN EXISTS (SELECT 1 FROM meeting_bits_gens) BEGIN
  UPDATE meeting_bits_state SET seq = seq + 1 WHERE id = 1;
  DELETE FROM meeting_bits_changed WHERE key IN (old.key, new.key);
  INSERT INTO meeting_bits_changed (key, seq) SELECT k.value, s.seq FROM meeting_bits_state s, (SELECT old.key AS value UNION SELECT new.key) k WHERE s.id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `meetings_bits_au` AFTER UPDATE OF id, title, search_tags ON `meetings`
  WHEN (old.id IS NOT new.id OR old.title IS NOT new.title OR old.search_tags IS NOT new.search_tags) AND EXISTS (SELECT 1 FROM meeting_bits_gens) BEGIN
  UPDATE meeting_bits_state SET seq = seq + 1 WHERE id = 1;
  DELETE FROM meeting_bits_changed WHERE key IN (SELECT key FROM meeting_keys WHERE meeting_id IN (old.id, new.id));
  INSERT INTO meeting_bits_changed (key, seq) SELECT k.key, s.seq FROM meeting_keys k, meeting_bits_state s WHERE k.meeting_id IN (old.id, new.id) AND s.id = 1;
END;
