import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { debianPostgresBin } from './system-tools.js';
import { findProgram } from '../../src/platform/which.js';
import { PG_MIGRATIONS_DIR } from '../../src/db/postgres/open.js';
import { afterAll, afterEach, beforeAll, expect, vi } from 'vitest';
import { tempDir } from './db.js';
import pg from 'pg';
import { readPgMigrations } from '../../src/db/postgres/open.js';
import { openStore } from '../../src/db/engine.js';
import type { Store } from '../../src/db/store.js';
import { ilike } from '../../src/db/postgres/meetings.js';
import { parseDateRange, type MeetingFilter } from '../../src/db/queries/meetings.js';
import { unicodeForms } from '../../src/db/queries/unicode.js';

// A throwaway PostgreSQL cluster per test file: initdb + pg_ctl in a temp folder, listening on a Unix
// socket there (trust) and on 127.0.0.1 (scram passwords, for the connection-error tests). initdb
// refuses to run as root: as root the folder belongs to the `postgres` user and the binaries run as it.

export interface PgCluster {
  /** Folder holding the data directory and the socket. */
  readonly dir: string;
  readonly socketDir: string;
  readonly port: number;
  /** Superuser `postgres`'s password on TCP. */
  readonly password: string;
  /** A URL for database `name` over the Unix socket, as the superuser (trust). */
  url(name?: string): string;
  /** A fresh database, empty or a copy of database `template`; returns its socket URL. */
  createDatabase(prefix?: string, template?: string): Promise<string>;
  /** SQL as the superuser on database `name` (psql, one shot); returns psql's unaligned output. */
  psql(sql: string, name?: string): string;
  /** Stops the server (immediate), keeping its data: `start()` brings it back. */
  stopServer(): void;
  start(): void;
  /** `pg_ctl restart -m fast`: every connection is cut. */
  restart(): void;
  /** Stops the server and removes the folder. */
  destroy(): void;
}

