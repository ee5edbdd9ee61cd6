import { spawn } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, resolveDbPath, schemaState, APPLICATION_ID } from '../../src/db/open.js';
import { MIGRATIONS_DIR, PACKAGE_ROOT } from '../../src/package.js';
import { SyntheoError } from '../../src/errors.js';
import { sqliteError } from '../../src/db/sqlite/errors.js';
import { schemaNoticeText, type SchemaNotice } from '../../src/db/model/schema-notice.js';
import { databaseMigratedTo, tempDir } from '../support/db.js';

const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] };
const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));
function dir(): string {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return t.dir;
}

describe('resolveDbPath', () => {
  it('prefers --db, then SYNTHEO_DB, then the XDG data home', () => {
    expect(resolveDbPath('/a/b.db', { SYNTHEO_DB: '/c.db' })).toBe('/a/b.db');
    expect(resolveDbPath(undefined, { SYNTHEO_DB: '/c.db' })).toBe('/c.db');
    expect(resolveDbPath(undefined, { XDG_DATA_HOME: '/xdg' })).toBe('/xdg/syntheo/syntheo.db');
    expect(resolveDbPath(undefined, { HOME: process.env.HOME })).toMatch(/\.local\/share\/syntheo\/syntheo\.db$/);
  });
});

describe('a database file moved or deleted while open', () => {
  it('refuses every write transaction (worker, CLI and mcp share this connection setup) with the "moved" message', () => {
    const path = join(dir(), 'syntheo.db');
    const db = openDatabase(path, { create: true });
    try {
      const write = db.sqlite.transaction(() => db.sqlite.prepare("INSERT INTO settings (key, value, updated_at) VALUES ('k', 'v', '2026-01-01T00:00:00.000Z')").run());
      renameSync(path, `${path}.moved`);
      let caught: unknown;
      try {
        write.immediate();
      } catch (error) {
        caught = error;
      }
      expect(sqliteError(caught as Error & { code: string }).message).toMatch(/^The database file was moved, renamed or deleted while Syntheo had it open; nothing was saved\./);
      expect(() => write()).toThrow(/no longer the open database file/);
      // Back in place: writes go through again.
      renameSync(`${path}.moved`, path);
      write.immediate();
      expect(db.sqlite.prepare("SELECT value FROM settings WHERE key = 'k'").pluck().get()).toBe('v');
    } finally {
      db.close();
    }
  });

  it('still answers reads in one snapshot (a DEFERRED transaction), and refuses one that writes, saving nothing', () => {
    const path = join(dir(), 'syntheo.db');
    const db = openDatabase(path, { create: true });
    try {
      const count = db.sqlite.prepare('SELECT count(*) FROM settings').pluck();
      const insert = db.sqlite.prepare("INSERT INTO settings (key, value, updated_at) VALUES ('k', 'v', '2026-01-01T00:00:00.000Z')");
      const before = count.get();
      rmSync(path);
      expect(db.sqlite.transaction(() => count.get()).deferred()).toBe(before);
      expect(() => db.sqlite.transaction(() => insert.run()).deferred()).toThrow(/no longer the open database file/);
      expect(count.get()).toBe(before);
    } finally {
      db.close();
    }
  });
});

