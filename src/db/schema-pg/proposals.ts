import { pgTable, text, index } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { meetings } from './meetings.js';
import { PROPOSAL_KINDS, PROPOSAL_STATUSES } from '../schema/enums.js';

/** An edit staged by an assistant; only the user applies it. */
export const proposals = pgTable(
  'proposals',
  {
    id: text('id').primaryKey(),
    meetingId: text('meeting_id')
      .notNull()
      .references(() => meetings.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: PROPOSAL_KINDS }).notNull(),
    /** Summary id for a summary edit; null for a memo edit or a new summary. No FK: the target may be deleted later. */
    targetId: text('target_id'),
    content: text('content').notNull(),
    /** Target content when the proposal was made; null when it stages a new summary. */
    baseContent: text('base_content'),
    status: text('status', { enum: PROPOSAL_STATUSES }).notNull().default('pending'),
    /** MCP client name/version that staged it, when known. */
    proposedBy: text('proposed_by'),
    createdAt: text('created_at').notNull(),
    decidedAt: text('decided_at'),
  },
  (t) => [
    // list_proposals for one meeting and status, newest first.
    index('proposals_meeting_status_idx').on(t.meetingId, t.status, sql`${t.createdAt} COLLATE "C" desc`),
    // list_proposals across meetings by status, newest first.
    index('proposals_status_idx').on(t.status, sql`${t.createdAt} COLLATE "C" desc`),
    // list_proposals with status `all`, newest first.
    index('proposals_created_idx').on(sql`${t.createdAt} COLLATE "C" desc`, sql`${t.id} COLLATE "C" desc`),
  ],
);

export type ProposalRow = typeof proposals.$inferSelect;
