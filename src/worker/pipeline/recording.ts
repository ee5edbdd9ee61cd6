import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ClaimedJob, Store } from '../../db/store.js';
import { JobFailure } from '../errors.js';

// The recording that travels with the job (PostgreSQL: streamed into the database at enqueue, so a
// worker on another machine need not see the file). It is written, chunk by chunk, to a private temp
// file that the stages then read in place of job.filePath; SQLite jobs keep reading their own file.

/** A job whose file is local now, and how to remove the copy (a no-op when nothing was copied). */
export interface LocalRecording {
  job: ClaimedJob;
  remove(): Promise<void>;
}

/**
 * Copies the stored recording to `$TMPDIR/syntheo-<job id>-XXXXXX/<file name>` (0700 folder, 0600 file;
 * the folder name is the chunk folders' so a killed worker's copy is removed by removeStaleChunkDirs),
 * with the original's modification time, and returns the job pointing at it. Streamed: one chunk in
 * memory at a time. Without a stored recording the job is returned unchanged.
 */
export async function localRecording(store: Store, job: ClaimedJob, signal: AbortSignal): Promise<LocalRecording> {
  const chunks = await store.jobs.recording(job.id);
  if (chunks === null) return { job, remove: async () => {} };
  const dir = await mkdtemp(join(tmpdir(), `syntheo-${job.id}-`));
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    // The name keeps the original's (titles and the transcription request's file name come from it).
    const path = join(dir, basename(job.filePath) || 'recording');
    await pipeline(Readable.from(chunks), createWriteStream(path, { mode: 0o600, flags: 'wx' }), { signal });
    const written = (await stat(path)).size;
    if (written !== job.fileSize)
      throw new JobFailure(`The recording stored with this import has ${written} bytes, but ${job.fileSize} were queued. Import it again with a new request_key.`);
    // The stages check size and modification time against the job's (and the meeting's end comes from it).
    const mtime = new Date(job.fileMtimeMs);
    await utimes(path, mtime, mtime);
    const info = await stat(path);
    return { job: { ...job, filePath: path, fileMtimeMs: Math.trunc(info.mtimeMs) }, remove };
  } catch (error) {
    await remove().catch(() => {});
    throw error;
  }
}
