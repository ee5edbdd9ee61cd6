import { realpath } from 'node:fs/promises';
import type { Sqlite } from '../open.js';
import { stmt } from '../statements.js';
import { sha256File } from '../model/imports.js';
import { newId } from '../ids.js';
import { nowIso } from '../time.js';
import { ConflictError, DuplicateImportError, InvalidInputError, UnavailableError } from '../../errors.js';
import type { ImportFileInfo } from '../../audio/file.js';
import { getFolderByPathOrThrow } from './folders.js';
import { notFound } from './not-found.js';
import { isWorkerAlive } from './workers.js';
import { interruptedError } from './interruptions.js';
import type { RecordingImport } from './types.js';
import { isActiveStatus, type ProcessingStatus, type SummaryStatus } from '../schema/enums.js';

export const MAX_REQUEST_KEY_BYTES = 200;
export const MAX_TITLE_LENGTH = 500;

export interface ImportRow {
  id: string;
  meeting_id: string;
  status: ProcessingStatus;
  summary_status: SummaryStatus;
  error: string | null;
  file_path: string;
  file_format: string;
  title: string;
  request_key: string | null;
  audio_duration_ms: number | null;
  chunks_done: number | null;
  chunks_total: number | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  lease_expires_at: string | null;
}

export const IMPORT_COLUMNS = `j.id, j.meeting_id, j.status, j.summary_status, j.error, j.file_path, j.file_format,
  m.title, j.request_key, j.audio_duration_ms, j.chunks_done, j.chunks_total, j.created_at, j.updated_at, j.started_at, j.finished_at,
  j.lease_expires_at`;

/**
 * The row as clients see it. An active job whose lease has run out is reported as failed/interrupted
 * (derived, nothing written): no worker can move it any more (see jobs.ts), and a client polling while
 * no worker runs would otherwise wait forever. The next worker's sweep writes the same thing down.
 */
export function toRecordingImport(r: ImportRow, now = Date.now()): RecordingImport {
  const interrupted = isActiveStatus(r.status) && r.lease_expires_at !== null && Date.parse(r.lease_expires_at) <= now;
  return {
    job_id: r.id,
    meeting_id: r.meeting_id,
    processing_status: interrupted ? 'failed' : r.status,
    summary_status: interrupted && r.summary_status === 'pending' ? 'failed' : r.summary_status,
    error: interrupted ? interruptedError(r.status) : r.error,
    file_path: r.file_path,
    file_format: r.file_format,
    title: r.title,
    request_key: r.request_key,
    audio_duration_ms: r.audio_duration_ms,
    progress: r.chunks_total !== null ? { chunks_done: r.chunks_done ?? 0, chunks_total: r.chunks_total } : null,
    created_at: r.created_at,
    updated_at: r.updated_at,
    started_at: r.started_at,
    finished_at: interrupted ? r.lease_expires_at : r.finished_at,
  };
}


export function getImportOrThrow(sqlite: Sqlite, jobId: string): RecordingImport {
  const row = stmt<ImportRow>(sqlite, `SELECT ${IMPORT_COLUMNS} FROM recording_imports j JOIN meetings m ON m.id = j.meeting_id WHERE j.id = ?`).get(jobId);
  if (!row) throw notFound(sqlite, 'job', jobId);
  return toRecordingImport(row);
}

/** The latest import of a meeting, or null for a meeting that was not imported. */
export function getImportForMeeting(sqlite: Sqlite, meetingId: string): RecordingImport | null {
  const row = stmt<ImportRow>(
    sqlite,
    `SELECT ${IMPORT_COLUMNS} FROM recording_imports j JOIN meetings m ON m.id = j.meeting_id WHERE j.meeting_id = ? ORDER BY j.created_at DESC LIMIT 1`,
  ).get(meetingId);
  return row ? toRecordingImport(row) : null;
}

