import type BetterSqlite3 from 'better-sqlite3';
import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync, readFileSync, statSync, statfsSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { NoDatabaseError, SyntheoError, toSyntheoError } from '../errors.js';
import { isBusy, isSqliteError, sqliteError } from './sqlite/errors.js';
import { MIGRATIONS_DIR, packageVersion } from '../package.js';
import { defaultDbPath } from '../platform/paths.js';
import type { OnSchemaNotice } from './model/schema-notice.js';

export type Sqlite = BetterSqlite3.Database;

// Loaded on the first open, not at import: `syntheo mcp` answers initialize and server/discover without it (~15-25 ms).
const require = createRequire(import.meta.url);
let driver: typeof BetterSqlite3 | undefined;
const loadDriver = (): typeof BetterSqlite3 => (driver ??= require('better-sqlite3') as typeof BetterSqlite3);

/** `PRAGMA application_id` of every Syntheo database ('SYNT'): tells ours from another app's SQLite file. */
export const APPLICATION_ID = 0x53594e54;
const MIGRATIONS_TABLE = '__drizzle_migrations';
const BUSY_TIMEOUT_MS = 10_000;
/** How long opening waits for another process applying migrations (each wait for the write lock is a busy timeout). */
const MIGRATION_WAIT_MS = 10 * 60_000;

export interface OpenOptions {
  /** Create the folder, file and schema when missing (mcp, worker, writing CLI commands). */
  create: boolean;
  /** Told when an existing schema is upgraded, or when this open waits for another process to let go of the file. */
  onSchema?: OnSchemaNotice;
}

/**
 * The schema is Drizzle's (src/db/schema, migrations in drizzle/), but queries run on better-sqlite3
 * prepared statements: importing drizzle-orm costs ~115 ms, half of `syntheo mcp`'s start-up budget.
 */
export interface SyntheoDb {
  readonly path: string;
  readonly sqlite: Sqlite;
  close(): void;
}

/** `--db`, else SYNTHEO_DB, else the platform's data folder (src/platform/paths.ts), or the old XDG default where a database already is. */
export function resolveDbPath(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = flag ?? (env.SYNTHEO_DB || undefined);
  if (chosen !== undefined) refusePostgresUrl(chosen);
  if (chosen !== undefined) return chosen === ':memory:' ? chosen : resolve(expandHome(chosen));
  return defaultDbPath({ platform: process.platform, env, home: homedir() }, existsSync);
}

/** A caller that opens SQLite files only must not turn a PostgreSQL URL into a folder named `postgresql:`. */
function refusePostgresUrl(location: string): void {
  if (/^postgres(ql)?:\/\//i.test(location))
    throw new SyntheoError(
      'invalid',
      'This command opens an SQLite database file, and --db (or SYNTHEO_DB) is a PostgreSQL URL: it does not run on PostgreSQL yet. Use an SQLite file here, or a command that takes both (syntheo mcp, the CLI commands).',
    );
}

function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path;
}

