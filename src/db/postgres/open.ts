import type { Pool, PoolClient, PoolConfig } from 'pg';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NoDatabaseError, StorageError } from '../../errors.js';
import { PACKAGE_ROOT, packageVersion } from '../../package.js';
import { connectionError, describeTarget, toStorageError } from './errors.js';
import { registerGenericPool, registerMergePool, warmCompanions } from './sql.js';
import type { OnSchemaNotice } from '../model/schema-notice.js';

export const PG_MIGRATIONS_DIR = join(PACKAGE_ROOT, 'drizzle', 'postgres');
// drizzle-orm's PostgreSQL migrator keeps its history here: drizzle-kit sees the same one.
const MIGRATIONS_SCHEMA = 'drizzle';
const MIGRATIONS_TABLE = `${MIGRATIONS_SCHEMA}.__drizzle_migrations`;
/** pg_advisory_lock key held while migrating ('SYNT' in ASCII): one process migrates, the others wait and re-check. */
export const MIGRATION_LOCK_KEY = 0x53594e54;
const CONNECT_TIMEOUT_MS = 10_000;
/**
 * An idle connection is closed after this long. A new one pays the server's first reading of the tables and plans of
 * each statement it runs: at 100k meetings, a search with a folder 100 ms instead of ~10, `elra` + a participant 30
 * instead of ~14, a list 12 instead of ~3.5. An assistant's questions come minutes apart (a person reads and types in
 * between): after 30 s, as it was, nearly every one paid that.
 */
const IDLE_MS = 120_000;
/** At most this many connections for searches that merge key ranges (withMergePlans), beside the Store's. */
const MERGE_POOL_MAX = 4;
/** At most this many for statements planned once for any values (rowsGeneric), each holding up to COMPANION_STATEMENTS. */
const GENERIC_POOL_MAX = 2;

export interface PgOpenOptions {
  /** Apply the migrations to an empty database (mcp, worker, writing CLI commands). */
  create: boolean;
  /** Connections in the pool (default 10). */
  max?: number;
  /** Told when an existing schema is upgraded, or when this open waits for another process's upgrade. */
  onSchema?: OnSchemaNotice;
  /** Make the companion pools' first connections once connected, while the schema is checked (warmCompanions). */
  warm?: boolean;
}

export interface PgDb {
  /** The URL as given (may hold a password: never print it; use `where`). */
  readonly url: string;
  /** `host:port/database`, for messages. */
  readonly where: string;
  readonly pool: Pool;
  close(): Promise<void>;
}

type PgModule = (typeof import('pg'))['default'];
let driver: Promise<PgModule> | undefined;
// Loaded on the first open: `syntheo mcp` on SQLite never pays for it. pg is CommonJS: its API is the default export.
const loadDriver = (): Promise<PgModule> => (driver ??= import('pg').then((m) => m.default));

const INT8_OID = 20;

export async function openPostgres(url: string, options: PgOpenOptions): Promise<PgDb> {
  const pg = await loadDriver();
  const config: PoolConfig = {
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: IDLE_MS,
    // An idle connection does not keep the process alive: a command that never closed its Store still exits.
    allowExitOnIdle: true,
    application_name: 'syntheo',
    // JIT off for every connection (the user's PGOPTIONS after it may turn it back on; `options=` in the URL replaces
    // both). Statement triggers' plans are costed past jit_above_cost (transition tables and set-returning functions
    // are guessed at 1,000 rows) and writes paid compilation. At 100k meetings: passages loaded 20 a statement, 713-870
    // -> 966-1,003 a second (server CPU 21-23 -> 18-19 ms a statement); the first move of a folder of 2,038 meetings
    // on a connection, 5.6 -> 1.9 s. Reads: the 38 rows of bench/matrix.ts neutral (sum of p50s 954 vs 962 ms, every
    // row within noise). See bench/README, "PostgreSQL writes that refresh tags".
    options: ['-c jit=off', process.env.PGOPTIONS].filter(Boolean).join(' '),
    // count(*) and bigint columns as numbers (all ours stay far below 2^53), for this pool only.
    types: { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser },
  };
  const quiet = (p: Pool): Pool => {
    // An idle connection cut by a server restart must not kill the process; the next query reconnects.
    p.on('error', () => {});
    // Nor one cut while checked out (a transaction under way): pg emits 'error' on the client, which the
    // pool listens to only while it is idle. The query under way fails (and is worded by the Store), and
    // the pool drops the broken client when it is released.
    p.on('connect', (client) => client.on('error', () => {}));
    return p;
  };
  const pool = quiet(new pg.Pool(config));
  /** A companion pool of at most `max` connections (no more than the Store's), each made on first use and closed when idle as the Store's are. */
  const companion = (max: number) => quiet(new pg.Pool({ ...config, max: Math.min(max, config.max ?? max) }));
  // Searches that merge key ranges plan on connections of their own, which keep the planner settings (withMergePlans).
  const merging = companion(MERGE_POOL_MAX);
  registerMergePool(pool, merging);
  // And statements planned once for any values (a search's window read from the bits), on connections of their own.
  const generic = companion(GENERIC_POOL_MAX);
  registerGenericPool(pool, generic);
  const closeAll = () => Promise.all([pool.end(), merging.end(), generic.end()]);
  const where = describeTarget(url);
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    await closeAll().catch(() => {});
    throw connectionError(url, error);
  }
  if (options.warm) warmCompanions(pool);
  try {
    await ensureSchema(client, url, options.create, options.onSchema);
  } catch (error) {
    client.release();
    await closeAll().catch(() => {});
    throw toStorageError(url, error);
  }
  client.release();
  let closed = false;
  return {
    url,
    where,
    pool,
    close: async () => {
      if (closed) return;
      closed = true;
      await closeAll();
    },
  };
}