function findByKey(sqlite: Sqlite, key: string): (ImportRow & { file_path: string }) | undefined {
  return stmt<ImportRow>(sqlite, `SELECT ${IMPORT_COLUMNS} FROM recording_imports j JOIN meetings m ON m.id = j.meeting_id WHERE j.request_key = ?`).get(key);
}

export interface ImportRequest {
  filePath: string;
  title?: string;
  folderPath?: string;
  requestKey?: string;
  /** ISO time the meeting started (a watched Zoom folder's name); else the recording's creation time, else its mtime. */
  startedAt?: string;
  /** Computed by the caller already (the watcher): not read again. */
  contentSha256?: string;
  /**
   * Content imported before (a job that did not fail): 'report' (default, import_recording) queues it
   * all the same and names the earlier import in `duplicate_of`; 'refuse' (`imports add`, the watcher)
   * throws DuplicateImportError; 'allow' (`imports add --allow-duplicate`) says nothing.
   */
  duplicates?: 'report' | 'refuse' | 'allow';
}

/** An earlier import of the same content, as import_recording reports it. */
export interface DuplicateOf {
  job_id: string;
  meeting_id: string;
  title: string;
  processing_status: ProcessingStatus;
}

// Moved to src/errors.ts and src/db/model/imports.ts (no SQL); re-exported for the callers that import them from here.
export { DuplicateImportError, sha256File };

/** A job for this very file (path, size and mtime): the watcher skips it without reading it. */
export function hasImportOfFile(sqlite: Sqlite, path: string, size: number, mtimeMs: number): boolean {
  return stmt(sqlite, 'SELECT 1 FROM recording_imports WHERE file_path = ? AND file_size = ? AND file_mtime_ms = ? LIMIT 1').get(path, size, mtimeMs) !== undefined;
}

/** A job for a file inside this folder (a Zoom recording folder is one meeting, whichever of its files came first). */
export function hasImportUnder(sqlite: Sqlite, dir: string): boolean {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  return stmt(sqlite, 'SELECT 1 FROM recording_imports WHERE substr(file_path, 1, ?) = ? LIMIT 1').get(prefix.length, prefix) !== undefined;
}

/**
 * The import of this content, if any. A failed one does not count for imports add and import_recording
 * (the same file may be retried); it does for the watcher (`includeFailed`), which imports a file once.
 */
export function findImportByContent(sqlite: Sqlite, sha256: string, opts: { includeFailed?: boolean } = {}): { jobId: string; meetingId: string; title: string; status: ProcessingStatus } | null {
  const row = stmt<{ id: string; meeting_id: string; title: string; status: ProcessingStatus }>(
    sqlite,
    `SELECT j.id, j.meeting_id, m.title, j.status FROM recording_imports j JOIN meetings m ON m.id = j.meeting_id
      WHERE j.content_sha256 = ? AND (? OR j.status <> 'failed') ORDER BY j.created_at LIMIT 1`,
  ).get(sha256, opts.includeFailed ? 1 : 0);
  return row ? { jobId: row.id, meetingId: row.meeting_id, title: row.title, status: row.status } : null;
}

/** Same key and same file: the original job, whatever its state. Same key, other file: a conflict. */
export function replay(existing: ImportRow, request: ImportRequest, resolved?: string): RecordingImport {
  if (existing.file_path !== request.filePath && existing.file_path !== resolved)
    throw new ConflictError({ type: 'key_reused', key: request.requestKey ?? '', filePath: existing.file_path, jobId: existing.id });
  return toRecordingImport(existing);
}

export function checkRequest(request: ImportRequest): void {
  if (request.requestKey !== undefined) {
    const bytes = Buffer.byteLength(request.requestKey);
    if (bytes < 1 || bytes > MAX_REQUEST_KEY_BYTES)
      throw new InvalidInputError({ type: 'field', field: 'request_key', problem: `must be 1 to ${MAX_REQUEST_KEY_BYTES} bytes long (UTF-8); got ${bytes} bytes.` });
  }
  if (request.title !== undefined && (request.title.trim() === '' || request.title.length > MAX_TITLE_LENGTH))
    throw new InvalidInputError(`title must be 1 to ${MAX_TITLE_LENGTH} characters and not only spaces; leave it out to use the file name.`);
}

