import { sqliteTable, text, integer, index } from 'drizzle-orm/sqlite-core';
import { sql } from 'drizzle-orm';
import { folders } from './folders.js';
import { series } from './series.js';
import { CONTENT_SOURCES } from './enums.js';

export const meetings = sqliteTable(
  'meetings',
  {
    id: text('id').primaryKey(),
    title: text('title').notNull(),
    /** ISO 8601 UTC, fixed width (`2026-11-30T09:00:00.000Z`), so text order is time order. */
    startedAt: text('started_at').notNull(),
    endedAt: text('ended_at'),
    folderId: text('folder_id').references(() => folders.id, { onDelete: 'set null' }),
    seriesId: text('series_id').references(() => series.id, { onDelete: 'set null' }),
    /** The canonical note, Markdown. Replaced only by the user or an applied memo proposal. */
    note: text('note').notNull().default(''),
    /** JSON array of the names the transcript's speaker attributions refer to. */
    speakers: text('speakers', { mode: 'json' }).$type<string[]>(),
    /** Microphone and call context, free text. */
    speakerContext: text('speaker_context'),
    source: text('source', { enum: CONTENT_SOURCES }).notNull().default('user'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    /**
     * The meeting's filter tokens, kept by triggers (migration 0010): `f<hex id>` for its folder and each
     * ancestor, `s<hex id>` for its series, `p<participant_words.id>` for each word of its participants'
     * names and e-mails, `y2026 m202605 d20260517` for its UTC start (`dx`: not a date); computed by the view
     * meeting_search_tags. Indexed with each search passage (search_fts column `tags`), so filters are
     * matched inside the full-text index, and split into meeting_tags for list_meetings.
     */
    searchTags: text('search_tags').notNull().default(''),
  },
  (t) => [
    // list_meetings / resources/list: newest first, ties broken by id.
    index('meetings_started_idx').on(sql`${t.startedAt} desc`, sql`${t.id} desc`),
    // list_meetings with folder_path: per folder of the subtree, newest first.
    index('meetings_folder_started_idx').on(t.folderId, sql`${t.startedAt} desc`, sql`${t.id} desc`),
    // get_recurring_meeting_history and syntheo://series/{id}: one series, newest first.
    index('meetings_series_started_idx').on(t.seriesId, sql`${t.startedAt} desc`, sql`${t.id} desc`),
  ],
);

export const summaries = sqliteTable(
  'summaries',
  {
    id: text('id').primaryKey(),
    meetingId: text('meeting_id')
      .notNull()
      .references(() => meetings.id, { onDelete: 'cascade' }),
    title: text('title').notNull().default('Summary'),
    /** Markdown. */
    content: text('content').notNull(),
    /** Display order within the meeting. */
    position: integer('position').notNull().default(0),
    source: text('source', { enum: CONTENT_SOURCES }).notNull().default('user'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    // A meeting's summaries in display order.
    index('summaries_meeting_idx').on(t.meetingId, t.position),
  ],
);

export const participants = sqliteTable(
  'participants',
  {
    id: text('id').primaryKey(),
    meetingId: text('meeting_id')
      .notNull()
      .references(() => meetings.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    email: text('email'),
    role: text('role'),
    position: integer('position').notNull().default(0),
  },
  (t) => [
    // A meeting's participants in display order, with their names and e-mails: a list's probe of a meeting for a
    // participant fragment reads the index alone (migration 0022).
    index('participants_meeting_idx').on(t.meetingId, t.position, t.name, t.email),
    // The meetings of a matched name or e-mail (participant_handles), read from the index alone.
    index('participants_name_meeting_idx').on(t.name, t.meetingId),
    index('participants_email_meeting_idx').on(t.email, t.meetingId),
  ],
);

export const actionItems = sqliteTable(
  'action_items',
  {
    id: text('id').primaryKey(),
    meetingId: text('meeting_id')
      .notNull()
      .references(() => meetings.id, { onDelete: 'cascade' }),
    text: text('text').notNull(),
    assignee: text('assignee'),
    /** ISO date (`2026-12-04`) or null. */
    dueDate: text('due_date'),
    done: integer('done', { mode: 'boolean' }).notNull().default(false),
    position: integer('position').notNull().default(0),
    source: text('source', { enum: CONTENT_SOURCES }).notNull().default('user'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    // A meeting's action items in display order.
    index('action_items_meeting_idx').on(t.meetingId, t.position),
  ],
);

export type MeetingRow = typeof meetings.$inferSelect;
export type SummaryRow = typeof summaries.$inferSelect;
export type ParticipantRow = typeof participants.$inferSelect;
export type ActionItemRow = typeof actionItems.$inferSelect;
