import type { Sqlite } from './open.js';

/** WAL frames beyond which the log is rewound by force: 8192 pages, 32 MiB at SQLite's 4 KiB pages. */
export const MAX_WAL_FRAMES = 8192;

export interface CheckpointResult {
  /** Frames in the WAL before. */
  frames: number;
  /** The WAL was checkpointed in full and truncated. */
  truncated: boolean;
}

/**
 * Checkpoint starvation: SQLite's automatic checkpoints are PASSIVE, and the WAL can only be rewound at
 * a moment when no reader still uses it. With readers always active (several busy `syntheo mcp`
 * processes and a worker) that moment never comes and the log grows without bound (344 MB in three
 * minutes of 8 busy clients, measured). A TRUNCATE checkpoint waits (busy_timeout) for the readers of
 * old snapshots to finish, new readers read the database file, and the log goes back to 0 bytes.
 * Cheap when the log is small: one PASSIVE checkpoint, which never waits.
 */
export function checkpointIfLarge(sqlite: Sqlite, maxFrames = MAX_WAL_FRAMES): CheckpointResult {
  const [passive] = sqlite.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
  const frames = passive?.log ?? 0;
  if (frames < maxFrames) return { frames, truncated: false };
  const [full] = sqlite.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number; checkpointed: number }[];
  return { frames, truncated: full?.busy === 0 };
}