/**
 * import_recording and `syntheo imports add`: checks the request and the file, checks that a worker is
 * alive, then inserts the meeting and a queued job in one IMMEDIATE transaction. A replay of a
 * request_key returns the original job, also when two processes race with the same key.
 */
export async function enqueueImport(sqlite: Sqlite, request: ImportRequest, now = Date.now()): Promise<RecordingImport & { duplicate_of?: DuplicateOf }> {
  checkRequest(request);
  if (request.requestKey !== undefined) {
    const existing = findByKey(sqlite, request.requestKey);
    // The original job comes back even when its file has gone since: compare paths before inspecting it.
    if (existing) return replay(existing, request, existing.file_path === request.filePath ? undefined : await realpath(request.filePath).catch(() => undefined));
  }
  // Loaded here, not at import: reading a meeting must not pay for the media and transcript parsers.
  const { inspectImportFile, titleFromPath } = await import('../../audio/file.js');
  const file = await inspectImportFile(request.filePath);
  const folder = request.folderPath !== undefined ? getFolderByPathOrThrow(sqlite, request.folderPath) : undefined;
  const sha256 = request.contentSha256 ?? (await sha256File(file.path));
  const mode = request.duplicates ?? 'report';
  const duplicate = mode === 'allow' ? null : findImportByContent(sqlite, sha256);
  if (duplicate && mode === 'refuse') throw new DuplicateImportError(duplicate, request.filePath);
  if (!isWorkerAlive(sqlite, now))
    throw new UnavailableError({ type: 'no_worker' });
  const job = insertImport(sqlite, request, file, titleFromPath(file.path), sha256, folder?.id ?? null);
  if (duplicate === null || duplicate.jobId === job.job_id) return job;
  return { ...job, duplicate_of: { job_id: duplicate.jobId, meeting_id: duplicate.meetingId, title: duplicate.title, processing_status: duplicate.status } };
}

function insertImport(sqlite: Sqlite, request: ImportRequest, file: ImportFileInfo, fileTitle: string, sha256: string, folderId: string | null): RecordingImport {
  const jobId = sqlite
    .transaction((): string => {
      if (request.requestKey !== undefined) {
        const existing = findByKey(sqlite, request.requestKey);
        if (existing) return replay(existing, request, file.path).job_id;
      }
      // Again inside the write lock: two processes importing the same file at once make one job.
      const duplicate = request.duplicates === 'refuse' ? findImportByContent(sqlite, sha256) : null;
      if (duplicate) throw new DuplicateImportError(duplicate, request.filePath);
      const now = nowIso();
      const meetingId = newId('meeting');
      const id = newId('job');
      // Until the worker reads the duration, the recording is taken to have ended when the file was last
      // written; a start time known otherwise (given, or the recording's own) is kept (see recordAudioFacts).
      const startedAt = request.startedAt ?? file.creationTime ?? new Date(file.mtimeMs).toISOString();
      stmt(sqlite, `INSERT INTO meetings (id, title, started_at, folder_id, source, created_at, updated_at) VALUES (?, ?, ?, ?, 'import', ?, ?)`).run(
        meetingId,
        request.title?.trim() ?? fileTitle,
        startedAt,
        folderId,
        now,
        now,
      );
      stmt(
        sqlite,
        `INSERT INTO recording_imports (id, meeting_id, file_path, file_size, file_mtime_ms, file_format, extract_audio, content_sha256, started_at_known, request_key, status, summary_status, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', 'pending', ?, ?)`,
      ).run(id, meetingId, file.path, file.size, file.mtimeMs, file.format, file.extractAudio ? 1 : 0, sha256, (request.startedAt ?? file.creationTime) !== null ? 1 : 0, request.requestKey ?? null, now, now);
      return id;
    })
    .immediate();
  return getImportOrThrow(sqlite, jobId);
}
