import { hostname } from 'node:os';
import type { Sqlite } from '../open.js';
import { stmt } from '../statements.js';
import { newId } from '../ids.js';
import { ACTIVE_STATUSES_SQL as ACTIVE_SQL, type ActiveStatus, type ProcessingStatus, type SummaryStatus, type TranscriptTiming } from '../schema/enums.js';
import { appendTranscriptWords, type NewWord } from './transcripts.js';
import { interruptedError, type ShutdownCause } from './interruptions.js';
import { LeaseLostError, toClaimedJob, type ClaimedJob, type ClaimRow } from '../model/jobs.js';

// The worker's writes: its registration and heartbeat, claims, leases, stage transitions and terminal
// states of recording imports.
//
// Lease invariant: a job in an active state whose lease_expires_at is in the past is interrupted, for
// good. Every write the worker makes to a job it holds is guarded by `worker_id = me AND status = <stage>
// AND lease_expires_at > now`, so once the lease has run out no worker can move the job again; the sweep
// only writes down what is already true, and readers can derive "interrupted" from the row alone
// (toRecordingImport does).

export type { ActiveStatus };

export { LeaseLostError };

export type { ClaimedJob };

/** Who holds a job and until when; passed to every guarded write. */
export interface JobLease {
  jobId: string;
  workerId: string;
  leaseMs: number;
  /** PostgreSQL: keep the recording stored with the job when it ends (recordings.keep); default: drop it. */
  keepRecording?: boolean;
}

const iso = (ms: number): string => new Date(ms).toISOString();

// ---------------------------------------------------------------------------------------------
// Workers

export interface WorkerRegistration {
  id: string;
  concurrency: number;
  version: string;
}

export function registerWorker(sqlite: Sqlite, reg: WorkerRegistration, now = Date.now()): void {
  stmt(sqlite, 'INSERT INTO workers (id, hostname, pid, version, concurrency, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
    reg.id,
    hostname(),
    process.pid,
    reg.version,
    reg.concurrency,
    iso(now),
    iso(now),
  );
}

export function heartbeatWorker(sqlite: Sqlite, workerId: string, now = Date.now()): void {
  stmt(sqlite, 'UPDATE workers SET heartbeat_at = ? WHERE id = ?').run(iso(now), workerId);
}

/** A clean exit: `syntheo mcp` stops counting this worker as alive at once. */
export function markWorkerStopped(sqlite: Sqlite, workerId: string, now = Date.now()): void {
  stmt(sqlite, 'UPDATE workers SET stopped_at = ?, heartbeat_at = ? WHERE id = ?').run(iso(now), iso(now), workerId);
}

export function newWorkerId(): string {
  return newId('worker');
}

// ---------------------------------------------------------------------------------------------
// Claims and leases

/** Cheap read before a claim, so an idle worker polls without taking the write lock. */
export function hasQueuedJob(sqlite: Sqlite): boolean {
  return stmt(sqlite, "SELECT 1 FROM recording_imports WHERE status = 'queued' LIMIT 1").get() !== undefined;
}

/**
 * Claims the oldest queued job with one statement: SQLite runs an UPDATE under the database write lock,
 * so two processes can never both see the same job as queued and both take it.
 */
export function claimNextJob(sqlite: Sqlite, workerId: string, leaseMs: number, now = Date.now()): ClaimedJob | null {
  const row = stmt<ClaimRow>(
    sqlite,
    `UPDATE recording_imports
        SET status = 'importing', worker_id = ?, lease_expires_at = ?, started_at = ?, updated_at = ?
      WHERE id = (SELECT id FROM recording_imports WHERE status = 'queued' ORDER BY created_at, id LIMIT 1)
        AND status = 'queued'
      RETURNING id, meeting_id, file_path, file_size, file_mtime_ms, file_format, extract_audio, created_at`,
  ).get(workerId, iso(now + leaseMs), iso(now), iso(now));
  return row ? toClaimedJob(row) : null;
}

/** Extends the lease; false when the job is no longer ours (expired, swept, or finished): abort it. */
export function renewLease(sqlite: Sqlite, lease: JobLease, now = Date.now()): boolean {
  return (
    stmt(
      sqlite,
      `UPDATE recording_imports SET lease_expires_at = ?
        WHERE id = ? AND worker_id = ? AND status IN ${ACTIVE_SQL} AND lease_expires_at > ?`,
    ).run(iso(now + lease.leaseMs), lease.jobId, lease.workerId, iso(now)).changes === 1
  );
}

/**
 * The guard of every write to a held job, run inside the write's transaction: moves the job to `to`
 * (or keeps it in `from`), renews the lease, and throws LeaseLostError when the job is not ours.
 */
