// The shapes the domain returns, declared once as Valibot schemas: the MCP tools return them as
// structuredContent (their descriptions are what a model reads: change them only on purpose, the
// tools/list tests hold them), the CLI prints them with --json, export/load use them, and their
// TypeScript types are inferred from these schemas (re-exported by src/db/queries/types.ts).
// A leaf: valibot and the status vocabularies only, no SQL, loaded lazily by the CLI paths that check input.
import * as v from 'valibot';
import { EXPORT_FORMAT, PROCESSING_STATUSES, PROPOSAL_KINDS, PROPOSAL_STATUSES, SEARCH_KINDS, SUMMARY_STATUSES, TRANSCRIPT_TIMINGS, type TranscriptTiming } from '../schema/enums.js';

const int = v.pipe(v.number(), v.metadata({ type: 'integer' }));
const str = v.string();
const nullableStr = v.nullable(v.string());
const nullableInt = v.nullable(int);
const iso = v.pipe(v.string(), v.description('ISO 8601 date-time, UTC'));
const nullableIso = v.nullable(iso);

/** The primitives above, for the MCP layer's own projections (list rows), so they read the same on the wire. */
export const wire = { int, str, nullableStr, nullableInt, iso, nullableIso } as const;

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
export type Pagination = v.InferOutput<typeof PaginationSchema>;

export const ProcessingStatusSchema = v.picklist(PROCESSING_STATUSES);
const SummaryStatusSchema = v.picklist(SUMMARY_STATUSES);

/**
 * A meeting in a list, as the Store returns it and `syntheo --json meetings list` prints it (the MCP
 * tools show a smaller projection of it: MeetingRowSchema in src/mcp/schema.ts). Not on the MCP wire,
 * so no descriptions.
 */
export const MeetingListItemSchema = v.object({
  id: str,
  title: str,
  started_at: str,
  ended_at: nullableStr,
  folder_path: nullableStr,
  series_id: nullableStr,
  /** Words in the transcript; 0 when there is none (yet). */
  transcript_word_count: int,
  summary_count: int,
  /** State of the recording import for an imported meeting, else null. */
  processing_status: v.nullable(ProcessingStatusSchema),
});
export type MeetingListItem = v.InferOutput<typeof MeetingListItemSchema>;

export const SeriesRefSchema = v.object({ id: str, title: str, cadence: nullableStr });
export type SeriesRef = v.InferOutput<typeof SeriesRefSchema>;

export const SummarySchema = v.object({ id: str, title: str, content: str, created_at: iso, updated_at: iso });
export type Summary = v.InferOutput<typeof SummarySchema>;
export const ParticipantSchema = v.object({ name: str, email: nullableStr, role: nullableStr });
export type Participant = v.InferOutput<typeof ParticipantSchema>;
export const ActionItemSchema = v.object({ id: str, text: str, assignee: nullableStr, due_date: nullableStr, done: v.boolean() });
export type ActionItem = v.InferOutput<typeof ActionItemSchema>;

/** Chunked transcription of a long recording: chunks stored so far. */
export const ImportProgressSchema = v.object({ chunks_done: int, chunks_total: int });
export type ImportProgress = v.InferOutput<typeof ImportProgressSchema>;

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
  /** Null when the recording is not chunked. */
  progress: v.nullable(ImportProgressSchema),
  created_at: iso,
  updated_at: iso,
  started_at: nullableIso,
  finished_at: nullableIso,
});
export type RecordingImport = v.InferOutput<typeof RecordingImportSchema>;

// The fields a meeting's record shares in get_meeting and in the export, in their order on the wire.
const recordHead = {
  id: str,
  title: str,
  started_at: iso,
  ended_at: nullableIso,
  folder_path: nullableStr,
  series: v.nullable(SeriesRefSchema),
};
const recordLists = {
  summaries: v.array(SummarySchema),
  participants: v.array(ParticipantSchema),
  action_items: v.array(ActionItemSchema),
};
const recordStamps = { created_at: iso, updated_at: iso };

const speakerFields = {
  speakers: v.optional(v.pipe(v.array(str), v.description("Names referenced by the transcript's speaker attributions."))),
  speaker_context: v.optional(v.pipe(str, v.description('Microphone and call context.'))),
};

/** One field, or family of fields (`action_items[].text`), shown in part: its first characters or first items. */
export const FieldCutSchema = v.object({ field: str, unit: v.picklist(['characters', 'items']), shown: int, total: int });
export type FieldCut = v.InferOutput<typeof FieldCutSchema>;

/** Present when the answer was cut to fit (~25,000 tokens): what was cut and how to read the rest. */
export const TruncationSchema = v.pipe(
  v.object({ reason: str, fields: v.array(FieldCutSchema), read_rest: str }),
  v.description('Present when texts were cut to fit one answer: which, and how to read the rest.'),
);
export type Truncation = v.InferOutput<typeof TruncationSchema>;

/** How word times were obtained; optional so exports made before the flag still load. */
const TimingSchema = v.optional(v.pipe(v.picklist(TRANSCRIPT_TIMINGS), v.description("'estimated': word times spread over each cue, not measured; 'mixed': partly.")));

