import { pgTable, text, integer, boolean, jsonb, index, smallint, bigint } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { folders } from './folders.js';
import { series } from './series.js';
import { CONTENT_SOURCES } from '../schema/enums.js';

export const meetings = pgTable(
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
    /** The names the transcript's speaker attributions refer to. */
    speakers: jsonb('speakers').$type<string[]>(),
    /** Microphone and call context, free text. */
    speakerContext: text('speaker_context'),
    source: text('source', { enum: CONTENT_SOURCES }).notNull().default('user'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    // list_meetings / resources/list: newest first, ties broken by id. COLLATE "C": byte order, as SQLite sorts text.
    index('meetings_started_idx').on(sql`${t.startedAt} COLLATE "C" desc`, sql`${t.id} COLLATE "C" desc`),
    // list_meetings with folder_path: per folder of the subtree, newest first.
    index('meetings_folder_started_idx').on(t.folderId, sql`${t.startedAt} COLLATE "C" desc`, sql`${t.id} COLLATE "C" desc`),
    // get_recurring_meeting_history and syntheo://series/{id}: one series, newest first.
    index('meetings_series_started_idx').on(t.seriesId, sql`${t.startedAt} COLLATE "C" desc`, sql`${t.id} COLLATE "C" desc`),
    // list_meetings `query`: a case-insensitive fragment of the title or the id (ILIKE through pg_trgm). The id's as
    // lower(id) LIKE lower(fragment), what ILIKE is in a UTF-8 database: an index on the id itself serves `=` too (pg_trgm
    // 1.6), and a join on meetings.id took it for the primary key, costed as cheap (migration 0026).
    index('meetings_title_trgm_idx').using('gin', t.title.op('gin_trgm_ops')),
    index('meetings_id_lower_trgm_idx').using('gin', sql`lower(${t.id}) gin_trgm_ops`),
  ],
);

/**
 * How many meetings there are, kept by a statement trigger on meetings (migration 0003): list_meetings'
 * unfiltered total is one read of a few rows instead of a count. Writers add to the slot of their
 * backend (pid % 8), so concurrent inserts rarely wait on one another's row lock; the total is the sum.
 */
export const meetingTally = pgTable('meeting_tally', {
  slot: smallint('slot').primaryKey(),
  meetings: bigint('meetings', { mode: 'number' }).notNull().default(0),
});

export const summaries = pgTable(
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

export const participants = pgTable(
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
    // A meeting's participants in display order.
    index('participants_meeting_idx').on(t.meetingId, t.position),
    // list_meetings `participant`: the participants carrying a matched handle (participant_handles), index-only.
    index('participants_name_meeting_idx').on(t.name, t.meetingId),
    index('participants_email_meeting_idx').on(t.email, t.meetingId),
    // The participants whose e-mail holds no `@` (migration 0025; usually none): the meetings a participant fragment
    // fails read the others by their e-mail among the e-mails lacking it, which hold one (handlesOf).
    index('participants_odd_email_idx')
      .on(t.meetingId)
      .where(sql`strpos(${t.email}, '@') = 0`),
  ],
);

/**
 * Every participant name and e-mail, about once (migration 0005's trigger adds those not yet visible as
 * participants are written; no unique key, so that no writer waits for another's; no writer removes one: a
 * handle nobody carries any more matches no meeting, and `doctor --repair-search` drops those under a lock,
 * postgres/participant-handles.ts). list_meetings `participant` matches its fragment against these few
 * thousand handles, not against every participant row.
 */
export const participantHandles = pgTable(
  'participant_handles',
  {
    handle: text('handle').notNull(),
    /**
     * The handle lower-cased (migration 0018): a fragment of 1-2 characters, which no trigram holds, is matched by LIKE
     * on it with the fragment lower-cased, as ILIKE compares them, without a lower() of every handle at each call
     * (ILIKE over the 4,000 of 100k meetings: 2.3 ms; LIKE: ~0.4).
     */
    folded: text('folded').generatedAlwaysAs(sql`lower(handle)`),
  },
  (t) => [
    // The trigger's "already there?" lookup.
    index('participant_handles_handle_idx').on(t.handle),
    // The fragment, case-insensitively (pg_trgm); 1-2 characters scan the handles.
    index('participant_handles_trgm_idx').using('gin', t.handle.op('gin_trgm_ops')),
  ],
);

export const actionItems = pgTable(
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
    done: boolean('done').notNull().default(false),
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
