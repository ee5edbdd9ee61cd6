/**
 * The one door to Syntheo's data. Tools, CLI commands, the worker, the demo and the app receive a Store
 * (never a database handle) and hold no SQL. Every method is async so a second engine (PostgreSQL,
 * network round trips) fits behind the same interface; the SQLite implementation (src/db/sqlite/) runs
 * better-sqlite3 synchronously underneath, so awaiting it costs one microtask.
 *
 * Errors: methods throw SyntheoError subclasses (src/errors.ts) carrying a structured `detail`
 * (kind, the IDs involved); the engine's own failures (busy, read-only, disk full, unreachable) arrive
 * already mapped to StorageError by the implementation. Nothing above the Store sees an engine error code.
 *
 * This file holds types only: importing it loads nothing.
 */
import type { SchemaState } from './open.js';
import type { CheckpointResult } from './checkpoint.js';
import type { FtsMergeStep } from './queries/fts-upkeep.js';
import type { BitsRound } from './queries/search-bits.js';
import type { MeetingBitsRound } from './queries/meeting-bits.js';
import type { ProcessingStatus } from './schema/enums.js';
import type { MeetingFilter } from './queries/meetings.js';
import type { FolderFilter, FolderRef } from './queries/folders.js';
import type { SearchFilter, SearchHit } from './queries/search.js';
import type { MemoEditRequest, ProposalFilter, SummaryEditRequest } from './queries/proposals.js';
import type { DuplicateOf, ImportRequest } from './queries/imports.js';
import type { ImportStatusFilter } from './queries/imports-list.js';
import type { AudioFacts, ClaimedJob, JobLease, JobOutcome, TranscriptBatch, WorkerRegistration } from './queries/jobs.js';
import type { ShutdownCause } from './queries/interruptions.js';
import type { WorkerStatus } from './queries/workers.js';
import type { IntegrityReport, RepairProgress, RepairResult, RepairStep } from './queries/integrity.js';
import type { LoadOptions, LoadResult, WordTuple } from './queries/export.js';
import type {
  Folder,
  MeetingDetail,
  MeetingExport,
  MeetingListItem,
  Page,
  Pagination,
  ProposalDetail,
  ProposalItem,
  RecordingImport,
  SeriesRef,
  TranscriptPage,
  TranscriptTurn,
  TranscriptWord,
} from './queries/types.js';

export type { SchemaState, CheckpointResult, FtsMergeStep, MeetingFilter, FolderFilter, SearchFilter, SearchHit, MemoEditRequest, ProposalFilter, SummaryEditRequest };
export type { DuplicateOf, ImportRequest, ImportStatusFilter, AudioFacts, ClaimedJob, JobLease, JobOutcome, TranscriptBatch, WorkerRegistration };
export type { ShutdownCause, WorkerStatus, IntegrityReport, RepairProgress, RepairResult, RepairStep, LoadOptions, LoadResult, WordTuple };
// The domain's shapes, so that callers (the app) need no import from src/db/queries.
export type { Folder, MeetingDetail, MeetingListItem, Page, Pagination, ProposalDetail, ProposalItem, RecordingImport, SeriesRef, TranscriptPage, TranscriptTurn, TranscriptWord };

export type Engine = 'sqlite' | 'postgres';

export interface MeetingStore {
  /** Newest first; filters combine; `pagination.total` is exact. */
  list(filter: MeetingFilter, page: Page): Promise<{ meetings: MeetingListItem[]; pagination: Pagination }>;
  /** The meeting with its note, summaries, participants, action items and import. NotFoundError when missing. */
  get(id: string): Promise<MeetingDetail>;
  /** The whole meeting as the portable export record (syntheo.meeting/v1). NotFoundError when missing. */
  export(id: string): Promise<MeetingExport>;
  /** The title of a meeting, or null when there is none with this ID. */
  title(id: string): Promise<string | null>;
  /** Current text of what a proposal targets: the meeting's note (memo) or a summary's content; null when gone. */
  currentContent(target: { kind: 'memo' | 'summary'; meetingId: string; targetId: string | null }): Promise<string | null>;
  /** Counts for status screens. */
  counts(): Promise<{ meetings: number; folders: number; pending_proposals: number; active_imports: number }>;
}

