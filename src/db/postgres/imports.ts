import { createHash } from 'node:crypto';
import { open, realpath } from 'node:fs/promises';
import type { Pool, PoolClient } from 'pg';
import { ConflictError, StorageError, UnavailableError } from '../../errors.js';
import { isConnectionFailure } from './errors.js';
import { inspectImportFile, titleFromPath, type ImportFileInfo } from '../../audio/file.js';
import { newId } from '../ids.js';
import { nowIso } from '../time.js';
import { clip } from '../queries/not-found.js';
import { pagination } from '../queries/pagination.js';
import {
  checkRequest,
  DuplicateImportError,
  IMPORT_COLUMNS,
  replay,
  toRecordingImport,
  type DuplicateOf,
  type ImportRequest,
  type ImportRow,
} from '../queries/imports.js';
import type { ImportStatusFilter } from '../queries/imports-list.js';
import { ACTIVE_STATUSES_SQL, type ProcessingStatus } from '../schema/enums.js';
import type { Page, Pagination, RecordingImport } from '../queries/types.js';
import { getFolderByPathOrThrow, getImportOrThrow } from './meetings.js';
import { latestWorker } from './jobs.js';
import { one, rows, transaction, type Queryable } from './sql.js';

// import_recording on PostgreSQL: the same checks and answers as src/db/queries/imports.ts, and the
// recording travels with the job: streamed into recording_chunks (1 MiB chunks, each with its sha256)
// in the transaction that queues the job, so a worker on any machine can read it, and no worker can
// claim the job before the whole file is in. Memory stays bounded by one chunk at a time.

/** Size of one stored chunk of a recording. */
export const RECORDING_CHUNK_BYTES = 1 << 20;

const FROM = 'FROM recording_imports j JOIN meetings m ON m.id = j.meeting_id';

const findByKey = (q: Queryable, key: string) => one<ImportRow>(q, `SELECT ${IMPORT_COLUMNS} ${FROM} WHERE j.request_key = $1`, [key]);

export async function findImportByContent(q: Queryable, sha256: string, opts: { includeFailed?: boolean } = {}) {
  const row = await one<{ id: string; meeting_id: string; title: string; status: ProcessingStatus }>(
    q,
    `SELECT j.id, j.meeting_id, m.title, j.status ${FROM} WHERE j.content_sha256 = $1 AND ($2 OR j.status <> 'failed') ORDER BY j.created_at LIMIT 1`,
    [sha256, opts.includeFailed === true],
  );
  return row ? { jobId: row.id, meetingId: row.meeting_id, title: row.title, status: row.status } : null;
}

export async function enqueueImport(pool: Pool, request: ImportRequest): Promise<RecordingImport & { duplicate_of?: DuplicateOf }> {
  checkRequest(request);
  if (request.requestKey !== undefined) {
    const existing = await findByKey(pool, request.requestKey);
    if (existing) return replay(existing, request, existing.file_path === request.filePath ? undefined : await realpath(request.filePath).catch(() => undefined));
  }
  const file = await inspectImportFile(request.filePath);
  const folder = request.folderPath !== undefined ? await getFolderByPathOrThrow(pool, request.folderPath) : undefined;
  const sha256 = request.contentSha256 ?? (await sha256OfFile(file.path));
  const mode = request.duplicates ?? 'report';
  const duplicate = mode === 'allow' ? null : await findImportByContent(pool, sha256);
  if (duplicate && mode === 'refuse') throw new DuplicateImportError(duplicate, request.filePath);
  if (!((await latestWorker(pool))?.alive ?? false)) throw new UnavailableError({ type: 'no_worker' });
  const job = await insertImport(pool, request, file, sha256, folder?.id ?? null);
  if (duplicate === null || duplicate.jobId === job.job_id) return job;
  return { ...job, duplicate_of: { job_id: duplicate.jobId, meeting_id: duplicate.meetingId, title: duplicate.title, processing_status: duplicate.status } };
}

