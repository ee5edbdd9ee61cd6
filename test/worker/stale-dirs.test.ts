import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import { removeStaleChunkDirs } from '../../src/worker/chunking/stale-dirs.js';
import { openTestDb, tempDir } from '../support/db.js';
import { makeMeeting } from '../support/factories.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('removeStaleChunkDirs', () => {
  it('removes the chunk folders of ended jobs only, and keeps those of unknown or running jobs', async () => {
    const db = openTestDb();
    const tmp = tempDir();
    const store = openSqliteStore(db.path, { create: false });
    cleanups.push(db.cleanup, tmp.cleanup, () => store.close());
    const meeting = makeMeeting(db.sqlite);
    const job = (id: string, status: string) =>
      db.sqlite
        .prepare("INSERT INTO recording_imports (id, meeting_id, file_path, file_size, file_mtime_ms, file_format, status, created_at, updated_at) VALUES (?, ?, '/x.wav', 1, 0, 'wav', ?, 'now', 'now')")
        .run(id, meeting, status);
    job('job_done01', 'done');
    job('job_failed01', 'failed');
    job('job_running01', 'transcribing');
    for (const name of ['syntheo-job_done01-AbC123', 'syntheo-job_failed01-xYz789', 'syntheo-job_running01-q1w2e3', 'syntheo-job_elsewhere-r4t5y6', 'syntheo-xdg-aaaaaa']) {
      mkdirSync(join(tmp.dir, name));
      writeFileSync(join(tmp.dir, name, 'chunk-1.wav'), 'x');
    }
    expect((await removeStaleChunkDirs(store, tmp.dir)).sort()).toEqual(['syntheo-job_done01-AbC123', 'syntheo-job_failed01-xYz789']);
    expect(['syntheo-job_running01-q1w2e3', 'syntheo-job_elsewhere-r4t5y6', 'syntheo-xdg-aaaaaa'].every((n) => existsSync(join(tmp.dir, n)))).toBe(true);
  });
});