export interface FolderStore {
  list(filter: FolderFilter, page: Page): Promise<{ folders: Folder[]; pagination: Pagination }>;
  /** NotFoundError when no folder has this path. */
  get(path: string): Promise<FolderRef>;
  /** Which of these (normalised) paths exist. */
  existing(paths: readonly string[]): Promise<Set<string>>;
  /** Creates the folder and its missing parents; returns the folder. Not an error when it exists. */
  ensure(path: string): Promise<FolderRef>;
  /** Every folder path, sorted. */
  paths(): Promise<string[]>;
}

export interface SeriesStore {
  /** NotFoundError when missing. */
  get(id: string): Promise<SeriesRef>;
  /** A meeting's series and the series' meetings, newest first. NotFoundError when the meeting is missing. */
  history(meetingId: string, page: Page): Promise<{ meeting_id: string; series: SeriesRef | null; meetings: MeetingListItem[]; pagination: Pagination }>;
  meetings(seriesId: string, page: Page): Promise<{ meetings: MeetingListItem[]; total: number }>;
}

export interface TranscriptStore {
  /** A page of a meeting's transcript: turns by default, per-word objects with `wordTimings: true`. */
  page(meetingId: string, page: Page, options?: { wordTimings: true }): Promise<TranscriptPage>;
  page(meetingId: string, page: Page, options: { wordTimings: boolean }): Promise<TranscriptPage | TranscriptPage<TranscriptTurn>>;
  /** Every word of a meeting's transcript in order, or null when the meeting has no transcript. */
  allWords(meetingId: string): Promise<WordTuple[] | null>;
  /** Number of words of a meeting's transcript (0 when none). */
  wordCount(meetingId: string): Promise<number>;
}

export interface SearchStore {
  transcripts(filter: SearchFilter, page: Page): Promise<{ hits: SearchHit[]; pagination: Pagination }>;
}

export interface ProposalStore {
  proposeSummaryEdit(request: SummaryEditRequest): Promise<ProposalDetail>;
  proposeMemoEdit(request: MemoEditRequest): Promise<ProposalDetail>;
  list(filter: ProposalFilter, page: Page): Promise<{ proposals: ProposalItem[]; pagination: Pagination }>;
  get(id: string): Promise<ProposalDetail>;
  decline(id: string): Promise<ProposalDetail>;
  /** ConflictError when the base changed, unless `force`. */
  apply(id: string, options: { force: boolean }): Promise<ProposalDetail>;
  /** A fixed proposal (demo data); nothing when one with this ID exists. */
  seed(proposal: { id: string; meetingId: string; kind: 'summary' | 'memo'; targetId: string | null; content: string; baseContent: string; proposedBy: string; createdAt: string }): Promise<void>;
}

export interface ImportStore {
  /** File checks, the worker heartbeat, one transaction: the same path for MCP, the CLI, the watcher and the app. */
  enqueue(request: ImportRequest): Promise<RecordingImport & { duplicate_of?: DuplicateOf }>;
  /** NotFoundError when missing. */
  get(jobId: string): Promise<RecordingImport>;
  forMeeting(meetingId: string): Promise<RecordingImport | null>;
  list(filter: { status: ImportStatusFilter }, page: Page): Promise<{ imports: RecordingImport[]; pagination: Pagination }>;
  hasFile(path: string, size: number, mtimeMs: number): Promise<boolean>;
  hasUnder(dir: string): Promise<boolean>;
  findByContent(sha256: string, options?: { includeFailed?: boolean }): Promise<{ jobId: string; meetingId: string; title: string; status: ProcessingStatus } | null>;
  /** Status of each job ID this database knows (unknown IDs are absent). */
  statuses(jobIds: readonly string[]): Promise<Map<string, ProcessingStatus>>;
}

