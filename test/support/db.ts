import { afterEach } from 'vitest';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type SyntheoDb } from '../../src/db/open.js';
import { MIGRATIONS_DIR } from '../../src/package.js';

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

/**
 * A database file as migrations 0000 to `last` left it (and the history drizzle keeps, so that opening it runs
 * only the later ones), for tests of what a migration does to rows written before it. Not closed.
 */
export function databaseMigratedTo(path: string, last: number): Database.Database {
  const old = new Database(path);
  old.exec('CREATE TABLE __drizzle_migrations (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)');
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string; when: number }[] };
  for (const entry of journal.entries.filter((e) => Number(e.tag.slice(0, 4)) <= last)) {
    const sql = readFileSync(join(MIGRATIONS_DIR, `${entry.tag}.sql`), 'utf8');
    for (const statement of sql.split('--> statement-breakpoint')) if (statement.trim()) old.exec(statement);
    old.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run(createHash('sha256').update(sql).digest('hex'), entry.when);
  }
  return old;
}

/** meeting_tags rows that are no tag of their meeting, plus tags of a meeting without their row (0 when they agree). */
export function meetingTagsDrift(s: Database.Database): number {
  const tags = `SELECT j.value AS tag, m.started_at, m.id AS meeting_id FROM meetings m, json_each('["' || replace(m.search_tags, ' ', '","') || '"]') j WHERE j.value != ''`;
  const rows = 'SELECT tag, started_at, meeting_id FROM meeting_tags';
  return s.prepare(`SELECT (SELECT count(*) FROM (${tags} EXCEPT ${rows})) + (SELECT count(*) FROM (${rows} EXCEPT ${tags}))`).pluck().get() as number;
}
