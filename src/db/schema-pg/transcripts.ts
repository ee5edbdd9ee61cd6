import { pgTable, text, integer, primaryKey } from 'drizzle-orm/pg-core';
import { meetings } from './meetings.js';
import { CONTENT_SOURCES, TRANSCRIPT_TIMINGS } from '../schema/enums.js';

/** At most one transcript per meeting; its words live in transcript_words. */
export const transcripts = pgTable('transcripts', {
  id: text('id').primaryKey(),
  // Unique: get_meeting_transcript finds a meeting's transcript by this column.
  meetingId: text('meeting_id')
    .notNull()
    .unique()
    .references(() => meetings.id, { onDelete: 'cascade' }),
  language: text('language'),
  source: text('source', { enum: CONTENT_SOURCES }).notNull().default('import'),
  /** Number of rows in transcript_words; pagination `total` without counting. */
  wordCount: integer('word_count').notNull().default(0),
  /** Whether the word times are the file's or server's own, spread by us over a cue ('estimated'), or both. */
  timing: text('timing', { enum: TRANSCRIPT_TIMINGS }).notNull().default('measured'),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
});

export const transcriptWords = pgTable(
  'transcript_words',
  {
    transcriptId: text('transcript_id')
      .notNull()
      .references(() => transcripts.id, { onDelete: 'cascade' }),
    /** 0-based word offset: a page is a range scan on the primary key, O(limit) whatever the offset. */
    idx: integer('idx').notNull(),
    /** One word, never empty, never containing whitespace. */
    text: text('text').notNull(),
    startMs: integer('start_ms'),
    endMs: integer('end_ms'),
    speaker: text('speaker'),
  },
  (t) => [primaryKey({ columns: [t.transcriptId, t.idx] })],
);

export type TranscriptRow = typeof transcripts.$inferSelect;
export type TranscriptWordRow = typeof transcriptWords.$inferSelect;
