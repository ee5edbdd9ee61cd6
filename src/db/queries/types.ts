// The shapes the domain returns. The MCP tools return them as structuredContent, the CLI prints them
// with --json, and export/load use them: one vocabulary, snake_case as on the wire.
import type { ProcessingStatus, ProposalKind, ProposalStatus, SummaryStatus, TranscriptTiming } from '../schema/enums.js';

export interface Pagination {
  offset: number;
  limit: number;
  returned: number;
  total: number;
  /** Absent on the last page. */
  next_offset?: number;
}

export interface Page {
  limit: number;
  offset: number;
}

export interface MeetingListItem {
  id: string;
  title: string;
  started_at: string;
  ended_at: string | null;
  folder_path: string | null;
  series_id: string | null;
  /** Words in the transcript; 0 when there is none (yet). */
  transcript_word_count: number;
  summary_count: number;
  /** State of the recording import for an imported meeting, else null. */
  processing_status: ProcessingStatus | null;
}

export interface Summary {
  id: string;
  title: string;
  content: string;
  created_at: string;
  updated_at: string;
}

export interface Participant {
  name: string;
  email: string | null;
  role: string | null;
}

export interface ActionItem {
  id: string;
  text: string;
  assignee: string | null;
  due_date: string | null;
  done: boolean;
}

export interface SeriesRef {
  id: string;
  title: string;
  cadence: string | null;
}

export interface ImportProgress {
  chunks_done: number;
  chunks_total: number;
}

export interface RecordingImport {
  job_id: string;
  meeting_id: string;
  processing_status: ProcessingStatus;
  summary_status: SummaryStatus;
  error: string | null;
  file_path: string;
  file_format: string;
  title: string;
  request_key: string | null;
  audio_duration_ms: number | null;
  /** Chunked transcription of a long recording: chunks stored so far; null when not chunked. */
  progress: ImportProgress | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface TranscriptInfo {
  id: string;
  language: string | null;
  word_count: number;
  /** 'estimated' or 'mixed': word times spread over a cue, not measured. */
  timing: TranscriptTiming;
}

/** What get_meeting and export_meeting share: the meeting's own fields and its children. */
export interface MeetingRecord {
  id: string;
  title: string;
  started_at: string;
  ended_at: string | null;
  folder_path: string | null;
  series: SeriesRef | null;
  /** The canonical note, Markdown. */
  note: string;
  summaries: Summary[];
  participants: Participant[];
  action_items: ActionItem[];
  /** Names the transcript's speaker attributions refer to, when known. */
  speakers?: string[];
  /** Microphone and call context, when known. */
  speaker_context?: string;
  created_at: string;
  updated_at: string;
}

export interface MeetingDetail extends MeetingRecord {
  /** The transcript's size; its words come from get_meeting_transcript. Null when there is none. */
  transcript: TranscriptInfo | null;
  pending_proposal_count: number;
  processing_status: ProcessingStatus | null;
  recording_import: RecordingImport | null;
}

export interface TranscriptWord {
  index: number;
  text: string;
  start_ms: number | null;
  end_ms: number | null;
  speaker: string | null;
}

/** One speaker turn of a transcript page: [offset of its first word, its start_ms]. A pair, not an object: keys would cost a model 40% more per turn. */
export type TranscriptTurn = [offset: number, start_ms: number | null];

export interface TranscriptPage<W extends TranscriptTurn | TranscriptWord = TranscriptWord> {
  meeting_id: string;
  /** One line per speaker turn, `[12:31] Speaker: words joined by single spaces` (`[01:12:31]` after an hour). */
  text: string;
  /** One entry per word, or (for the MCP tool's default) one per line of `text`: the turn index. */
  words: W[];
  pagination: Pagination;
  /** Present only when the word times are not (all) measured. */
  timing?: Exclude<TranscriptTiming, 'measured'>;
}

export interface Folder {
  id: string;
  path: string;
  name: string;
  parent_path: string | null;
  meeting_count: number;
}

/**
 * A transcript in an export: speaker turns (at most 100 words each) whose `text` holds the words
 * separated by single spaces and whose `times` holds each word's [start_ms, end_ms].
 * Compact and readable; load() rebuilds the exact word rows from it.
 */
export interface ExportTranscript {
  id: string;
  language: string | null;
  source: string;
  word_count: number;
  /** Absent in exports made before the flag existed (loaded as 'measured'). */
  timing?: TranscriptTiming;
  segments: ExportSegment[];
}

export interface ExportSegment {
  speaker: string | null;
  start_ms: number | null;
  end_ms: number | null;
  text: string;
  times: [number | null, number | null][];
}

export const EXPORT_FORMAT = 'syntheo.meeting/v1' as const;

export interface MeetingExport extends MeetingRecord {
  format: typeof EXPORT_FORMAT;
  transcripts: ExportTranscript[];
  /** Only in export_meeting's answer when the record was cut to fit it (never in `syntheo meetings export`). */
  truncated?: ExportTruncation;
}

export interface ExportTruncation {
  reason: string;
  transcript_words_included: number;
  next_offset: number;
  /** The calls that read the rest: the transcript tool's offsets and the resource URI. */
  read_rest: string;
}

export interface ProposalItem {
  id: string;
  meeting_id: string;
  meeting_title: string;
  kind: ProposalKind;
  /** Summary id for a summary edit of an existing summary; null for a memo edit or a new summary. */
  target_id: string | null;
  status: ProposalStatus;
  /** True when the target changed since the proposal was made (applying it needs --force). */
  stale: boolean;
  proposed_by: string | null;
  created_at: string;
  decided_at: string | null;
}

export interface ProposalDetail extends ProposalItem {
  content: string;
  base_content: string | null;
  /** Unified diff, base -> proposed. */
  diff: string;
}