function bin(name: string): string {
  const dir = debianPostgresBin();
  if (dir !== null) return join(dir, name);
  const found = findProgram(name, { platform: process.platform, env: process.env });
  if (found === null) throw new Error(`${name} not found: sudo apt-get install postgresql postgresql-contrib`);
  return found;
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a PostgreSQL binary, as `postgres` when we are root. */
function run(program: string, args: string[], options: { input?: string } = {}): string {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin(program), ...args]] : [bin(program), args];
  const r = spawnSync(cmd as string, argv as string[], { encoding: 'utf8', input: options.input, timeout: 60_000 });
  if (r.status !== 0) throw new Error(`${program} ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

let counter = 0;

export async function startPostgres(): Promise<PgCluster> {
  const dir = mkdtempSync('/tmp/syntheo-pg-');
  const data = join(dir, 'data');
  const socketDir = dir;
  const password = `pw-${process.pid}-${Date.now()}`;
  if (asRoot) {
    execFileSync('chown', ['postgres:postgres', dir]);
  }
  chmodSync(dir, 0o700);
  const pwfile = join(dir, 'pwfile');
  writeFileSync(pwfile, `${password}\n`);
  if (asRoot) chownSync(pwfile, uidOf('postgres'), gidOf('postgres'));
  run('initdb', ['-D', data, '-U', 'postgres', '--auth-local=trust', '--auth-host=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  // Unix socket only in our folder; TCP on loopback. fsync off (the OS keeps the data when the server is killed); synchronous_commit stays on, so a commit survives -m immediate.
  // No query is JIT-compiled (jit_above_cost -1), whichever connection: the tests' own checks (views over every meeting, costed
  // past jit_above_cost) spent ~1 s compiling each. `jit` itself stays on, so open.test.ts still sees the Store turn it off.
  appendFileSync(
    join(data, 'postgresql.conf'),
    [`unix_socket_directories = '${socketDir}'`, "listen_addresses = '127.0.0.1'", 'fsync = off', 'full_page_writes = off', 'jit_above_cost = -1', 'max_connections = 200', "log_min_messages = 'warning'", ''].join('\n'),
  );
  const port = await freePort();
  const logFile = join(dir, 'server.log');
  const start = () => {
    run('pg_ctl', ['-D', data, '-l', logFile, '-o', `-p ${port}`, '-w', '-t', '60', 'start']);
  };
  const stop = () => {
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // already stopped
    }
  };
  start();

  const url = (name = 'postgres') => `postgresql://postgres@localhost/${name}?host=${encodeURIComponent(socketDir)}&port=${port}`;
  const psql = (sql: string, name = 'postgres') => run('psql', ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', socketDir, '-p', String(port), '-U', 'postgres', '-d', name], { input: sql });
  return {
    dir,
    socketDir,
    port,
    password,
    url,
    psql,
    createDatabase: async (prefix = 'syntheo', template?: string) => {
      const name = `${prefix}_${process.pid}_${++counter}`;
      psql(template === undefined ? `CREATE DATABASE ${name};` : `CREATE DATABASE ${name} TEMPLATE ${template};`);
      return url(name);
    },
    start,
    stopServer: stop,
    destroy: () => {
      stop();
      rmSync(dir, { recursive: true, force: true });
    },
    restart: () => {
      run('pg_ctl', ['-D', data, '-l', logFile, '-o', `-p ${port}`, '-m', 'fast', '-w', '-t', '60', 'restart']);
    },
  };
}

function uidOf(user: string): number {
  return Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
}
function gidOf(user: string): number {
  return Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
}

/**
 * Inside a `describe`: one throwaway cluster and one temporary folder for the block (made before its
 * first test, removed after its last), and clean-ups run after each test, last pushed first.
 */
export function clusterForBlock(): { readonly cluster: PgCluster; readonly tmp: { dir: string; cleanup(): void }; readonly cleanups: (() => unknown)[] } {
  let cluster: PgCluster | undefined;
  let tmp: { dir: string; cleanup(): void } | undefined;
  const cleanups: (() => unknown)[] = [];
  beforeAll(async () => {
    cluster = await startPostgres();
    tmp = tempDir();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(() => {
    cluster?.destroy();
    tmp?.cleanup();
  });
  return {
    get cluster() {
      return cluster!;
    },
    get tmp() {
      return tmp!;
    },
    cleanups,
  };
}

/**
 * For a describe block: a throwaway cluster, a migrated database on it, a Store and a pool of `max` connections (made
 * before the block's own beforeAll hooks, closed after its afterAll hooks); read them inside hooks and tests.
 */
export function storeForBlock(max: number): { readonly cluster: PgCluster; readonly url: string; readonly store: Store; readonly pool: pg.Pool } {
  let cluster: PgCluster | undefined;
  let url: string | undefined;
  let store: Store | undefined;
  let pool: pg.Pool | undefined;
  beforeAll(async () => {
    cluster = await startPostgres();
    url = await cluster.createDatabase();
    store = await openStore(url, { create: true });
    pool = new pg.Pool({ connectionString: url, max });
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await store?.close();
    cluster?.destroy();
  });
  return {
    get cluster() {
      return cluster!;
    },
    get url() {
      return url!;
    },
    get store() {
      return store!;
    },
    get pool() {
      return pool!;
    },
  };
}

/**
 * A meeting (`id`, `title`, started at `at`, in folder `folderId`) and, when `withAnna`, its participant Anna Kowalski
 * (`par_` + its index): the rows the title tests list.
 */
export async function addTitledMeeting(q: Pick<pg.Pool, 'query'>, m: { id: string; index: number; title: string; at: string; folderId: string | null; withAnna: boolean }): Promise<void> {
  await q.query('INSERT INTO meetings (id, title, started_at, folder_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $3, $3)', [m.id, m.title, m.at, m.folderId]);
  if (m.withAnna) await q.query("INSERT INTO participants (id, meeting_id, name) VALUES ($1, $2, 'Anna Kowalski')", [`par_${m.index}`, m.id]);
}

/** A meeting's bit of `tag` in meeting_tag_bits turned over by hand: a delta XORed in, as the triggers write them. */
export const flipTagBit = (q: Pick<pg.Pool, 'query'>, tag: string, meetingId: string) =>
  q.query("INSERT INTO meeting_tag_bits (tag, block, bits) SELECT $1, n.n >> 12, B'1'::bit(4096) >> (n.n & 4095) FROM meeting_numbers n WHERE n.meeting_id = $2", [tag, meetingId]);

/**
 * The title grams kept as bits (written apart from syntheo_has_tag_bits), a condition on `column`: a character or a pair
 * of ASCII (migration 0022), the title's words of ASCII letters (0030), and the pairs of words whose first is of ASCII
 * letters (0033); not its other words (`gw#1869`), pairs (`gp#1869 x`) nor the grams beyond ASCII (`gu`).
 */
export const titleGramBits = (column = 'tag'): string =>
  `(${column} ~ '^g([0-7][0-9a-f]){1,2}$' OR ${column} ~ '^gw[a-z]+$' OR ${column} ~ '^g[vp][a-z]+[ @.,_()/''"+;:\\t\\n\\r-]')`;

/** Each participant's grams (migration 0023: runs of 1-3 ASCII characters of its lower-cased name and e-mail) with its meeting, as rows (`tag`, `meeting_id`). */
export const PEOPLE_GRAM_ROWS = `SELECT g.g AS tag, p.meeting_id FROM participants p
  CROSS JOIN LATERAL (SELECT syntheo_people_grams(lower(p.name)) UNION SELECT syntheo_people_grams(lower(p.email))) g(g)`;

/**
 * The meetings a list_meetings filter (a title query, and folder, participant, `from` or `to`) matches, newest first,
 * from conditions on the rows themselves (no gram, word or tag read): the reference the title indexes are compared with.
 * (The dates as the lists read them: a bare `to` is its whole day.)
 */
export async function listedByRows(q: Pick<pg.Pool, 'query'>, filter: MeetingFilter): Promise<string[]> {
  const params: unknown[] = [];
  const p = (v: unknown) => `$${params.push(v)}`;
  const clauses = [`(${[...new Set(unicodeForms(filter.query!))].map((f) => `m.title ILIKE ${p(ilike(f))} ESCAPE '\\'`).join(' OR ')} OR m.id ILIKE ${p(ilike(filter.query!))} ESCAPE '\\')`];
  if (filter.folderPath) clauses.push(`m.folder_id IN (SELECT id FROM folders WHERE path = ${p(filter.folderPath)})`);
  if (filter.participant) clauses.push(`m.id IN (SELECT meeting_id FROM participants WHERE name ILIKE ${p(ilike(filter.participant))} ESCAPE '\\')`);
  const { from, to } = parseDateRange(filter.from, filter.to);
  if (from !== undefined) clauses.push(`m.started_at COLLATE "C" >= ${p(from)}`);
  if (to !== undefined) clauses.push(`m.started_at COLLATE "C" <= ${p(to)}`);
  const sql = `SELECT m.id FROM meetings m WHERE ${clauses.join(' AND ')} ORDER BY m.started_at COLLATE "C" DESC, m.id COLLATE "C" DESC`;
  return (await q.query<{ id: string }>(sql, params)).rows.map((r) => r.id);
}

/**
 * Each title fragment with each of `others` listed by `store` as listedByRows lists it: the whole list, pages on both
 * sides of the middle, the total. How many of them matched a meeting.
 */
export async function listsAsRows(q: Pick<pg.Pool, 'query'>, store: Store, fragments: readonly string[], others: readonly MeetingFilter[]): Promise<number> {
  let matched = 0;
  for (const query of fragments)
    for (const other of others) {
      const filter: MeetingFilter = { query, ...other };
      const label = JSON.stringify(filter);
      const want = await listedByRows(q, filter);
      if (want.length > 0) matched++;
      const listed = await store.meetings.list(filter, { limit: 200, offset: 0 });
      expect(listed.meetings.map((m) => m.id), label).toEqual(want);
      expect(listed.pagination.total, label).toBe(want.length);
      expect((await store.meetings.list(filter, { limit: 3, offset: 1 })).meetings.map((m) => m.id), label).toEqual(want.slice(1, 4));
      const late = Math.max(0, want.length - 2);
      expect((await store.meetings.list(filter, { limit: 3, offset: late })).meetings.map((m) => m.id), label).toEqual(want.slice(late, late + 3));
    }
  return matched;
}

/**
 * search_transcripts' rank on PostgreSQL, written apart from src/db/postgres/search.ts, for an ORDER BY: BM25 (k1 = 1.2,
 * b = 0) of each distinct lexeme of the query (`query`, an SQL expression of its text) in a passage. `cte`: the lexemes
 * and their IDFs (`lexeme_idf`, for a WITH), the passages saying each counted in search_postings and the highest passage
 * id taken as the number of passages; `score(p)`: the score of search_passages row `p`, each lexeme's positions counted
 * in its words.
 */
export const bm25 = (query: string): { cte: string; score: (p: string) => string } => ({
  cte: `lexeme_idf AS MATERIALIZED (SELECT q.l, greatest(1e-6::float8, ln((t.top - h.n + 0.5::float8) / (h.n + 0.5::float8))) AS idf
          FROM (SELECT DISTINCT lexeme AS l FROM unnest(to_tsvector('simple', syntheo_fold(${query})))) q
          CROSS JOIN (SELECT max(id)::float8 AS top FROM search_passages) t
          CROSS JOIN LATERAL (SELECT count(*)::float8 AS n FROM search_postings s WHERE s.lexeme = q.l COLLATE "C") h)`,
  score: (p) =>
    `(SELECT sum(x.idf * f.n * 2.2::float8 / (f.n + 1.2::float8)) FROM lexeme_idf x
      CROSS JOIN LATERAL (SELECT coalesce(sum(array_length(u.positions, 1)), 0)::float8 AS n FROM unnest(${p}.words) u WHERE u.lexeme = x.l) f)`,
});

/** Runs `sql` as `user` (a role made by the test, trust login) on the database of `url`: 'ok', or the error's SQLSTATE. */
export async function runAs(url: string, user: string, sql: string): Promise<string> {
  const client = new pg.Client({ connectionString: url.replace('postgres@', `${user}@`) });
  await client.connect();
  try {
    await client.query(sql);
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  } finally {
    await client.end();
  }
}

/** An assistant's and the app's login roles (`ann<n>`, `worker<n>`) on the database of `url`, members of the roles `syntheo db roles` makes. */
export function loginRoles(cluster: PgCluster, url: string, n: number): [assistant: string, app: string] {
  const name = url.split('/').pop()!.split('?')[0]!;
  cluster.psql(`CREATE ROLE ann${n} LOGIN IN ROLE syntheo_assistant; CREATE ROLE worker${n} LOGIN IN ROLE syntheo_app;`, name);
  return [`ann${n}`, `worker${n}`];
}

/** Run as `user` (runAs), each statement of `refused` fails for want of privilege (42501) and each of `allowed` runs. */
export async function expectPrivileges(url: string, user: string, statements: { refused: string[]; allowed: string[] }): Promise<void> {
  for (const sql of statements.refused) expect(await runAs(url, user, sql), `${user}: ${sql}`).toBe('42501');
  for (const sql of statements.allowed) expect(await runAs(url, user, sql), `${user}: ${sql}`).toBe('ok');
}

/**
 * The database of `url` (empty) migrated up to and including the migration tagged `last` (e.g. '0010_word_counts'),
 * as openPostgres would have left it then; opening it with `create` applies the rest.
 */
export async function pgDatabaseMigratedTo(url: string, last: string): Promise<void> {
  const all = readPgMigrations();
  const upTo = all.findIndex((m) => m.tag === last);
  if (upTo < 0) throw new Error(`no PostgreSQL migration tagged ${last}`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE SCHEMA IF NOT EXISTS drizzle');
    await client.query('CREATE TABLE IF NOT EXISTS drizzle.__drizzle_migrations (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)');
    for (const m of all.slice(0, upTo + 1)) {
      await client.query('BEGIN');
      for (const statement of m.statements) await client.query(statement);
      await client.query('INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ($1, $2)', [m.hash, m.when]);
      await client.query('COMMIT');
    }
  } finally {
    await client.end();
  }
}

/** The history rows of the migration tagged `tag` and of every later one deleted: opening the database applies them again. */
export async function forgetMigrationsFrom(q: Pick<pg.Pool, 'query'>, tag: string): Promise<void> {
  const from = readPgMigrations().find((m) => m.tag === tag);
  if (!from) throw new Error(`no PostgreSQL migration tagged ${tag}`);
  await q.query('DELETE FROM drizzle.__drizzle_migrations WHERE created_at >= $1', [from.when]);
}

/** The search bitmaps' rounds run until one has nothing to do, the terms that became dense added first (writers may hold the lock: those rounds retry). */
export async function buildSearchBitmaps(pool: Pick<pg.Pool, 'query'>): Promise<void> {
  await pool.query('SELECT syntheo_add_search_bitmap_terms()');
  for (let i = 0; i < 10_000; i++) if ((await pool.query<{ n: number }>('SELECT syntheo_build_search_bitmaps(20) AS n')).rows[0]!.n === 0) return;
  throw new Error('the bitmaps kept being built');
}

/** Migrations 0010-0011 (the words' counts) undone: their tables, view and functions (and so triggers) dropped, their history forgotten. */
export async function undoWordCounts(q: Pick<pg.Pool, 'query'>): Promise<void> {
  await q.query(
    'DROP VIEW search_word_totals; DROP TABLE search_word_deltas, search_word_counts; DROP FUNCTION syntheo_search_word_counts(), syntheo_search_word_counts_truncate(), syntheo_repair_word_counts(), syntheo_fold_word_counts(), syntheo_word_bucket(text) CASCADE',
  );
  await forgetMigrationsFrom(q, '0010_word_counts');
}

/** Migration 0016 (the meetings' tag versions) undone: its table and function dropped (the triggers' functions still call it: open the database next), its history forgotten. */
export async function undoTagVersions(q: Pick<pg.Pool, 'query'>): Promise<void> {
  await q.query('DROP TABLE meeting_tag_versions; DROP FUNCTION syntheo_lock_meetings_for_tags(text[])');
  await forgetMigrationsFrom(q, '0016_tag_versions');
}

/** Migration 0013 (the search bitmaps) undone, and 0020 (their words' counts), 0031 (the newest block's) and 0032 (the pairs'): their tables, sequences, functions and triggers dropped, their history forgotten. */
export async function undoSearchBitmaps(q: Pick<pg.Pool, 'query'>): Promise<void> {
  await q.query(
    'DROP TABLE search_bitmaps, search_counts, search_bitmap_terms, search_bitmap_stale, search_bitmap_tail, search_bitmap_tail_stale; DROP SEQUENCE search_bitmap_boundary, search_bitmap_tail_boundary',
  );
  await q.query(
    'DROP FUNCTION syntheo_search_bitmaps_stale(), syntheo_search_bitmaps_truncate(), syntheo_block_bits(bigint[]), syntheo_block_counts(int[]), syntheo_write_search_counts(text[], int[]), syntheo_search_counts(), syntheo_search_counts_truncate(), syntheo_build_search_bitmaps(int), syntheo_add_search_bitmap_terms(), syntheo_clear_search_bitmaps(), syntheo_gram_range_bits(bigint, bigint, int), syntheo_range_counts(int, int[]), syntheo_add_tail_counts(int, bigint, bigint, text), syntheo_add_tail_bits(int, bigint, bigint, boolean), syntheo_pair_bucket(text, text), syntheo_pair_bits(bigint, bigint), syntheo_add_pair_bits(int, bigint, bigint), syntheo_phrase_candidates(text, bigint[], bigint, float8, float8, float8) CASCADE',
  );
  await forgetMigrationsFrom(q, '0013_search_bitmaps');
}

/**
 * Puts a migrated database back to before migration 0012 (title words): its table, functions and trigger gone (and the handles' lookup), the
 * `gw` grams deleted, 0009's syntheo_title_grams back, and 0012 out of the history, so that opening it runs 0012
 * again (tests of earlier migrations remove their own after this one).
 */
export async function undoTitleWords(q: { query: pg.Pool['query'] }): Promise<void> {
  const journal = JSON.parse(readFileSync(join(PG_MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string; when: number }[] };
  const m9 = readFileSync(join(PG_MIGRATIONS_DIR, '0009_non_ascii_grams.sql'), 'utf8');
  const grams = m9.split('--> statement-breakpoint').find((s) => s.includes('CREATE OR REPLACE FUNCTION syntheo_title_grams('))!;
  await q.query('DROP TRIGGER meeting_grams_words_ai ON meeting_grams; DROP FUNCTION syntheo_title_words_kept(); DROP TABLE title_words');
  await q.query(grams.replace(/^[\s\S]*?CREATE OR REPLACE FUNCTION/, 'CREATE OR REPLACE FUNCTION'));
  await q.query("DROP FUNCTION syntheo_title_words(text, text), syntheo_handles_like(text[]); DELETE FROM meeting_grams WHERE tag >= 'gw' AND tag < 'gx'");
  await q.query('DELETE FROM drizzle.__drizzle_migrations WHERE created_at = $1', [journal.entries.find((e) => e.tag === '0012_title_words')!.when]);
}

/**
 * The names of the statements holding `text` run as named statements of a Store's generic connections (rowsGeneric), as
 * they are sent, until `spy` is restored; `of(other)`, those holding each of `more` (one spy for all: spies of the same
 * method do not stack); `ran(other)`, how many statements holding it ran, on any connection, named or not.
 */
export function genericStatements(
  text: string,
  ...more: string[]
): { generic: string[]; of: (text: string) => string[]; ran: (text: string) => number; spy: { mockRestore: () => void } } {
  const sent = new Map([text, ...more].map((t) => [t, [] as string[]]));
  const all = new Map([text, ...more].map((t) => [t, 0]));
  const query = pg.Client.prototype.query;
  const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as { name?: string; text?: string } | string;
    const sql = typeof config === 'string' ? config : config.text;
    for (const t of all.keys()) if (sql?.includes(t)) all.set(t, all.get(t)! + 1);
    if (typeof config === 'object' && config.name?.startsWith('syntheo_g'))
      for (const [t, names] of sent) if (config.text?.includes(t)) names.push(config.name);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query);
  return { generic: sent.get(text)!, of: (t) => sent.get(t)!, ran: (t) => all.get(t)!, spy };
}

/**
 * That the statements holding `once` (spied by `spied`, from genericStatements) ran, each planned once on a Store's
 * generic connection; and those holding `planned`, when given, ran too, none there (planned for their values).
 */
export function expectPlannedOnce(spied: ReturnType<typeof genericStatements>, once: string, planned?: string): void {
  expect(spied.of(once).length, once).toBeGreaterThan(0);
  expect(spied.of(once).length, once).toBe(spied.ran(once));
  if (planned === undefined) return;
  expect(spied.ran(planned), planned).toBeGreaterThan(0);
  expect(spied.of(planned), planned).toEqual([]);
}
