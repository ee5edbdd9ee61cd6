import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type SyntheoDb } from '../../src/db/open.js';

/** A fresh directory under the OS temp dir, removed by the returned cleanup. */
export function tempDir(prefix = 'syntheo-test-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A real database file with the real migrations applied. */
export function openTestDb(): SyntheoDb & { dir: string; cleanup(): void } {
  const { dir, cleanup } = tempDir();
  const db = openDatabase(join(dir, 'syntheo.db'), { create: true });
  return Object.assign(db, {
    dir,
    cleanup: () => {
      db.close();
      cleanup();
    },
  });
}
