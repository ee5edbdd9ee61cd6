import { sqliteTable, text, integer, index } from 'drizzle-orm/sqlite-core';
import { meetings } from './meetings.js';
import { SEARCH_KINDS } from './enums.js';


/**
 * Searchable passages: transcript speaker turns (at most 60 words), whole summaries and notes.
 * The FTS5 index `search_fts` (migrations 0002 and 0010, external content on this table) is kept in step by
 * triggers on this table; summaries and notes reach it through triggers, transcripts through
 * indexTranscript() where words are written. The integer id stays stable across VACUUM, as
 * external-content FTS requires.
 */
export const searchPassages = sqliteTable(
  'search_passages',
  {
    id: integer('id').primaryKey({ autoIncrement: false }),
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
    /**
     * The meeting's search_tags (folder chain, series, participant words, start date) as indexed with this passage in
     * search_fts's column `tags`: kept equal by triggers (migration 0010). The index's content is this row
     * alone, so every FTS5 delete names exactly what was indexed, whatever happens to the meeting row.
     */
    tags: text('tags').notNull().default(''),
  },
  (t) => [
    // Replacing a transcript's tail, a summary or a note: its passages by source, in word order.
    index('search_passages_ref_idx').on(t.refId, t.wordOffset),
    // Meeting deletion.
    index('search_passages_meeting_idx').on(t.meetingId),
  ],
);

export type SearchPassageRow = typeof searchPassages.$inferSelect;

/**
 * Every distinct word of a participant's name or e-mail (split at spaces and `@ . , - _ ( ) / ' " + ; :`),
 * kept by triggers on participants (migration 0010); words are only ever added. A `participant`
 * fragment without a separator is a substring of a name or e-mail exactly when it is a substring of one
 * of its words, so the fragment is matched against these few thousand words (trigram index
 * participant_words_fts), never against every participant; the matched ids are then looked up in
 * meeting_tags (list_meetings) or as `p<id>` tokens in search_fts (search_transcripts).
 */
export const participantWords = sqliteTable('participant_words', {
  id: integer('id').primaryKey({ autoIncrement: false }),
  word: text('word').notNull().unique(),
});

export type ParticipantWordRow = typeof participantWords.$inferSelect;

/**
 * Every distinct word of a meeting's title and id (split at the participant words' separators, ASCII letters
 * lowercased; a word of more than 64 characters kept as its chunks of 64 every 32), kept by triggers on meetings
 * (migration 0027); words are only ever added (one no meeting holds any more matches nothing). A `query` fragment of
 * 3-32 characters without a separator is in a title or id exactly when it is in one of its words, so the fragment is
 * matched against these words (trigram index title_words_fts), and the meetings are those holding one of the matched
 * words' `w<hex>` tokens in meeting_terms, read with the other filters' tokens in one FTS5 query.
 */
export const titleWords = sqliteTable('title_words', {
  id: integer('id').primaryKey({ autoIncrement: false }),
  word: text('word').notNull().unique(),
});

/**
 * Every distinct name and e-mail of a participant, kept by triggers on participants (migration 0017); handles are
 * only ever added (one nobody carries any more matches no meeting). A `participant` fragment that spans words
 * (`Ines Kowalski`) is matched against these few thousand handles (trigram index participant_handles_fts), and the
 * meetings are read from the participants carrying a matched handle (indexes on name and e-mail), never by matching
 * every participant.
 */
export const participantHandles = sqliteTable('participant_handles', {
  id: integer('id').primaryKey({ autoIncrement: false }),
  handle: text('handle').notNull().unique(),
});

export type ParticipantHandleRow = typeof participantHandles.$inferSelect;
