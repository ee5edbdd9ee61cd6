// Pure pieces of the job queue shared by every engine and by the worker (no SQL here).

/** The job was taken from us (lease expired and swept, or another state was written): stop working on it. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor(readonly jobId: string) {
    super(`The lease on import ${jobId} was lost (it expired, or the job was marked interrupted); this worker stopped working on it.`);
  }
}

/** A claimed job's row, as both engines return it from the claim's UPDATE ... RETURNING. */
export interface ClaimRow {
  id: string;
  meeting_id: string;
  file_path: string;
  file_size: number;
  file_mtime_ms: number;
  file_format: string;
  extract_audio: number;
  created_at: string;
}

export interface ClaimedJob {
  id: string;
  meetingId: string;
  filePath: string;
  fileSize: number;
  fileMtimeMs: number;
  fileFormat: string;
  /** Extract the audio track (ffmpeg) before upload. */
  extractAudio: boolean;
  createdAt: string;
}

export function toClaimedJob(row: ClaimRow): ClaimedJob {
  return {
    id: row.id,
    meetingId: row.meeting_id,
    filePath: row.file_path,
    fileSize: row.file_size,
    fileMtimeMs: row.file_mtime_ms,
    fileFormat: row.file_format,
    extractAudio: row.extract_audio === 1,
    createdAt: row.created_at,
  };
}
