import { pgTable, text, integer, bigint, smallint, index, primaryKey, customType, jsonb } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { meetings } from './meetings.js';
import { SEARCH_KINDS } from '../schema/enums.js';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
/** Compared byte by byte (equality only: no locale rules to apply). */
const bytesText = customType<{ data: string }>({ dataType: () => 'text COLLATE "C"' });

/**
 * Searchable passages: transcript speaker turns (at most 60 words), whole summaries and notes, as on
 * SQLite. `words` is the passage's tsvector (the `simple` configuration: no stemming, no stop words;
 * folded and without diacritics through syntheo_fold(), migration 0000), kept by PostgreSQL itself.
 * Summaries and notes reach this table through triggers (migration 0002), transcripts through the
 * Store where words are written.
 */
export const searchPassages = pgTable(
  'search_passages',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    meetingId: text('meeting_id')
      .notNull()
      .references(() => meetings.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: SEARCH_KINDS }).notNull(),
    /** Transcript, summary or meeting id the passage comes from. */
    refId: text('ref_id').notNull(),
    /** First word's offset in the transcript (get_meeting_transcript's `offset`); null for summaries and notes. */
    wordOffset: integer('word_offset'),
    speaker: text('speaker'),
    text: text('text').notNull(),
    words: tsvector('words')
      .notNull()
      .generatedAlwaysAs(sql`to_tsvector('simple'::regconfig, syntheo_fold(text))`),
  },
  (t) => [
    // Replacing a transcript's tail, a summary or a note: its passages by source, in word order.
    index('search_passages_ref_idx').on(t.refId, t.wordOffset),
    // Meeting deletion.
    index('search_passages_meeting_idx').on(t.meetingId),
    // search_transcripts: every word of the query (tsquery `&`), newest passage first.
    index('search_passages_words_idx').using('gin', t.words),
  ],
);

/**
 * The postings of search_passages.words: one row per distinct word of a passage. search_transcripts
 * counts a word's matches (the exact total the contract asks for) and takes its newest matches from
 * this primary key alone (index-only scans; several words are the intersection of their lists),
 * without visiting the passages. A GIN bitmap visits one heap page per match: ~1 µs a match, 50+ ms for
 * a common word at 10M words. Kept by statement triggers on search_passages (migration 0004, by hand);
 * `db copy` fills it once at the end. No foreign key: the triggers delete a passage's postings by key.
 * Neither role may write it (syntheo db roles): only the triggers do.
 */
export const searchPostings = pgTable(
  'search_postings',
  {
    /** A lexeme of the passage's tsvector (folded, as `words`). */
    lexeme: bytesText('lexeme').notNull(),
    passageId: bigint('passage_id', { mode: 'number' }).notNull(),
    /**
     * How many times the passage says it (its positions in `words`): what a search's window is ranked by
     * (BM25 of the counts), read from the key alone. In the key's index (INCLUDE, added
     * by hand in migration 0004: Drizzle cannot say it), so that stays an index-only scan.
     */
    n: smallint('n').notNull(),
  },
  (t) => [primaryKey({ columns: [t.lexeme, t.passageId] })],
);

/**
 * How many passages say each word (the rows of search_postings per lexeme): the words' base counts, summed on reading
 * with their pending deltas (search_word_deltas). A one-word search without filters totals its matches from these
 * instead of counting the word's postings (`the`: 346,673 at 100k meetings). Written only by the fold of the deltas
 * (migration 0011; one row a word once folded), `--repair-search` and `db copy`'s fill. Neither role may write it.
 */
export const searchWordCounts = pgTable(
  'search_word_counts',
  {
    lexeme: bytesText('lexeme').notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  // search_transcripts' total of one word: sum(n) of the word's rows, an index-only scan; the fold's lookups by word.
  (t) => [index('search_word_counts_lexeme_idx').on(t.lexeme, t.n)],
);

/**
 * The words' counts not yet folded into search_word_counts (migration 0011): each statement on search_postings adds
 * one row per bucket of its words (`syntheo_word_bucket(lexeme)`, 8 buckets), `counts` being `{lexeme: delta}`. A
 * writer only inserts, so none waits for another; the writer of every 512th row (by `id`), or of a row whose bucket
 * holds more than 128, folds all committed rows into the base counts, when no other writer is folding (a try-lock). A
 * word's count is its base rows plus its entries in its bucket's rows (tens of small rows). Neither role may write it:
 * only the triggers do.
 */
export const searchWordDeltas = pgTable(
  'search_word_deltas',
  {
    bucket: smallint('bucket').notNull(),
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    counts: jsonb('counts').notNull(),
  },
  // search_transcripts' total of one word: its bucket's rows.
  (t) => [primaryKey({ columns: [t.bucket, t.id] })],
);

export type SearchPassageRow = typeof searchPassages.$inferSelect;
