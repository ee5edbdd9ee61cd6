import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sqlite } from '../../db/open.js';
import { stmt } from '../../db/statements.js';

/** Chunk folders are `$TMPDIR/syntheo-<job id>-XXXXXX` (see transcribe-chunks.ts). */
const CHUNK_DIR = /^syntheo-(job_[0-9a-z_]+)-[A-Za-z0-9]{6}$/;

/**
 * Removes the chunk folders a killed worker left behind, for jobs of this database that have ended.
 * A folder whose job this database does not know may belong to a worker of another database: kept.
 * Run after the first lease sweep, so the jobs of dead workers already read as failed.
 */
export function removeStaleChunkDirs(sqlite: Sqlite, dir = tmpdir()): string[] {
  const removed: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return removed;
  }
  const status = stmt<{ status: string }>(sqlite, 'SELECT status FROM recording_imports WHERE id = ?');
  for (const name of entries) {
    const job = CHUNK_DIR.exec(name)?.[1];
    if (!job) continue;
    const row = status.get(job);
    if (row && (row.status === 'done' || row.status === 'failed')) {
      rmSync(join(dir, name), { recursive: true, force: true });
      removed.push(name);
    }
  }
  return removed;
}