async function insertImport(pool: Pool, request: ImportRequest, file: ImportFileInfo, sha256: string, folderId: string | null): Promise<RecordingImport> {
  const jobId = await transaction(pool, async (c) => {
    if (request.requestKey !== undefined) {
      // Two processes racing with one key: the second waits on the first's key and then finds its job.
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`syntheo-request-key:${request.requestKey}`]);
      const existing = await findByKey(c, request.requestKey);
      if (existing) return replay(existing, request, file.path).job_id;
    }
    if (request.duplicates === 'refuse') {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`syntheo-content:${sha256}`]);
      const duplicate = await findImportByContent(c, sha256);
      if (duplicate) throw new DuplicateImportError(duplicate, request.filePath);
    }
    const now = nowIso();
    const meetingId = newId('meeting');
    const id = newId('job');
    const startedAt = request.startedAt ?? file.creationTime ?? new Date(file.mtimeMs).toISOString();
    await c.query(`INSERT INTO meetings (id, title, started_at, folder_id, source, created_at, updated_at) VALUES ($1, $2, $3, $4, 'import', $5, $5)`, [
      meetingId,
      request.title?.trim() ?? titleFromPath(file.path),
      startedAt,
      folderId,
      now,
    ]);
    await c.query(
      `INSERT INTO recording_imports (id, meeting_id, file_path, file_size, file_mtime_ms, file_format, extract_audio, content_sha256, started_at_known, request_key, status, summary_status, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'queued', 'pending', $11, $11)`,
      [id, meetingId, file.path, file.size, Math.trunc(file.mtimeMs), file.format, file.extractAudio ? 1 : 0, sha256, (request.startedAt ?? file.creationTime) !== null ? 1 : 0, request.requestKey ?? null, now],
    );
    // A hash given by the caller (the watcher) was taken by it: only one computed here can tell that the file changed.
    await storeRecording(c, id, file.path, request.contentSha256 === undefined ? sha256 : undefined);
    return id;
  });
  return getImportOrThrow(pool, jobId);
}

/**
 * Reads `path` in `RECORDING_CHUNK_BYTES` pieces into two buffers, reused in turn: the next piece is
 * read while `use` works on the current one (disk and database overlap), and no further piece is read
 * before `use` has finished (back-pressure). Two chunks in memory at most, none allocated anew.
 */