function guard(sqlite: Sqlite, lease: JobLease, from: ActiveStatus, to: ProcessingStatus, extra = '', params: unknown[] = [], now = Date.now()): void {
  const done = to === 'done' || to === 'failed';
  const changes = stmt(
    sqlite,
    `UPDATE recording_imports
        SET status = ?, updated_at = ?, lease_expires_at = ?${done ? ', finished_at = ?' : ''}${extra}
      WHERE id = ? AND worker_id = ? AND status = ? AND lease_expires_at > ?`,
  ).run(to, iso(now), done ? null : iso(now + lease.leaseMs), ...(done ? [iso(now)] : []), ...params, lease.jobId, lease.workerId, from, iso(now)).changes;
  if (changes !== 1) throw new LeaseLostError(lease.jobId);
}

// ---------------------------------------------------------------------------------------------
// Stage transitions

export interface AudioFacts {
  durationMs: number;
  /** When the recording ended: the file's last modification. */
  endedAtMs: number;
}

/**
 * importing -> transcribing: the duration, and the meeting's times. It started `duration` before the
 * file was last written, unless enqueue knew its start (given by the caller, or the recording's own
 * creation time: `started_at_known`), which is kept.
 */
export function recordAudioFacts(sqlite: Sqlite, lease: JobLease, meetingId: string, facts: AudioFacts, to: 'transcribing' | 'summarizing' = 'transcribing'): void {
  sqlite
    .transaction(() => {
      guard(sqlite, lease, 'importing', to, ', audio_duration_ms = ?', [facts.durationMs]);
      setMeetingTimes(sqlite, meetingId, facts);
    })
    .immediate();
}

function setMeetingTimes(sqlite: Sqlite, meetingId: string, facts: AudioFacts): void {
  const row = stmt<{ started_at: string; known: number }>(
    sqlite,
    'SELECT m.started_at, coalesce((SELECT max(started_at_known) FROM recording_imports WHERE meeting_id = m.id), 0) AS known FROM meetings m WHERE m.id = ?',
  ).get(meetingId);
  const startMs = row !== undefined && row.known === 1 ? Date.parse(row.started_at) : facts.endedAtMs - facts.durationMs;
  stmt(sqlite, 'UPDATE meetings SET started_at = ?, ended_at = ?, updated_at = ? WHERE id = ?').run(iso(startMs), iso(startMs + facts.durationMs), iso(Date.now()), meetingId);
}

/**
 * importing -> summarizing for a transcript file: its words, speakers and duration in one transaction
 * (transcription is skipped).
 */