export function openDatabase(path: string, options: OpenOptions): SyntheoDb {
  refusePostgresUrl(path);
  const memory = path === ':memory:';
  if (!memory && !existsSync(path)) {
    if (!options.create) throw new NoDatabaseError(path);
    createPrivateFile(path);
  }

  let sqlite: Sqlite;
  try {
    const Driver = loadDriver();
    sqlite = new Driver(path, { fileMustExist: !memory });
  } catch (error) {
    throw openFailure(path, error);
  }
  try {
    // Busy timeout first: every later statement, journal_mode included, may wait for another process.
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Before WAL: switching the journal mode rewrites the file header of another app's database. In one transaction, so
    // in one snapshot (see ensureSchema).
    sqlite.transaction(() => refuseForeign(sqlite, path))();
    if (!memory) {
      const mode = switchToWal(sqlite);
      if (String(mode).toLowerCase() !== 'wal') throw new SyntheoError('storage', `Could not switch ${path} to WAL mode (got ${String(mode)}).`);
    }
    sqlite.pragma('foreign_keys = ON');
    // 64 MiB page cache (allocated as used): a large database's indexes stay in memory between calls.
    sqlite.pragma('cache_size = -65536');
    // WAL + NORMAL: a process crash loses nothing committed; fsync happens at checkpoints.
    sqlite.pragma('synchronous = NORMAL');
    // A WAL that grew in a busy period is cut back to this size when it is next rewound (it never shrinks otherwise).
    sqlite.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
    settleAllocator(sqlite);
    ensureSchema(sqlite, path, options.onSchema);
  } catch (error) {
    sqlite.close();
    throw openFailure(path, error);
  }
  const sidecars = memory ? [] : guardWrites(sqlite, path);
  return {
    path,
    sqlite,
    close: () => {
      if (!sqlite.open) return;
      sqlite.close();
      removeOrphans(path, sidecars);
    },
  };
}

/**
 * `journal_mode = WAL`, tried again while the database is busy: SQLite may answer it with SQLITE_BUSY at once, without
 * waiting out the busy timeout, while another process switches or migrates the same new file (2 of 60 rounds of 8
 * processes opening one new file at the same instant).
 */
