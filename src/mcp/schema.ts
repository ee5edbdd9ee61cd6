// Valibot pieces shared by the tool definitions: parameters (types only: values are the domain's to
// judge) and the output shapes of src/db/queries/types.ts, which are the tools' structuredContent.
import * as v from 'valibot';
import { clampLimit, clampOffset, type PageRule } from '../db/queries/pagination.js';
import type { MeetingListItem, ProposalItem } from '../db/queries/types.js';
import type { ProposalFilter } from '../db/store.js';
import { PROCESSING_STATUSES, PROPOSAL_KINDS, PROPOSAL_STATUSES, SEARCH_KINDS, SUMMARY_STATUSES, TRANSCRIPT_TIMINGS } from '../db/schema/enums.js';

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

// ---- outputs ------------------------------------------------------------------------------------

const int = v.pipe(v.number(), v.metadata({ type: 'integer' }));
const str = v.string();
const nullableStr = v.nullable(v.string());
const nullableInt = v.nullable(int);
const iso = v.pipe(v.string(), v.description('ISO 8601 date-time, UTC'));
const nullableIso = v.nullable(iso);

export const PaginationSchema = v.pipe(
  v.object({
    offset: int,
    limit: int,
    returned: int,
    total: int,
    next_offset: v.optional(v.pipe(int, v.description('Offset of the next page; absent on the last page.'))),
  }),
  v.description('Absent next_offset means this page reaches the end.'),
);

const ProcessingStatusSchema = v.picklist(PROCESSING_STATUSES);
const SummaryStatusSchema = v.picklist(SUMMARY_STATUSES);

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

export const SeriesRefSchema = v.object({ id: str, title: str, cadence: nullableStr });

export const SummarySchema = v.object({ id: str, title: str, content: str, created_at: iso, updated_at: iso });
export const ParticipantSchema = v.object({ name: str, email: nullableStr, role: nullableStr });
export const ActionItemSchema = v.object({ id: str, text: str, assignee: nullableStr, due_date: nullableStr, done: v.boolean() });

export const RecordingImportSchema = v.object({
  job_id: str,
  meeting_id: str,
  processing_status: ProcessingStatusSchema,
  summary_status: SummaryStatusSchema,
  error: nullableStr,
  file_path: str,
  file_format: str,
  title: str,
  request_key: nullableStr,
  audio_duration_ms: nullableInt,
  progress: v.nullable(v.object({ chunks_done: int, chunks_total: int })),
  created_at: iso,
  updated_at: iso,
  started_at: nullableIso,
  finished_at: nullableIso,
});

const speakerFields = {
  speakers: v.optional(v.pipe(v.array(str), v.description("Names referenced by the transcript's speaker attributions."))),
  speaker_context: v.optional(v.pipe(str, v.description('Microphone and call context.'))),
};

/** One field, or family of fields (`action_items[].text`), shown in part: its first characters or first items. */
const FieldCutSchema = v.object({ field: str, unit: v.picklist(['characters', 'items']), shown: int, total: int });

/** Present when the answer was cut to fit (~25,000 tokens): what was cut and how to read the rest. */
const TruncationSchema = v.pipe(
  v.object({ reason: str, fields: v.array(FieldCutSchema), read_rest: str }),
  v.description('Present when texts were cut to fit one answer: which, and how to read the rest.'),
);

/** How word times were obtained; optional so exports made before the flag still load. */
const TimingSchema = v.optional(v.pipe(v.picklist(TRANSCRIPT_TIMINGS), v.description("'estimated': word times spread over each cue, not measured; 'mixed': partly.")));

export const MeetingDetailSchema = v.object({
  id: str,
  title: str,
  started_at: iso,
  ended_at: nullableIso,
  folder_path: nullableStr,
  series: v.nullable(SeriesRefSchema),
  note: v.pipe(str, v.description('The canonical note, Markdown.')),
  summaries: v.array(SummarySchema),
  participants: v.array(ParticipantSchema),
  action_items: v.array(ActionItemSchema),
  transcript: v.pipe(v.nullable(v.object({ id: str, language: nullableStr, word_count: int, timing: TimingSchema })), v.description('Size only; read the words with get_meeting_transcript.')),
  ...speakerFields,
  pending_proposal_count: int,
  processing_status: v.nullable(ProcessingStatusSchema),
  recording_import: v.nullable(RecordingImportSchema),
  created_at: iso,
  updated_at: iso,
  truncated: v.optional(TruncationSchema),
});

