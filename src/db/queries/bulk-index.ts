// Writers of many meetings at once (the bench generator, `syntheo db copy` into SQLite) build the full-text
// indexes once at the end instead of row by row: FTS5 writes a segment per transaction and merges them again and
// again, and a meeting's terms row written before its participants is written again for each of them. The
// triggers that feed those indexes on insert are set aside meanwhile, then put back as the migrations made them.
import type { Sqlite } from '../open.js';
import { fillListIndexes } from './list-index.js';
import { resetSearchBits } from './search-bits.js';

/** The insert triggers of the passages' index (search_fts) and word counts (0013) and the list indexes (0012). */
const SET_ASIDE = "type = 'trigger' AND (tbl_name = 'search_passages' OR name = 'meetings_indexes_ai')";

export interface IndexesAside {
  /** Puts the triggers back and builds every index set aside from the rows (in the caller's transaction). */
  restore(): { meetings: number };
}

/**
 * Sets the row-by-row index triggers aside on this connection (in the caller's transaction, so a rollback puts
 * them back too). Meanwhile a new meeting still gets its tags, as meetings_indexes_ai gives them (its passages are
 * written with them); setting them from NULL fires meetings_search_tags_au, which writes its meeting_tags rows.
 * The bulk writers never insert search_tags themselves.
 */
export function setIndexesAside(sqlite: Sqlite): IndexesAside {
  const triggers = sqlite.prepare(`SELECT name, sql FROM main.sqlite_master WHERE ${SET_ASIDE}`).all() as { name: string; sql: string }[];
  if (!triggers.some((t) => t.name === 'meetings_indexes_ai')) throw new Error('setIndexesAside: the database has no trigger meetings_indexes_ai (migration 0012).');
  for (const t of triggers) sqlite.exec(`DROP TRIGGER main.${t.name}`);
  sqlite.exec(`CREATE TEMP TRIGGER bulk_meetings_tags_ai AFTER INSERT ON main.meetings BEGIN
    UPDATE main.meetings SET search_tags = (SELECT tags FROM main.meeting_search_tags v WHERE v.meeting_id = meetings.id) WHERE id = new.id;
  END`);
  return {
    restore() {
      sqlite.exec('DROP TRIGGER temp.bulk_meetings_tags_ai');
      for (const t of triggers) sqlite.exec(t.sql);
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