function switchToWal(sqlite: Sqlite): unknown {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      return sqlite.pragma('journal_mode = WAL', { simple: true });
    } catch (error) {
      if (!isBusy(error) || Date.now() > deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

let allocatorSettled = false;

/**
 * Once per process on Linux: glibc's malloc gives the free memory at the top of its heap back to the system as
 * soon as more than 128 KiB of it is free (M_TRIM_THRESHOLD), and SQLite allocates and frees a page cache for
 * each temporary b-tree (a recursive CTE, a DISTINCT, an FTS5 delete), several per statement: each time, its
 * pages were faulted in again, at 15-45 µs a fault on a 2-core VM. glibc raises that threshold to twice the
 * size of a block it had given its own mapping (above 128 KiB) when such a block is freed (mallopt(3),
 * "dynamic mmap threshold"): SQLite allocates and frees one of 1 MiB here, so up to 2 MiB of freed heap stays
 * in the process. Measured on a meeting insert: 225 page faults before, 7 after (1 with migration 0012). It costs ~256
 * page faults, once. Other C libraries have no such threshold; the statement is harmless there.
 */
function settleAllocator(sqlite: Sqlite): void {
  if (allocatorSettled || process.platform !== 'linux') return;
  allocatorSettled = true;
  // instr() reads the blob, so SQLite allocates and fills it (a zeroblob is otherwise never allocated).
  sqlite.prepare("SELECT instr(zeroblob(1048576), x'01')").get();
}

/**
 * A database file deleted or renamed while open keeps taking writes (in WAL mode SQLite does not
 * notice), which then vanish: every write in Syntheo is a transaction, so each one first checks that
 * the path still names the file this connection opened (one stat, a few µs) and fails with SQLite's
 * own "moved" code otherwise. A DEFERRED transaction, Syntheo's read snapshot, is checked only if it
 * wrote, before it commits. Shared by syntheo mcp, the worker and the CLI: they all open here.
 */
function guardWrites(sqlite: Sqlite, path: string): Sidecar[] {
  const opened = fileIdentity(path);
  if (opened === undefined) return [];
  const check = (): void => {
    if (fileIdentity(path) !== opened) throw Object.assign(new Error(`${path} is no longer the open database file`), { code: 'SQLITE_READONLY_DBMOVED' });
  };
  const transaction = sqlite.transaction.bind(sqlite);
  const changes = sqlite.prepare('SELECT total_changes()').pluck();
  // Overrides this connection's method only; better-sqlite3's Transaction is a function with three variants.
  sqlite.transaction = ((fn: (...args: never[]) => unknown) => {
    const t = transaction(fn);
    const guarded = (variant: (...args: never[]) => unknown) => (...args: never[]) => {
      check();
      return variant(...args);
    };
    // DEFERRED is how Syntheo reads in one snapshot (a search, a list): reads still answer from the open file, as
    // single statements do. Should one write all the same, the check runs before it commits, and throwing rolls it back.
    let read: ReturnType<typeof transaction> | undefined;
    const deferred = (...args: never[]) =>
      (read ??= transaction(function (this: unknown, ...inner: never[]) {
        const before = changes.get();
        const result = fn.apply(this, inner);
        if (changes.get() !== before) check();
        return result;
      })).deferred(...args);
    return Object.assign(guarded(t), { default: guarded(t.default), deferred, immediate: guarded(t.immediate), exclusive: guarded(t.exclusive) });
  }) as Sqlite['transaction'];
  return ['-wal', '-shm'].map((suffix) => ({ path: `${path}${suffix}`, identity: fileIdentity(`${path}${suffix}`) }));
}

interface Sidecar {
  path: string;
  identity: string | undefined;
}

/**
 * Closing a connection to a deleted or moved file leaves its -wal and -shm under the old name (SQLite
 * removes them only beside a file that is still there); a database created there later must not
 * pick them up. Only the very files this connection opened are removed, and only when no database
 * is at the path any more.
 */
function removeOrphans(path: string, sidecars: Sidecar[]): void {
  if (sidecars.length === 0 || fileIdentity(path) !== 'missing') return;
  for (const s of sidecars) {
    if (s.identity === undefined || s.identity === 'missing' || fileIdentity(s.path) !== s.identity) continue;
    try {
      unlinkSync(s.path);
    } catch {
      // Gone already, or not ours to remove: nothing to clean.
    }
  }
}

/** `dev:ino` of the file at path, `missing` when nothing is there; undefined when it cannot be told. */
function fileIdentity(path: string): string | undefined {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.dev}:${s.ino}`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : undefined;
  }
}

/** Folder 0700 and file 0600: meetings are private. Racing creators are fine (EEXIST). */
function createPrivateFile(path: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new SyntheoError(
      'storage',
      `Cannot open the Syntheo database at ${path} (${code}). Check that its folder exists or can be created and that you can read and write it, or point to another file with --db or SYNTHEO_DB.`,
      { cause: error },
    );
  }
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw openFailure(path, error);
  }
}

function openFailure(path: string, error: unknown): SyntheoError {
  if (error instanceof SyntheoError) return error;
  const code = (error as { code?: string }).code;
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT')
    return new SyntheoError('storage', `${path} is not a Syntheo database: it is not SQLite, or it is damaged or encrypted. Point to another file with --db.`, { cause: error });
  if (code === 'SQLITE_READONLY_DIRECTORY' || (code === 'SQLITE_CANTOPEN' && existsSync(path) && !writable(dirname(path))))
    // The path once: an MCP client gets at most 300 characters (wire-errors.ts), and with the folder named again a path
    // of ~55 characters (a home folder's application data) cut the middle of this message, what SQLite needs. It fits
    // for a path of up to 90 characters.
    return new SyntheoError(
      'storage',
      `Cannot use the database at ${path}: its folder is not writable, and SQLite needs to create ${basename(path)}-wal and ${basename(path)}-shm next to it. Let the user running Syntheo write there, or move the database to a writable folder.`,
      { cause: error },
    );
  if (code === 'SQLITE_CANTOPEN' || code === 'EACCES' || code === 'EISDIR' || code === 'ENOTDIR')
    return new SyntheoError('storage', `Cannot open the database at ${path} (${code}). Check that the path is a file you can read and write.`, { cause: error });
  if (code === 'SQLITE_READONLY' || code === 'EROFS')
    return new SyntheoError('storage', `The database at ${path} is read-only. Syntheo needs to write to it (and to the -wal and -shm files beside it); check the file and folder permissions.`, { cause: error });
  // Opening writes too (the -shm index, WAL recovery): on a full disk that fails as an I/O error.
  if (typeof code === 'string' && code.startsWith('SQLITE_IOERR') && freeBytes(dirname(path)) < LOW_SPACE_BYTES)
    return new SyntheoError('storage', `Cannot open the database at ${path}: the disk holding it is full. Free some space, then try again; nothing was changed.`, { cause: error });
  const mapped = isSqliteError(error) ? sqliteError(error) : toSyntheoError(error);
  return new SyntheoError(mapped.kind, `${path}: ${mapped.message}`, { cause: error });
}

const LOW_SPACE_BYTES = 1024 * 1024;

function freeBytes(dir: string): number {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return Infinity;
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

interface Journal {
  entries: { idx: number; when: number; tag: string }[];
}

interface KnownMigrations {
  count: number;
  latest: number;
  latestTag: string;
}

let known: KnownMigrations | undefined;
/** Read once per process: the journal is small, the SQL files are read only when something must be applied. */
function knownMigrations(): KnownMigrations {
  if (known) return known;
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as Journal;
  const last = journal.entries.at(-1);
  known = { count: journal.entries.length, latest: last?.when ?? 0, latestTag: last?.tag ?? 'none' };
  return known;
}

export interface SchemaState {
  applied: number;
  latestApplied: number;
  known: number;
  latestKnown: string;
}

export function schemaState(sqlite: Sqlite): SchemaState {
  const k = knownMigrations();
  const row = sqlite.prepare(`SELECT count(*) AS n, max(created_at) AS latest FROM ${MIGRATIONS_TABLE}`).get() as { n: number; latest: number | null };
  return { applied: row.n, latestApplied: Number(row.latest ?? 0), known: k.count, latestKnown: k.latestTag };
}

function hasTable(sqlite: Sqlite, name: string): boolean {
  return sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/**
 * Applies the committed Drizzle migrations exactly once, even when several processes open a new file
 * at the same instant: the check is repeated inside an IMMEDIATE transaction, which only one process
 * holds at a time (drizzle's own migrate() reads before it locks: drizzle issue #874).
 * Uses drizzle's own bookkeeping table, so drizzle-kit sees the same history.
 */
function ensureSchema(sqlite: Sqlite, path: string, onSchema?: OnSchemaNotice): void {
  const k = knownMigrations();
  // Read in one transaction, so in one snapshot: read one statement at a time, another process's migrations committing
  // between "no migrations table" and "which tables" made a brand-new file read as another application's (seen once
  // in 8 processes opening one file at the same instant).
  if (sqlite.transaction(() => isCurrent(sqlite, path, k))()) return;

  // Another process may be applying them, holding the write lock for all of them (migration 0018 took 45 s at 100k
  // meetings): waited for past the busy timeout, then found applied, rather than this process failing to start.
  const deadline = Date.now() + MIGRATION_WAIT_MS;
  for (let waited = false; ; waited = true) {
    try {
      sqlite.exec('BEGIN IMMEDIATE');
      break;
    } catch (error) {
      if (!isBusy(error) || Date.now() > deadline) throw error;
      if (sqlite.transaction(() => isCurrent(sqlite, path, k))()) return;
      if (!waited) onSchema?.({ kind: 'waiting', where: path });
    }
  }
  try {
    if (isCurrent(sqlite, path, k)) {
      sqlite.exec('COMMIT');
      return;
    }
    // An existing schema's upgrade is told before it and once committed (a new file's is not: it is instant).
    const { pending, upgrade } = pendingMigrations(sqlite);
    const started = performance.now();
    if (upgrade) onSchema?.({ kind: 'upgrading', where: path, pending: pending.map((m) => m.tag) });
    applyMigrations(sqlite, pending);
    sqlite.exec('COMMIT');
    if (upgrade) onSchema?.({ kind: 'upgraded', where: path, applied: pending.length, ms: performance.now() - started });
  } catch (error) {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
    throw error;
  }
}

/**
 * Throws for another application's SQLite file (a foreign application_id, or tables but no migrations table), and for
 * a file whose text is not UTF-8: SQLite's default, which every file Syntheo creates has, and which its search indexes
 * assume (a list's rows are read as one blob through group_concat(), which would convert them in another encoding).
 */
function refuseForeign(sqlite: Sqlite, path: string): boolean {
  const appId = sqlite.pragma('application_id', { simple: true }) as number;
  if (appId !== APPLICATION_ID && appId !== 0) throw foreign(path);
  const encoding = sqlite.pragma('encoding', { simple: true }) as string;
  if (encoding !== 'UTF-8')
    throw new SyntheoError('storage', `${path} is a SQLite database whose text is ${encoding}; Syntheo's databases are UTF-8 (SQLite's default). Point to another file with --db.`);
  if (hasTable(sqlite, MIGRATIONS_TABLE)) return true;
  const tables = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[];
  if (tables.length > 0) throw foreign(path, tables.map((t) => t.name));
  return false;
}

/** True when nothing is to be applied; throws for a foreign or newer database. */
function isCurrent(sqlite: Sqlite, path: string, k: KnownMigrations): boolean {
  if (!refuseForeign(sqlite, path)) return false;
  const state = schemaState(sqlite);
  if (state.latestApplied > k.latest)
    throw new SyntheoError(
      'storage',
      `${path} was migrated by a newer version of Syntheo (it has ${state.applied} schema migrations, this version ${packageVersion()} knows ${k.count}). Upgrade Syntheo (npm install -g syntheo@latest) or use another --db.`,
    );
  return state.latestApplied === k.latest;
}

function foreign(path: string, tables?: string[]): SyntheoError {
  const what = tables ? ` (it holds tables ${tables.slice(0, 5).join(', ')}${tables.length > 5 ? ', ...' : ''})` : '';
  return new SyntheoError('storage', `${path} is a SQLite database of another application${what}; Syntheo will not modify it. Point to another file with --db.`);
}

/** The migrations not applied yet, and whether the file had a schema before (an upgrade, rather than a new file). */
function pendingMigrations(sqlite: Sqlite): { pending: MigrationFile[]; upgrade: boolean } {
  sqlite.exec(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`);
  const last = sqlite.prepare(`SELECT max(created_at) AS latest FROM ${MIGRATIONS_TABLE}`).get() as { latest: number | null };
  const lastApplied = Number(last.latest ?? 0);
  return { pending: readMigrationFiles().filter((m) => m.folderMillis > lastApplied), upgrade: lastApplied > 0 };
}

