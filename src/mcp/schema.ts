// Valibot pieces shared by the tool definitions: parameters (types only: values are the domain's to
// judge) and the tools' own projections of the domain shapes. The domain shapes themselves (the tools'
// structuredContent) are declared once in src/db/model/shapes.ts and re-exported here.
import * as v from 'valibot';
import { clampLimit, clampOffset, type PageRule } from '../db/queries/pagination.js';
import type { MeetingListItem, ProposalItem } from '../db/queries/types.js';
import type { ProposalFilter } from '../db/store.js';
import { PROPOSAL_STATUSES } from '../db/schema/enums.js';
import { ProcessingStatusSchema, proposalItemEntries, wire } from '../db/model/shapes.js';

export {
  ActionItemSchema,
  ExportSchema,
  FolderSchema,
  MeetingDetailSchema,
  PaginationSchema,
  ParticipantSchema,
  ProposalDetailSchema,
  ProposalItemSchema,
  RecordingImportSchema,
  SearchHitSchema,
  SeriesRefSchema,
  SummarySchema,
  TranscriptPageSchema,
  TranscriptTurnSchema,
  TranscriptWordSchema,
} from '../db/model/shapes.js';

// ---- parameters ---------------------------------------------------------------------------------

/**
 * A page size: any number is accepted and clamped into [1, max] (never rejected), so the JSON Schema
 * advertises an integer with a default but no bounds. The clamp runs after the advertised part.
 */
export function limitParam(rule: PageRule, description = `Clamped to 1-${rule.maxLimit}.`) {
  return v.optional(v.pipe(v.number(), v.metadata({ type: 'integer' }), v.description(description), v.transform((n) => clampLimit(rule, n))), rule.defaultLimit);
}

export function offsetParam(description = 'pagination.next_offset of the previous page.') {
  return v.optional(v.pipe(v.number(), v.metadata({ type: 'integer' }), v.description(description), v.transform((n: number) => clampOffset(n))), 0);
}

/** list_proposals' status filter (the same list as PROPOSAL_STATUS_FILTERS in queries/proposals, which loads with the Store). */
export const PROPOSAL_STATUS_FILTERS = [...PROPOSAL_STATUSES, 'all'] as const satisfies readonly ProposalFilter['status'][];

export const requiredString = (description: string) => v.pipe(v.string(), v.description(description));
export const optionalString = (description: string) => v.optional(v.pipe(v.string(), v.description(description)));

export const meetingIdParam = requiredString('mtg_... from list_meetings or search_transcripts.');
export const proposalIdParam = requiredString('prp_... from list_proposals or a propose_ tool.');

// ---- outputs: the tools' projections ------------------------------------------------------------

const { int, str, nullableStr, iso } = wire;

/**
 * A meeting in a list as a model reads it: what it needs to choose the next call (the ID, what and
 * when, where, whether there is a transcript). 200 full rows cost ~20,000 tokens; these ~11,000.
 * The rest is one get_meeting away.
 */
export const MeetingRowSchema = v.object({
  id: str,
  title: str,
  started_at: iso,
  folder_path: v.pipe(nullableStr, v.description('Null outside any folder.')),
  words: v.optional(v.pipe(int, v.description('Transcript words; absent when there is no transcript.'))),
  processing_status: v.optional(ProcessingStatusSchema),
});

export type MeetingRow = v.InferOutput<typeof MeetingRowSchema>;

export function meetingRow(m: MeetingListItem): MeetingRow {
  const row: MeetingRow = { id: m.id, title: m.title, started_at: m.started_at, folder_path: m.folder_path };
  if (m.transcript_word_count > 0) row.words = m.transcript_word_count;
  if (m.processing_status !== null) row.processing_status = m.processing_status;
  return row;
}

/** A proposal in a list: what a model needs to pick one for get_proposal (who proposed it and when it was decided are there). */
export const ProposalRowSchema = v.object({
  id: str,
  meeting_id: str,
  meeting_title: str,
  kind: proposalItemEntries.kind,
  status: proposalItemEntries.status,
  created_at: iso,
  target_id: v.optional(v.pipe(str, v.description('The summary a summary edit replaces; absent for a note edit or a new summary.'))),
  stale: v.optional(v.pipe(v.literal(true), v.description('Present when the target changed since the proposal was made.'))),
});

export type ProposalRow = v.InferOutput<typeof ProposalRowSchema>;

export function proposalRow(p: ProposalItem): ProposalRow {
  const row: ProposalRow = { id: p.id, meeting_id: p.meeting_id, meeting_title: p.meeting_title, kind: p.kind, status: p.status, created_at: p.created_at };
  if (p.target_id !== null) row.target_id = p.target_id;
  if (p.stale) row.stale = true;
  return row;
}
