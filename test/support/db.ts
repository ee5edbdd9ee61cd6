import { afterEach } from 'vitest';
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

/**
 * `const db = testDbs();` in a test file: each `db()` opens a fresh migrated database, closed and
 * removed after the test that opened it.
 */
export function testDbs(): () => SyntheoDb['sqlite'] {
  const open: ReturnType<typeof openTestDb>[] = [];
  afterEach(() => open.splice(0).forEach((d) => d.cleanup()));
  return () => {
    const d = openTestDb();
    open.push(d);
    return d.sqlite;
  };
}
