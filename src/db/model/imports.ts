// Pure pieces of recording imports shared by every engine and by their callers (no SQL here).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { ConflictError } from '../../errors.js';
import { clip } from '../../text/clip.js';
import type { ProcessingStatus } from '../schema/enums.js';

/** The same content (sha256) was already imported, by a job that did not fail. */
export class DuplicateImportError extends ConflictError {
  constructor(
    readonly existing: { jobId: string; meetingId: string; title: string; status: ProcessingStatus },
    shownPath: string,
  ) {
    super(
      `The file "${clip(shownPath, 121)}" has the same content as an earlier import: meeting "${clip(existing.title, 121)}" (${existing.meetingId}), job ${existing.jobId}, ${existing.status}. Nothing was queued. Use that meeting (get_meeting / \`syntheo meetings get ${existing.meetingId}\`); to import the same content again anyway, add --allow-duplicate.`,
    );
  }
}

/** sha256 of a file, read streaming (never whole in memory). */
export async function sha256File(path: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20, signal })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
