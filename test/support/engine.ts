import { afterAll, inject } from 'vitest';
import type BetterSqlite3 from 'better-sqlite3';
import type { Pool } from 'pg';
import { copyDatabase, openStore } from '../../src/db/engine.js';
import type { Store } from '../../src/db/store.js';

// The MCP contract tests and the worker end-to-end tests run on both engines, with the same assertions:
// vitest.config.ts runs them once in the `sqlite` project and once in the `postgres` one. A test seeds
// an SQLite file with the sync factories, then `serve(db.path)` gives the database the processes under
// test open: the file itself, or (postgres project) a fresh database of the shared cluster
// (test/support/postgres.setup.ts) holding a copy of it, IDs preserved. What a test reads or writes
// directly after that goes through the returned handle (SQL both engines run, or the Store), never
// through the SQLite handle.

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set by the postgres project's globalSetup. */
    postgresCluster: { socketDir: string; port: number; template: string; assistant: string; app: string };
    /** The engine of the project this file runs in. */
    testEngine: 'sqlite' | 'postgres';
  }
}

export type TestEngine = 'sqlite' | 'postgres';

/** The engine this run of the file tests. */
export const TEST_ENGINE: TestEngine = inject('testEngine') ?? 'sqlite';

export interface Served {
  readonly engine: TestEngine;
  /** `--db` for `syntheo mcp` and the worker: the SQLite path or the PostgreSQL URL. */
  readonly location: string;
  /** One statement with `?` placeholders, in SQL both engines run; the rows it returns (none for a write). Counts come back as numbers. */
  sql<T = Record<string, unknown>>(text: string, ...params: unknown[]): Promise<T[]>;
  /** A Store on the served database (opened once, closed after the file). */
  store(): Promise<Store>;
}

const closers: (() => Promise<void>)[] = [];
let served = 0;

afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** How many databases this file served (the postgres project checks that a file it runs served one). */
export const servedCount = (): number => served;

let counter = 0;

/** Where `syntheo mcp` connects: on PostgreSQL as a member of the assistants' role (the cluster's superuser otherwise). */
export function mcpLocation(location: string): string {
  return TEST_ENGINE === 'postgres' ? asUser(location, inject('postgresCluster').assistant) : location;
}

/** Where a worker connects: on PostgreSQL as a member of the app's role. */
export function workerLocation(location: string): string {
  return TEST_ENGINE === 'postgres' ? asUser(location, inject('postgresCluster').app) : location;
}

const asUser = (url: string, user: string) => url.replace(/^postgresql:\/\/postgres@/, `postgresql://${user}@`);

/** The database a test's processes open, seeded from the SQLite file at `path` (see above). */
export async function serve(path: string): Promise<Served> {
  served++;
  const location = TEST_ENGINE === 'postgres' ? await copyToPostgres(path) : path;
  let store: Promise<Store> | undefined;
  const base = {
    engine: TEST_ENGINE,
    location,
    store: () => {
      if (store === undefined) {
        store = openStore(location, { create: false });
        const opened = store;
        closers.push(async () => (await opened).close());
      }
      return store;
    },
  };
  return { ...base, sql: TEST_ENGINE === 'postgres' ? postgresSql(location) : sqliteSql(path) };
}

async function copyToPostgres(path: string): Promise<string> {
  const { socketDir, port, template } = inject('postgresCluster');
  const name = `syntheo_test_${process.pid}_${++counter}`;
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ host: socketDir, port, user: 'postgres', database: 'postgres' });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  } finally {
    await admin.end();
  }
  const url = `postgresql://postgres@localhost/${name}?host=${encodeURIComponent(socketDir)}&port=${port}`;
  await copyDatabase(path, url);
  return url;
}

function sqliteSql(path: string): Served['sql'] {
  let db: BetterSqlite3.Database | undefined;
  return async <T>(text: string, ...params: unknown[]) => {
    if (db === undefined) {
      const { default: Database } = await import('better-sqlite3');
      const opened = new Database(path);
      opened.pragma('busy_timeout = 5000');
      db = opened;
      closers.push(async () => {
        opened.close();
      });
    }
    const statement = db.prepare(text);
    if (statement.reader) return statement.all(...params) as T[];
    statement.run(...params);
    return [];
  };
}

function postgresSql(url: string): Served['sql'] {
  let pool: Pool | undefined;
  return async <T>(text: string, ...params: unknown[]) => {
    if (pool === undefined) {
      const { default: pg } = await import('pg');
      const opened = new pg.Pool({
        connectionString: url,
        max: 2,
        // count(*) as a number, as better-sqlite3 gives it.
        types: { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === 20 ? Number : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser },
      });
      pool = opened;
      closers.push(() => opened.end());
    }
    let n = 0;
    const numbered = text.replace(/\?/g, () => `$${++n}`);
    return (await pool.query(numbered, params)).rows as T[];
  };
}