describe('openDatabase', () => {
  it('creates a private folder and file, in WAL mode with foreign keys, fully migrated', () => {
    const path = join(dir(), 'nested', 'deeper', 'syntheo.db');
    const db = openDatabase(path, { create: true });
    try {
      expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(db.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(db.sqlite.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
      expect(schemaState(db.sqlite).applied).toBe(journal.entries.length);
    } finally {
      db.close();
    }
  });

  it('never creates a database for a read-only command', () => {
    const path = join(dir(), 'missing.db');
    expect(() => openDatabase(path, { create: false })).toThrow(/No Syntheo database at .*missing\.db/);
    expect(existsSync(path)).toBe(false);
  });

  it('refuses a file that is not SQLite, with a message and no stack', () => {
    const path = join(dir(), 'notes.txt');
    writeFileSync(path, 'these are my meeting notes, not a database\n'.repeat(100));
    const error = catchError(() => openDatabase(path, { create: true }));
    expect(error).toBeInstanceOf(SyntheoError);
    expect(error.message).toContain('is not a Syntheo database');
    expect(readFileSync(path, 'utf8')).toContain('these are my meeting notes');
  });

  it("refuses another application's SQLite database and leaves it untouched", () => {
    const path = join(dir(), 'other.db');
    const other = new BetterSqlite3(path);
    other.exec('CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES (1)');
    other.close();
    const error = catchError(() => openDatabase(path, { create: true }));
    expect(error.message).toMatch(/database of another application \(it holds tables contacts\)/);
    const check = new BetterSqlite3(path);
    expect(check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()).toEqual([{ name: 'contacts' }]);
    check.close();
  });

  it('refuses a SQLite file whose text is not UTF-8, before writing to it', () => {
    const path = join(dir(), 'utf16.db');
    const raw = new BetterSqlite3(path);
    raw.pragma("encoding = 'UTF-16le'");
    raw.exec('CREATE TABLE x (a); DROP TABLE x');
    raw.close();
    const error = catchError(() => openDatabase(path, { create: true }));
    expect(error).toBeInstanceOf(SyntheoError);
    expect(error.message).toBe(`${path} is a SQLite database whose text is UTF-16le; Syntheo's databases are UTF-8 (SQLite's default). Point to another file with --db.`);
    const check = new BetterSqlite3(path);
    expect(check.prepare("SELECT count(*) FROM sqlite_master").pluck().get()).toBe(0);
    expect(check.pragma('journal_mode', { simple: true })).toBe('delete');
    check.close();
  });

  it('refuses a database migrated by a newer version of Syntheo', () => {
    const path = join(dir(), 'newer.db');
    openDatabase(path, { create: true }).close();
    const raw = new BetterSqlite3(path);
    raw.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run('future', Date.now() + 10 * 365 * 86_400_000);
    raw.close();
    const error = catchError(() => openDatabase(path, { create: true }));
    expect(error.message).toMatch(new RegExp(`migrated by a newer version of Syntheo \\(it has ${journal.entries.length + 1} schema migrations, this version .* knows ${journal.entries.length}\\)`));
  });

  it('applies the migrations exactly once when 8 processes open a brand-new file at the same instant', async () => {
    const path = join(dir(), 'race.db');
    const script = `
      const { openDatabase } = await import(${JSON.stringify(join(PACKAGE_ROOT, 'dist', 'src', 'db', 'open.js'))});
      const wait = Number(process.argv[2]) - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const db = openDatabase(process.argv[1], { create: true });
      db.sqlite.prepare("INSERT INTO settings (key, value, updated_at) VALUES (?, 'x', 'now')").run('proc.' + process.pid);
      db.close();
    `;
    const startAt = Date.now() + 1500;
    const results = await Promise.all(
      Array.from({ length: 8 }, () => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script, path, String(startAt)], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (d) => (stderr += d));
        return new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stderr })));
      }),
    );
    expect(results.map((r) => r.stderr)).toEqual(Array(8).fill(''));
    expect(results.map((r) => r.code)).toEqual(Array(8).fill(0));
    const db = new BetterSqlite3(path);
    try {
      expect(db.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get()).toEqual({ n: journal.entries.length });
      expect(db.prepare("SELECT count(*) AS n FROM settings WHERE key LIKE 'proc.%'").get()).toEqual({ n: 8 });
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });
});

describe('an upgrade of an existing schema', () => {
  it('is told before and after (what is applied, how long it took); creating a new file tells nothing', () => {
    const notices: SchemaNotice[] = [];
    const onSchema = (n: SchemaNotice) => notices.push(n);
    openDatabase(join(dir(), 'new.db'), { create: true, onSchema }).close();
    expect(notices).toEqual([]);

    const path = join(dir(), 'old.db');
    databaseMigratedTo(path, journal.entries.length - 3).close();
    const db = openDatabase(path, { create: false, onSchema });
    db.close();
    const tags = journal.entries.slice(-2).map((e) => e.tag);
    expect(notices).toEqual([
      { kind: 'upgrading', where: path, pending: tags },
      { kind: 'upgraded', where: path, applied: 2, ms: expect.any(Number) },
    ]);
    expect(schemaNoticeText(notices[0]!)).toBe(
      `Upgrading the database at ${path} to this version's schema (2 migrations: ${tags.join(', ')}); on a large database this takes a minute or more...`,
    );
    expect(schemaNoticeText(notices[1]!)).toMatch(/^Upgraded the database at .*old\.db in \d+\.\d s\.$/);

    // Current now: opening it again tells nothing.
    notices.length = 0;
    openDatabase(path, { create: false, onSchema }).close();
    expect(notices).toEqual([]);
  });
});

describe('a database another process is migrating', () => {
  it('is waited for past the busy timeout (10 s), then migrated, rather than refused as busy', async () => {
    const path = join(dir(), 'old.db');
    const old = databaseMigratedTo(path, journal.entries.length - 2);
    old.pragma('journal_mode = WAL'); // as Syntheo leaves every file
    old.close();
    // Another process holds the write lock 11.5 s, past the busy timeout, as a long migration does (0018: 45 s at 100k
    // meetings), and writes a file just before it lets go.
    const released = `${path}.released`;
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require('better-sqlite3'))(process.argv[1]); db.exec('BEGIN IMMEDIATE'); console.log('held');
         setTimeout(() => { require('node:fs').writeFileSync(process.argv[2], ''); db.exec('COMMIT'); db.close(); }, 11_500);`,
        path,
        released,
      ],
      { cwd: PACKAGE_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    const notices: SchemaNotice[] = [];
    const db = openDatabase(path, { create: false, onSchema: (n) => notices.push(n) });
    try {
      // Opened only once the other process let go, and migrated then.
      expect(existsSync(released)).toBe(true);
      expect(schemaState(db.sqlite).applied).toBe(journal.entries.length);
      // The wait was told once (after the first busy timeout), then the upgrade this process did itself.
      expect(notices.map((n) => n.kind)).toEqual(['waiting', 'upgrading', 'upgraded']);
    } finally {
      db.close();
      await new Promise((resolve) => holder.on('close', resolve));
    }
  }, 30_000);
});

function catchError(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}
