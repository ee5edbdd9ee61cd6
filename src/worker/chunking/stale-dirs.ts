import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '../../db/store.js';

/** Chunk folders are `$TMPDIR/syntheo-<job id>-XXXXXX` (see transcribe-chunks.ts). */
const CHUNK_DIR = /^syntheo-(job_[0-9a-z_]+)-[A-Za-z0-9]{6}$/;
/** Bound on the folders looked at in one start-up (a temp folder may hold anything). */
const MAX_CHUNK_DIRS = 10_000;

/**
 * Removes the chunk folders a killed worker left behind, for jobs of this database that have ended.
 * A folder whose job this database does not know may belong to a worker of another database: kept.
 * Run after the first lease sweep, so the jobs of dead workers already read as failed.
 */
export async function removeStaleChunkDirs(store: Store, dir = tmpdir()): Promise<string[]> {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const folders = new Map<string, string>();
  for (const name of entries) {
    const job = CHUNK_DIR.exec(name)?.[1];
    if (job) folders.set(name, job);
    if (folders.size >= MAX_CHUNK_DIRS) break;
  }
  if (folders.size === 0) return [];
  const status = await store.imports.statuses([...new Set(folders.values())]);
  const removed: string[] = [];
  for (const [name, job] of folders) {
    const s = status.get(job);
    if (s === 'done' || s === 'failed') {
      rmSync(join(dir, name), { recursive: true, force: true });
      removed.push(name);
    }
  }
  return removed;
}
