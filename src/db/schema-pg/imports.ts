import { pgTable, text, integer, bigint, index, uniqueIndex, customType, primaryKey } from 'drizzle-orm/pg-core';
import { meetings } from './meetings.js';
import { PROCESSING_STATUSES, SUMMARY_STATUSES } from '../schema/enums.js';

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

/** A recording import job: enqueued by `import_recording`, driven by `syntheo-worker`. */
export const recordingImports = pgTable(
  'recording_imports',
  {
    id: text('id').primaryKey(),
    meetingId: text('meeting_id')
      .notNull()
      .references(() => meetings.id, { onDelete: 'cascade' }),
    /** Absolute, symlinks resolved, on the machine that enqueued it; the content travels in recording_chunks. */
    filePath: text('file_path').notNull(),
    /** Size and mtime at enqueue: the worker refuses a file that changed since. */
    fileSize: bigint('file_size', { mode: 'number' }).notNull(),
    fileMtimeMs: bigint('file_mtime_ms', { mode: 'number' }).notNull(),
    /** Sniffed from content: an audio format (wav, mp3 ...), a transcript format (vtt, srt, verbose_json, speaker_text) or a container (matroska, avi ...). */
    fileFormat: text('file_format').notNull(),
    /** 1: the worker extracts the audio track (ffmpeg, mono 16 kHz Opus) before upload: a video, or a container servers do not read. */
    extractAudio: integer('extract_audio').notNull().default(0),
    /** sha256 (hex) of the file at enqueue, computed streaming: the same content imported twice is a duplicate. */
    contentSha256: text('content_sha256'),
    /** 1: the meeting's started_at was known at enqueue (given, or the recording's creation time): the worker keeps it. */
    startedAtKnown: integer('started_at_known').notNull().default(0),
    requestKey: text('request_key'),
    status: text('status', { enum: PROCESSING_STATUSES }).notNull().default('queued'),
    summaryStatus: text('summary_status', { enum: SUMMARY_STATUSES }).notNull().default('pending'),
    error: text('error'),
    workerId: text('worker_id'),
    /** ISO time after which a job in an active state is considered abandoned by its worker. */
    leaseExpiresAt: text('lease_expires_at'),
    audioDurationMs: integer('audio_duration_ms'),
    chunksDone: integer('chunks_done'),
    chunksTotal: integer('chunks_total'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    startedAt: text('started_at'),
    finishedAt: text('finished_at'),
  },
  (t) => [
    // Same request_key returns the original job; unique (NULLs allowed many times) so two racing processes cannot both insert.
    uniqueIndex('recording_imports_request_key_idx').on(t.requestKey),
    // Worker claims: oldest queued job first; lease sweeps over active states.
    index('recording_imports_status_idx').on(t.status, t.createdAt),
    // get_meeting: the import of a meeting.
    index('recording_imports_meeting_idx').on(t.meetingId),
    // Duplicates: an import of the same content (imports add, the watcher).
    index('recording_imports_sha256_idx').on(t.contentSha256),
  ],
);

/**
 * The recording itself, streamed in at enqueue so a worker on any machine can read it: chunks of at
 * most 1 MiB in order, each with its sha256; dropped when the job ends.
 */
export const recordingChunks = pgTable(
  'recording_chunks',
  {
    jobId: text('job_id')
      .notNull()
      .references(() => recordingImports.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    data: bytea('data').notNull(),
    sha256: text('sha256').notNull(),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.seq] })],
);

/** One row per running worker process; `syntheo mcp` reads heartbeats to know whether the app is open. */
export const workers = pgTable(
  'workers',
  {
    id: text('id').primaryKey(),
    hostname: text('hostname').notNull(),
    pid: integer('pid').notNull(),
    version: text('version').notNull(),
    concurrency: integer('concurrency').notNull(),
    startedAt: text('started_at').notNull(),
    heartbeatAt: text('heartbeat_at').notNull(),
    stoppedAt: text('stopped_at'),
  },
  (t) => [
    // "Is a worker alive?": the freshest heartbeat.
    index('workers_heartbeat_idx').on(t.heartbeatAt),
  ],
);

export type RecordingImportRow = typeof recordingImports.$inferSelect;
export type RecordingChunkRow = typeof recordingChunks.$inferSelect;
export type WorkerRow = typeof workers.$inferSelect;
