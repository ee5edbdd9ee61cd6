// Writers of many meetings at once (the bench generator, `syntheo db copy` into SQLite) build the full-text
// indexes once at the end instead of row by row: FTS5 writes a segment per transaction and merges them again and
// again, and a meeting's terms row written before its participants is written again for each of them; meeting_tags
// rows go into random places of a large table, one meeting at a time. The triggers that feed those indexes are set
// aside meanwhile, then put back as the migrations made them.
import type { Sqlite } from '../open.js';
import { fillListIndexes } from './list-index.js';
import { resetSearchBits } from './search-bits.js';

/**
 * The insert triggers of the passages' index (search_fts) and word counts (0013), the list indexes (0012), the
 * trigger that keeps a meeting's meeting_tags rows with its tags, and the one that adds its title words (0027: the fill
 * adds them from meeting_terms).
 */
const SET_ASIDE = "type = 'trigger' AND (tbl_name = 'search_passages' OR name IN ('meetings_indexes_ai', 'meetings_search_tags_au', 'meetings_title_words_ai'))";

/**
 * Every meeting's tags as meeting_tags rows, in the table's key order (each row appended, not put in its place), its
 * other indexes set aside meanwhile and built again after (sorted once, rather than each row put in its place).
 */
function fillMeetingTags(sqlite: Sqlite): void {
  const indexes = sqlite.prepare("SELECT name, sql FROM main.sqlite_master WHERE type = 'index' AND tbl_name = 'meeting_tags' AND sql IS NOT NULL").all() as { name: string; sql: string }[];
  for (const i of indexes) sqlite.exec(`DROP INDEX main.${i.name}`);
  sqlite.exec(`DELETE FROM meeting_tags;
    INSERT OR IGNORE INTO meeting_tags (tag, started_at, meeting_id)
      SELECT j.value, m.started_at, m.id FROM meetings m, json_each('["' || replace(m.search_tags, ' ', '","') || '"]') j WHERE j.value != ''
      ORDER BY 1, 2, 3`);
  for (const i of indexes) sqlite.exec(i.sql);
}

export interface IndexesAside {
  /** Puts the triggers back and builds every index set aside from the rows (in the caller's transaction). */
  restore(): { meetings: number };
}

/**
 * Sets the row-by-row index triggers aside on this connection (in the caller's transaction, so a rollback puts
 * them back too). Meanwhile a new meeting still gets its tags, as meetings_indexes_ai gives them, and a change of them
 * (a participant added later) reaches its passages, as meetings_search_tags_au does; its meeting_tags rows are written
 * with everyone's at the end (one by one, into random places of a large table: ~300 µs a meeting at 20k meetings).
 * The bulk writers never insert search_tags themselves.
 */
export function setIndexesAside(sqlite: Sqlite): IndexesAside {
  const triggers = sqlite.prepare(`SELECT name, sql FROM main.sqlite_master WHERE ${SET_ASIDE}`).all() as { name: string; sql: string }[];
  if (!triggers.some((t) => t.name === 'meetings_indexes_ai')) throw new Error('setIndexesAside: the database has no trigger meetings_indexes_ai (migration 0012).');
  if (!triggers.some((t) => t.name === 'meetings_search_tags_au')) throw new Error('setIndexesAside: the database has no trigger meetings_search_tags_au (migration 0010).');
  for (const t of triggers) sqlite.exec(`DROP TRIGGER main.${t.name}`);
  sqlite.exec(`CREATE TEMP TRIGGER bulk_meetings_tags_ai AFTER INSERT ON main.meetings BEGIN
    UPDATE main.meetings SET search_tags = (SELECT tags FROM main.meeting_search_tags v WHERE v.meeting_id = meetings.id) WHERE id = new.id;
  END;
  CREATE TEMP TRIGGER bulk_meetings_tags_au AFTER UPDATE OF search_tags ON main.meetings WHEN old.search_tags IS NOT new.search_tags BEGIN
    UPDATE main.search_passages SET tags = new.search_tags WHERE meeting_id = new.id AND tags IS NOT new.search_tags;
  END`);
  return {
    restore() {
      sqlite.exec('DROP TRIGGER temp.bulk_meetings_tags_ai; DROP TRIGGER temp.bulk_meetings_tags_au');
      for (const t of triggers) sqlite.exec(t.sql);
      fillMeetingTags(sqlite);
      // Each index holds up to 256 MiB in memory before it writes a segment (then FTS5's default again, which is stored in the index's config).
      const once = (table: string, fill: string) =>
        sqlite.exec(`INSERT INTO ${table} (${table}, rank) VALUES ('hashsize', 268435456); ${fill}; INSERT INTO ${table} (${table}, rank) VALUES ('hashsize', 1048576)`);
      once('search_fts', "INSERT INTO search_fts (search_fts) VALUES ('rebuild')");
      recountWords(sqlite);
      // Passages written under new ids: the search bitmaps are built again (the worker, or buildSearchBits).
      resetSearchBits(sqlite);
      const { meetings } = fillListIndexes(sqlite);
      return { meetings };
    },
  };
}

/** search_word_counts (migration 0013) computed again from search_fts's vocabulary: one walk of the index. */
export function recountWords(sqlite: Sqlite): void {
  sqlite.exec("DELETE FROM search_word_counts; INSERT INTO search_word_counts (word, passages) SELECT term, doc FROM search_vocab WHERE col = 'text'");
}