/** The worker's side of the queue. Every write that takes a lease fails (returns false or throws LeaseLostError) once the lease is lost. */
export interface JobStore {
  hasQueued(): Promise<boolean>;
  claimNext(workerId: string, leaseMs: number): Promise<ClaimedJob | null>;
  renewLease(lease: JobLease): Promise<boolean>;
  recordAudioFacts(lease: JobLease, meetingId: string, facts: AudioFacts, to?: 'transcribing' | 'summarizing'): Promise<void>;
  storeFileTranscript(lease: JobLease, meetingId: string, facts: AudioFacts, batch: TranscriptBatch, speakers: string[]): Promise<number>;
  appendWords(lease: JobLease, meetingId: string, batch: TranscriptBatch): Promise<number>;
  startChunkProgress(lease: JobLease, chunksTotal: number): Promise<void>;
  finishTranscription(lease: JobLease, meetingId: string, batch: TranscriptBatch, speakers: string[]): Promise<number>;
  complete(lease: JobLease, meetingId: string, outcome: JobOutcome): Promise<void>;
  fail(lease: JobLease, error: string): Promise<boolean>;
  interrupt(lease: JobLease, stage: string, cause: ShutdownCause): Promise<boolean>;
  /** Jobs whose lease expired go back to the queue (or fail after too many attempts); returns their IDs. */
  sweepExpiredLeases(): Promise<string[]>;
  /**
   * The recording stored with the job, chunk by chunk, each checked against its checksum: PostgreSQL
   * streams it into the database at enqueue so a worker on any machine can read it. Null when the
   * worker reads the job's file_path itself (SQLite: same machine), or when it was dropped (job ended).
   */
  recording(jobId: string): Promise<AsyncIterable<Buffer> | null>;
  /**
   * Calls `listener` soon after a job is queued, from any process (PostgreSQL: LISTEN/NOTIFY on its own
   * connection, which reconnects by itself and calls `listener` after reconnecting). Resolves with the
   * function that stops listening. Absent on SQLite: the worker polls. Polling stays the fallback.
   */
  onQueued?(listener: () => void): Promise<() => Promise<void>>;
}

export interface WorkerStore {
  register(registration: WorkerRegistration): Promise<void>;
  heartbeat(workerId: string): Promise<void>;
  markStopped(workerId: string): Promise<void>;
  /** The worker with the newest heartbeat, or null. */
  latest(): Promise<WorkerStatus | null>;
  isAlive(): Promise<boolean>;
}

export interface SettingStore {
  read(): Promise<Record<string, string>>;
  write(key: string, value: string): Promise<void>;
  /** True when the key was set. */
  delete(key: string): Promise<boolean>;
}

export interface MaintainResult extends CheckpointResult {
  /** The merge statements that did work this round (src/db/queries/fts-upkeep.ts). */
  merged: FtsMergeStep[];
  /** The round of the search bitmaps' upkeep (src/db/queries/search-bits.ts); absent on PostgreSQL. */
  bits?: BitsRound;
  /** The round of list_meetings' bitmaps of meeting_terms (src/db/queries/meeting-bits.ts); absent on PostgreSQL. */
  meetingBits?: MeetingBitsRound;
  /** PostgreSQL: the rounds of the search bitmaps' upkeep (src/db/postgres/bitmaps.ts, migration 0013). */
  bitmaps?: BitmapUpkeep;
}

export interface BitmapUpkeep {
  /** Rounds run (each a short transaction). */
  rounds: number;
  /** Units of work done: stale blocks rebuilt, a term's blocks built, newly dense terms added. */
  units: number;
  /** A round found writers of postings or tags under way and did nothing (it tries again next time). */
  busy: boolean;
  /** The rounds were all spent doing work: more may be left. */
  more: boolean;
}

export interface AdminStore {
  schema(): Promise<SchemaState>;
  integrity(options: { full: boolean }): Promise<IntegrityReport>;
  /** Rebuilds the search index from the meetings (what `syntheo doctor --repair-search` does), telling `onProgress` how it goes. */
  repairSearch(onProgress?: RepairProgress): Promise<RepairResult>;
  /** Loads export records (syntheo.meeting/v1), upserting by ID. */
  load(input: unknown, options?: LoadOptions): Promise<LoadResult>;
  /**
   * Engine upkeep between jobs (SQLite: a bounded round of full-text index merging and one of the search bitmaps'
   * upkeep, then a WAL checkpoint when the log is large; PostgreSQL: bounded rounds of the search bitmaps' upkeep);
   * null when the engine has none.
   * `merged` empty: no index had merging to do.
   */
  maintain(): Promise<MaintainResult | null>;
}

export interface Store {
  readonly engine: Engine;
  /** Where the data lives, safe to print: a file path, or a URL without its password. */
  readonly location: string;
  readonly meetings: MeetingStore;
  readonly folders: FolderStore;
  readonly series: SeriesStore;
  readonly transcripts: TranscriptStore;
  readonly search: SearchStore;
  readonly proposals: ProposalStore;
  readonly imports: ImportStore;
  readonly jobs: JobStore;
  readonly workers: WorkerStore;
  readonly settings: SettingStore;
  readonly admin: AdminStore;
  close(): Promise<void>;
}