export function storeFileTranscript(sqlite: Sqlite, lease: JobLease, meetingId: string, facts: AudioFacts, batch: TranscriptBatch, speakers: string[]): number {
  return sqlite
    .transaction(() => {
      guard(sqlite, lease, 'importing', 'summarizing', ', audio_duration_ms = ?', [facts.durationMs]);
      setMeetingTimes(sqlite, meetingId, facts);
      const count = appendTranscriptWords(sqlite, meetingId, batch.words, { source: 'import', language: batch.language, timing: batch.timing });
      if (speakers.length > 0) stmt(sqlite, 'UPDATE meetings SET speakers = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(speakers), iso(Date.now()), meetingId);
      return count;
    })
    .immediate();
}

export interface TranscriptBatch {
  words: readonly NewWord[];
  language: string | null;
  /** How the times of the words stored so far were obtained (a chunked import: all chunks up to this batch). */
  timing?: TranscriptTiming;
  /** Chunked transcription: chunks stored after this batch, and the (possibly revised) total. */
  progress?: { chunksDone: number; chunksTotal: number };
}

/** Stores a batch of words while transcribing, atomically with the lease check and the progress. Returns the word count. */
export function appendJobWords(sqlite: Sqlite, lease: JobLease, meetingId: string, batch: TranscriptBatch): number {
  return sqlite
    .transaction(() => {
      const p = batch.progress;
      guard(sqlite, lease, 'transcribing', 'transcribing', p ? ', chunks_done = ?, chunks_total = ?' : '', p ? [p.chunksDone, p.chunksTotal] : []);
      return appendTranscriptWords(sqlite, meetingId, batch.words, { source: 'import', language: batch.language, timing: batch.timing });
    })
    .immediate();
}

/** Chunked transcription starts: progress 0 / total. */
export function startChunkProgress(sqlite: Sqlite, lease: JobLease, chunksTotal: number): void {
  sqlite.transaction(() => guard(sqlite, lease, 'transcribing', 'transcribing', ', chunks_done = 0, chunks_total = ?', [chunksTotal])).immediate();
}

/**
 * transcribing -> summarizing. `words` (may be empty) are appended in the same transaction, so a
 * single-request transcript appears at once with the state change; speakers go on the meeting.
 */
export function finishTranscription(sqlite: Sqlite, lease: JobLease, meetingId: string, batch: TranscriptBatch, speakers: string[]): number {
  return sqlite
    .transaction(() => {
      const p = batch.progress;
      guard(sqlite, lease, 'transcribing', 'summarizing', p ? ', chunks_done = ?, chunks_total = ?' : '', p ? [p.chunksDone, p.chunksTotal] : []);
      const count = appendTranscriptWords(sqlite, meetingId, batch.words, { source: 'import', language: batch.language, timing: batch.timing });
      if (speakers.length > 0) stmt(sqlite, 'UPDATE meetings SET speakers = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(speakers), iso(Date.now()), meetingId);
      return count;
    })
    .immediate();
}

export interface GeneratedSummary {
  markdown: string;
  actionItems: { text: string; assignee: string | null; dueDate: string | null }[];
}

export interface JobOutcome {
  summaryStatus: Exclude<SummaryStatus, 'pending'>;
  summary?: GeneratedSummary;
  /** Shown in `error` although the import succeeded: why the summary failed. */
  note?: string;
}

/** summarizing -> done, with the summary and action items in the same transaction. */
export function completeJob(sqlite: Sqlite, lease: JobLease, meetingId: string, outcome: JobOutcome): void {
  sqlite
    .transaction(() => {
      guard(sqlite, lease, 'summarizing', 'done', ', summary_status = ?, error = ?', [outcome.summaryStatus, outcome.note ?? null]);
      if (outcome.summary === undefined) return;
      const now = iso(Date.now());
      const nextSummary = stmt<{ p: number }>(sqlite, 'SELECT coalesce(max(position) + 1, 0) AS p FROM summaries WHERE meeting_id = ?').get(meetingId)!.p;
      stmt(sqlite, "INSERT INTO summaries (id, meeting_id, title, content, position, source, created_at, updated_at) VALUES (?, ?, 'Summary', ?, ?, 'llm', ?, ?)").run(
        newId('summary'),
        meetingId,
        outcome.summary.markdown,
        nextSummary,
        now,
        now,
      );
      let position = stmt<{ p: number }>(sqlite, 'SELECT coalesce(max(position) + 1, 0) AS p FROM action_items WHERE meeting_id = ?').get(meetingId)!.p;
      const insert = stmt(sqlite, "INSERT INTO action_items (id, meeting_id, text, assignee, due_date, done, position, source, created_at) VALUES (?, ?, ?, ?, ?, 0, ?, 'llm', ?)");
      for (const item of outcome.summary.actionItems) insert.run(newId('actionItem'), meetingId, item.text, item.assignee, item.dueDate, position++, now);
    })
    .immediate();
}

/**
 * Any active state -> failed, with a message for the person. A summary not yet made will not be made:
 * `pending` becomes `failed`. False when the job was no longer ours (nothing written).
 */
export function failJob(sqlite: Sqlite, lease: JobLease, error: string, now = Date.now()): boolean {
  return (
    stmt(
      sqlite,
      `UPDATE recording_imports
          SET status = 'failed', error = ?, updated_at = ?, finished_at = ?, lease_expires_at = NULL,
              summary_status = CASE summary_status WHEN 'pending' THEN 'failed' ELSE summary_status END
        WHERE id = ? AND worker_id = ? AND status IN ${ACTIVE_SQL} AND lease_expires_at > ?`,
    ).run(error, iso(now), iso(now), lease.jobId, lease.workerId, iso(now)).changes === 1
  );
}

// ---------------------------------------------------------------------------------------------
// Interruptions

export { interruptedError, type ShutdownCause } from './interruptions.js';

/** Writes down jobs whose lease expired (their worker died) as failed/interrupted. Returns how many. */
export function sweepExpiredLeases(sqlite: Sqlite, now = Date.now()): string[] {
  const at = iso(now);
  const expired = stmt<{ id: string; status: ActiveStatus; lease_expires_at: string }>(
    sqlite,
    `SELECT id, status, lease_expires_at FROM recording_imports WHERE status IN ${ACTIVE_SQL} AND lease_expires_at <= ?`,
  ).all(at);
  if (expired.length === 0) return [];
  const swept: string[] = [];
  sqlite
    .transaction(() => {
      for (const job of expired) {
        const changes = stmt(
          sqlite,
          `UPDATE recording_imports
              SET status = 'failed', error = ?, updated_at = ?, finished_at = lease_expires_at, lease_expires_at = NULL,
                  summary_status = CASE summary_status WHEN 'pending' THEN 'failed' ELSE summary_status END
            WHERE id = ? AND status = ? AND lease_expires_at <= ?`,
        ).run(interruptedError(job.status), at, job.id, job.status, at).changes;
        if (changes === 1) swept.push(job.id);
      }
    })
    .immediate();
  return swept;
}

/** Graceful stop: a job still ours after the grace period is written down as interrupted, saying why. */
export function interruptJob(sqlite: Sqlite, lease: JobLease, stage: string, cause: ShutdownCause, now = Date.now()): boolean {
  return failJob(sqlite, lease, interruptedError(stage, cause), now);
}