function applyMigrations(sqlite: Sqlite, pending: MigrationFile[]): void {
  const insert = sqlite.prepare(`INSERT INTO ${MIGRATIONS_TABLE} (hash, created_at) VALUES (?, ?)`);
  for (const migration of pending) {
    for (const statement of migration.sql) if (statement.trim() !== '') sqlite.exec(statement);
    insert.run(migration.hash, migration.folderMillis);
  }
  sqlite.pragma(`application_id = ${APPLICATION_ID}`);
}

interface MigrationFile {
  tag: string;
  sql: string[];
  folderMillis: number;
  hash: string;
}

// node:crypto costs ~6 ms to load and is needed only when migrations are applied.
const sha256 = (text: string): string => (require('node:crypto') as typeof import('node:crypto')).createHash('sha256').update(text).digest('hex');

/** The same reading as drizzle-orm/migrator's readMigrationFiles (same hash), without its import cost. */
function readMigrationFiles(): MigrationFile[] {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as Journal;
  return journal.entries.map((entry) => {
    const query = readFileSync(join(MIGRATIONS_DIR, `${entry.tag}.sql`), 'utf8');
    return {
      tag: entry.tag,
      sql: query.split('--> statement-breakpoint'),
      folderMillis: entry.when,
      hash: sha256(query),
    };
  });
}
