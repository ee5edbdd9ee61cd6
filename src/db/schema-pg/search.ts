import { pgTable, text, integer, bigint, index, customType } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { meetings } from './meetings.js';
import { SEARCH_KINDS } from '../schema/enums.js';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

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

export type SearchPassageRow = typeof searchPassages.$inferSelect;