interface Journal {
  entries: { idx: number; when: number; tag: string }[];
}

interface Migration {
  tag: string;
  when: number;
  hash: string;
  statements: string[];
}

let migrations: Migration[] | undefined;
/** The same reading as drizzle-orm's readMigrationFiles (same hash): drizzle-kit and we agree on what is applied. */
export function readPgMigrations(): Migration[] {
  if (migrations) return migrations;
  const journal = JSON.parse(readFileSync(join(PG_MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as Journal;
  migrations = journal.entries.map((e) => {
    const query = readFileSync(join(PG_MIGRATIONS_DIR, `${e.tag}.sql`), 'utf8');
    return { tag: e.tag, when: e.when, hash: createHash('sha256').update(query).digest('hex'), statements: query.split('--> statement-breakpoint').filter((s) => s.trim() !== '') };
  });
  return migrations;
}

export interface PgSchemaState {
  applied: number;
  latestApplied: number;
  known: number;
  latestKnown: string;
}

export async function pgSchemaState(client: Pick<PoolClient, 'query'>): Promise<PgSchemaState | undefined> {
  const known = readPgMigrations();
  const exists = await client.query<{ t: string | null }>(`SELECT to_regclass('${MIGRATIONS_TABLE}')::text AS t`);
  if (exists.rows[0]?.t == null) return undefined;
  const r = await client.query<{ n: number; latest: number | null }>(`SELECT count(*)::int AS n, max(created_at)::float8 AS latest FROM ${MIGRATIONS_TABLE}`);
  return { applied: r.rows[0]!.n, latestApplied: Number(r.rows[0]!.latest ?? 0), known: known.length, latestKnown: known.at(-1)?.tag ?? 'none' };
}

/** Current: nothing to apply. Throws for a database migrated by a newer Syntheo. */
function isCurrent(state: PgSchemaState | undefined, url: string): boolean {
  if (state === undefined) return false;
  const known = readPgMigrations();
  const latest = known.at(-1)?.when ?? 0;
  if (state.latestApplied > latest)
    throw new StorageError(
      `The PostgreSQL database at ${describeTarget(url)} was migrated by a newer version of Syntheo (it has ${state.applied} schema migrations, this version ${packageVersion()} knows ${known.length}). Upgrade Syntheo (npm install -g syntheo@latest) on this machine, or use another database.`,
    );
  return state.latestApplied === latest;
}

/**
 * Applies the committed migrations exactly once, even when ten processes open a fresh database at the
 * same instant: the check is repeated under a session advisory lock that only one holds at a time.
 * The fast path (already current) takes no lock and needs no privilege beyond reading.
 */
async function ensureSchema(client: PoolClient, url: string, create: boolean, onSchema?: OnSchemaNotice): Promise<void> {
  const first = await pgSchemaState(client);
  if (isCurrent(first, url)) return;
  if (!create && first === undefined) throw new NoDatabaseError(describeTarget(url));
  const where = describeTarget(url);
  const locked = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [MIGRATION_LOCK_KEY]);
  if (!locked.rows[0]!.ok) {
    onSchema?.({ kind: 'waiting', where });
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
  }
  try {
    const state = await pgSchemaState(client);
    if (isCurrent(state, url)) return;
    if (state === undefined) await refuseForeign(client, url);
    const lastApplied = state?.latestApplied ?? 0;
    const pending = readPgMigrations().filter((m) => m.when > lastApplied);
    const started = performance.now();
    // An existing schema's upgrade is told (it can take a minute); a new database's is not (it takes a second).
    const upgrade = state !== undefined && state.applied > 0;
    if (upgrade) onSchema?.({ kind: 'upgrading', where, pending: pending.map((m) => m.tag) });
    await applyMigrations(client, pending);
    if (upgrade) onSchema?.({ kind: 'upgraded', where, applied: pending.length, ms: performance.now() - started });
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
  }
}

/** A database whose public schema already holds tables but no Syntheo history is someone else's. */
async function refuseForeign(client: PoolClient, url: string): Promise<void> {
  const r = await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename LIMIT 6");
  if (r.rows.length === 0) return;
  const names = r.rows.map((x) => x.name);
  throw new StorageError(
    `The PostgreSQL database at ${describeTarget(url)} holds tables of another application (${names.slice(0, 5).join(', ')}${names.length > 5 ? ', ...' : ''}); Syntheo will not modify it. Create an empty database for Syntheo (createdb syntheo).`,
  );
}

/** Each migration in its own transaction with its history row: a failure leaves the previous ones applied. */
async function applyMigrations(client: PoolClient, pending: Migration[]): Promise<void> {
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${MIGRATIONS_SCHEMA}`);
  await client.query(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)`);
  for (const m of pending) {
    await client.query('BEGIN');
    try {
      for (const statement of m.statements) await client.query(statement);
      await client.query(`INSERT INTO ${MIGRATIONS_TABLE} (hash, created_at) VALUES ($1, $2)`, [m.hash, m.when]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  }
}