async function eachPiece(path: string, use: (piece: Buffer) => Promise<void> | void): Promise<void> {
  const file = await open(path, 'r');
  const buffers = [Buffer.allocUnsafe(RECORDING_CHUNK_BYTES), Buffer.allocUnsafe(RECORDING_CHUNK_BYTES)];
  const buffer = (turn: number): Buffer => buffers[turn & 1]!;
  // Fill a buffer: a read may return less than asked before the end of the file.
  const fill = async (into: Buffer): Promise<number> => {
    let filled = 0;
    while (filled < into.length) {
      const { bytesRead } = await file.read(into, filled, into.length - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return filled;
  };
  let next: Promise<number> = fill(buffer(0));
  try {
    for (let turn = 0; ; turn ^= 1) {
      const filled = await next;
      if (filled === 0) return;
      const last = filled < RECORDING_CHUNK_BYTES;
      next = last ? Promise.resolve(0) : fill(buffer(turn ^ 1));
      // Handled here; awaited (and its error thrown) on the next turn or in finally.
      next.catch(() => {});
      await use(buffer(turn).subarray(0, filled));
      if (last) return;
    }
  } finally {
    await next.catch(() => {});
    await file.close();
  }
}

/** The sha256 of a file, read with two reused buffers (sha256File allocates a buffer per read). */
export async function sha256OfFile(path: string): Promise<string> {
  const whole = createHash('sha256');
  await eachPiece(path, (piece) => void whole.update(piece));
  return whole.digest('hex');
}

/**
 * Streams the file into recording_chunks with two reused buffers (one inserted while the next is
 * read; none read further ahead); checks the whole against the sha256 taken at enqueue, when given.
 */
export async function storeRecording(c: PoolClient, jobId: string, path: string, sha256: string | undefined): Promise<number> {
  const whole = createHash('sha256');
  let seq = 0;
  await eachPiece(path, async (data) => {
    whole.update(data);
    await c.query('INSERT INTO recording_chunks (job_id, seq, data, sha256) VALUES ($1, $2, $3, $4)', [jobId, seq++, data, createHash('sha256').update(data).digest('hex')]);
  });
  if (sha256 !== undefined && whole.digest('hex') !== sha256) throw new ConflictError(`The file "${clip(path)}" changed while it was being imported. Import it again once it is complete.`);
  return seq;
}

/** Read outside the Store's error mapping (by whoever iterates): a lost connection is worded and marked transient here. */
async function reading<T>(query: () => Promise<T>): Promise<T> {
  try {
    return await query();
  } catch (error) {
    if (!isConnectionFailure(error)) throw error;
    throw new StorageError('The PostgreSQL database cannot be reached right now (it may be restarting) while reading a stored recording. Try again in a moment.', { cause: error, transient: true });
  }
}

/**
 * The stored recording of a job, chunk by chunk in order, each checked against its sha256, and the
 * whole against the file size taken at enqueue (a missing chunk is refused, never passed on).
 */
export async function* readRecording(q: Queryable, jobId: string): AsyncGenerator<Buffer> {
  const size = (await reading(() => one<{ size: number }>(q, 'SELECT file_size AS size FROM recording_imports WHERE id = $1', [jobId])))?.size;
  let read = 0;
  for (let seq = 0; ; seq++) {
    const row = await reading(() => one<{ data: Buffer; sha256: string }>(q, 'SELECT data, sha256 FROM recording_chunks WHERE job_id = $1 AND seq = $2', [jobId, seq]));
    if (!row) break;
    if (createHash('sha256').update(row.data).digest('hex') !== row.sha256) throw new ConflictError(`Chunk ${seq} of the recording of import ${jobId} is damaged (checksum mismatch).`);
    read += row.data.length;
    yield row.data;
  }
  if (size !== undefined && read !== size) throw new ConflictError(`The stored recording of import ${jobId} is incomplete: ${read} of ${size} bytes.`);
}

// A job is filtered by the status it reads as (toRecordingImport), as on SQLite: held under a lease
// that has run out, it is failed (interrupted), not in its stage, before any sweep writes that down.
const LIVE = '(j.lease_expires_at IS NULL OR j.lease_expires_at > syntheo_at(NULL, 0))';
const EXPIRED = `(j.status IN ${ACTIVE_STATUSES_SQL} AND j.lease_expires_at <= syntheo_at(NULL, 0))`;

export async function listImports(q: Queryable, filter: { status: ImportStatusFilter }, page: Page): Promise<{ imports: RecordingImport[]; pagination: Pagination }> {
  const statuses: readonly ProcessingStatus[] | null =
    filter.status === 'all' ? null : filter.status === 'active' ? ['queued', 'importing', 'transcribing', 'summarizing'] : [filter.status];
  const others = (statuses ?? []).filter((s) => s !== 'failed');
  const parts = others.length ? [`(j.status = ANY($1::text[]) AND ${LIVE})`] : [];
  if (statuses?.includes('failed')) parts.push("j.status = 'failed'", EXPIRED);
  const where = statuses === null ? '' : `WHERE (${parts.join(' OR ')})`;
  const params: unknown[] = others.length ? [others] : [];
  const n = params.length;
  const found = await rows<ImportRow>(q, `SELECT ${IMPORT_COLUMNS} ${FROM} ${where} ORDER BY j.created_at DESC, j.id DESC LIMIT $${n + 1} OFFSET $${n + 2}`, [...params, page.limit, page.offset]);
  const total = (await one<{ n: number }>(q, `SELECT count(*)::int AS n FROM recording_imports j ${where}`, params))!.n;
  return { imports: found.map((r) => toRecordingImport(r)), pagination: pagination(page, found.length, total) };
}