/** A transcript's size in get_meeting ('estimated' or 'mixed' timing: word times spread over a cue, not measured). */
export const TranscriptInfoSchema = v.object({ id: str, language: nullableStr, word_count: int, timing: TimingSchema });
export type TranscriptInfo = v.InferOutput<typeof TranscriptInfoSchema>;

export const MeetingDetailSchema = v.object({
  ...recordHead,
  note: v.pipe(str, v.description('The canonical note, Markdown.')),
  ...recordLists,
  transcript: v.pipe(v.nullable(TranscriptInfoSchema), v.description('Size only; read the words with get_meeting_transcript.')),
  ...speakerFields,
  pending_proposal_count: int,
  processing_status: v.nullable(ProcessingStatusSchema),
  recording_import: v.nullable(RecordingImportSchema),
  ...recordStamps,
  truncated: v.optional(TruncationSchema),
});

export const TranscriptWordSchema = v.object({ index: int, text: str, start_ms: nullableInt, end_ms: nullableInt, speaker: nullableStr });
export type TranscriptWord = v.InferOutput<typeof TranscriptWordSchema>;

export const TranscriptTurnSchema = v.tuple([int, nullableInt]);
/** One speaker turn of a transcript page: [offset of its first word, its start_ms]. A pair, not an object: keys would cost a model 40% more per turn. */
export type TranscriptTurn = [offset: number, start_ms: number | null];

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

/**
 * A page of a transcript: one entry per word, or (the MCP tool's default) one turn per line of `text`.
 * `timing` is present only when the times are not (all) measured: the query never writes 'measured'
 * (the schema's picklist, shared with the export, admits it).
 */
export type TranscriptPage<W extends TranscriptTurn | TranscriptWord = TranscriptWord> = Omit<v.InferOutput<typeof TranscriptPageSchema>, 'words' | 'timing'> & {
  words: W[];
  timing?: Exclude<TranscriptTiming, 'measured'>;
};

export const FolderSchema = v.object({ id: str, path: str, name: str, parent_path: nullableStr, meeting_count: int });
export type Folder = v.InferOutput<typeof FolderSchema>;

/** A run of one speaker's words (at most 100): `text` holds them separated by single spaces, `times` each word's [start_ms, end_ms]. */
export const ExportSegmentSchema = v.object({
  speaker: nullableStr,
  start_ms: nullableInt,
  end_ms: nullableInt,
  text: str,
  times: v.pipe(v.array(v.tuple([nullableInt, nullableInt])), v.description('[start_ms, end_ms] of each word of text.')),
});
export type ExportSegment = v.InferOutput<typeof ExportSegmentSchema>;

/** A transcript in an export, as speaker turns: compact and readable; load() rebuilds the exact word rows from it. */
export const ExportTranscriptSchema = v.object({
  id: str,
  language: nullableStr,
  source: str,
  word_count: int,
  /** Absent in exports made before the flag existed (loaded as 'measured'). */
  timing: TimingSchema,
  segments: v.array(ExportSegmentSchema),
});
export type ExportTranscript = v.InferOutput<typeof ExportTranscriptSchema>;

/** Only in export_meeting's answer when the record was cut to fit it (never in `syntheo meetings export`). */
export const ExportTruncationSchema = v.pipe(
  v.object({
    reason: str,
    transcript_words_included: int,
    next_offset: int,
    /** The calls that read the rest: the transcript tool's offsets and the resource URI. */
    read_rest: str,
    fields: v.optional(v.pipe(v.array(FieldCutSchema), v.description('Texts or lists shown in part (note, summaries, action items).'))),
  }),
  v.description('Present when the record was cut to fit one answer: how to read the rest of the transcript.'),
);
export type ExportTruncation = v.InferOutput<typeof ExportTruncationSchema>;

/** A meeting's whole record: what `syntheo meetings export` writes, export_meeting returns and load() reads. */
export const ExportSchema = v.object({
  format: v.literal(EXPORT_FORMAT),
  ...recordHead,
  note: str,
  ...recordLists,
  ...speakerFields,
  transcripts: v.array(ExportTranscriptSchema),
  ...recordStamps,
  truncated: v.optional(ExportTruncationSchema),
});
export type MeetingExport = v.InferOutput<typeof ExportSchema>;

/** What get_meeting and export_meeting share: the meeting's own fields and its children. */
export type MeetingRecord = Omit<MeetingExport, 'format' | 'transcripts' | 'truncated'>;

/**
 * A meeting as the Store reads it. `truncated` is left out: only an MCP answer cut to fit one
 * (render/fit.ts) carries it, and the tool's output schema says so.
 */
export type MeetingDetail = Omit<v.InferOutput<typeof MeetingDetailSchema>, 'truncated'>;

export const proposalItemEntries = {
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
export type ProposalItem = v.InferOutput<typeof ProposalItemSchema>;

export const ProposalDetailSchema = v.object({
  ...proposalItemEntries,
  content: str,
  base_content: nullableStr,
  diff: v.pipe(str, v.description('Unified diff, current content -> proposed content.')),
  truncated: v.optional(TruncationSchema),
});
/** A proposal as the Store reads it (`truncated`: only in an MCP answer cut to fit, see MeetingDetail). */
export type ProposalDetail = Omit<v.InferOutput<typeof ProposalDetailSchema>, 'truncated'>;

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
export type SearchHit = v.InferOutput<typeof SearchHitSchema>;