export const TranscriptWordSchema = v.object({ index: int, text: str, start_ms: nullableInt, end_ms: nullableInt, speaker: nullableStr });

export const TranscriptTurnSchema = v.tuple([int, nullableInt]);

export const TranscriptPageSchema = v.object({
  meeting_id: str,
  text: v.pipe(str, v.description('One line per speaker turn: "[mm:ss] Speaker: words" ([hh:mm:ss] after an hour).')),
  words: v.pipe(
    v.union([v.array(TranscriptTurnSchema), v.array(TranscriptWordSchema)]),
    v.description('By default one [offset, start_ms] per line of text; with word_timings, one {index, text, start_ms, end_ms, speaker} per word.'),
  ),
  pagination: PaginationSchema,
  timing: TimingSchema,
});

export const FolderSchema = v.object({ id: str, path: str, name: str, parent_path: nullableStr, meeting_count: int });

export const ExportSchema = v.object({
  format: v.literal('syntheo.meeting/v1'),
  id: str,
  title: str,
  started_at: iso,
  ended_at: nullableIso,
  folder_path: nullableStr,
  series: v.nullable(SeriesRefSchema),
  note: str,
  summaries: v.array(SummarySchema),
  participants: v.array(ParticipantSchema),
  action_items: v.array(ActionItemSchema),
  ...speakerFields,
  transcripts: v.array(
    v.object({
      id: str,
      language: nullableStr,
      source: str,
      word_count: int,
      timing: TimingSchema,
      segments: v.array(
        v.object({
          speaker: nullableStr,
          start_ms: nullableInt,
          end_ms: nullableInt,
          text: str,
          times: v.pipe(v.array(v.tuple([nullableInt, nullableInt])), v.description('[start_ms, end_ms] of each word of text.')),
        }),
      ),
    }),
  ),
  created_at: iso,
  updated_at: iso,
  truncated: v.optional(
    v.pipe(
      v.object({
        reason: str,
        transcript_words_included: int,
        next_offset: int,
        read_rest: str,
        fields: v.optional(v.pipe(v.array(FieldCutSchema), v.description('Texts or lists shown in part (note, summaries, action items).'))),
      }),
      v.description('Present when the record was cut to fit one answer: how to read the rest of the transcript.'),
    ),
  ),
});

const proposalItemEntries = {
  id: str,
  meeting_id: str,
  meeting_title: str,
  kind: v.picklist(PROPOSAL_KINDS),
  target_id: v.pipe(nullableStr, v.description('Summary ID for a summary edit; null for a note edit or a new summary.')),
  status: v.picklist(PROPOSAL_STATUSES),
  stale: v.pipe(v.boolean(), v.description('True when the target changed since the proposal was made.')),
  proposed_by: nullableStr,
  created_at: iso,
  decided_at: nullableIso,
};

export const ProposalItemSchema = v.object(proposalItemEntries);

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

export const ProposalDetailSchema = v.object({
  ...proposalItemEntries,
  content: str,
  base_content: nullableStr,
  diff: v.pipe(str, v.description('Unified diff, current content -> proposed content.')),
  truncated: v.optional(TruncationSchema),
});

export const SearchHitSchema = v.object({
  meeting_id: str,
  title: str,
  started_at: iso,
  kind: v.pipe(v.picklist(SEARCH_KINDS), v.description('Where the passage comes from: transcript, summary or note.')),
  summary_id: v.pipe(nullableStr, v.description('The summary ID for a summary hit, else null.')),
  speaker: nullableStr,
  offset: v.pipe(nullableInt, v.description('For a transcript hit: the offset of the first matched word, for get_meeting_transcript. Null otherwise.')),
  start_ms: v.pipe(nullableInt, v.description('For a transcript hit: when that word was said, ms from the start. Null otherwise.')),
  snippet: v.pipe(str, v.description('The matching passage, matched words in **bold**, cut with …')),
});
