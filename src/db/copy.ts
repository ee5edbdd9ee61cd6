import { getTableColumns, getTableName, type Table } from 'drizzle-orm';
import * as pgSchema from './schema-pg/index.js';
import { isPostgresUrl } from './model/postgres.js';
import { openDatabase, type Sqlite } from './open.js';
import { indexTranscript as indexSqliteTranscript } from './queries/search.js';
import { openPostgres, type PgDb } from './postgres/open.js';
import { indexTranscript as indexPgTranscript } from './postgres/transcripts.js';
import { describeTarget, toStorageError } from './postgres/errors.js';
import { ConflictError, InvalidInputError } from '../errors.js';

// `syntheo db copy --from X --to Y`: a whole Syntheo database moved between engines (SQLite <->
// PostgreSQL, or between two of the same), table by table in batches (memory bounded by BATCH rows),
// keeping every ID. Derived data is rebuilt by the target itself: search passages (triggers for
// summaries and notes, indexTranscript for transcripts) and folder meeting counts (triggers). The
// target must be empty: copying never merges.

/** Rows read and written at a time. */
const BATCH = 2_000;

interface TableSpec {
  table: Table;
  /** Key columns, for keyset paging on the source (stable whatever the engine). */
  key: string[];
  /** Columns written as a fixed value (folders' meeting_count: the target's triggers count). */
  reset?: Record<string, unknown>;
}

// Parents before children (foreign keys). Left out: search_passages (derived), workers (live processes),
// recording_chunks (a recording in flight stays with the database it was queued on).
const TABLES: TableSpec[] = [
  { table: pgSchema.series, key: ['id'] },
  // By path: a parent's path sorts before its children's.
  { table: pgSchema.folders, key: ['path'], reset: { meeting_count: 0 } },
  { table: pgSchema.meetings, key: ['id'] },
  { table: pgSchema.summaries, key: ['id'] },
  { table: pgSchema.participants, key: ['id'] },
  { table: pgSchema.actionItems, key: ['id'] },
  { table: pgSchema.transcripts, key: ['id'] },
  { table: pgSchema.transcriptWords, key: ['transcript_id', 'idx'] },
  { table: pgSchema.proposals, key: ['id'] },
  { table: pgSchema.recordingImports, key: ['id'] },
  { table: pgSchema.settings, key: ['key'] },
];

type Row = Record<string, unknown>;

interface Column {
  name: string;
  kind: 'boolean' | 'json' | 'other';
}

function columnsOf(table: Table): Column[] {
  return Object.values(getTableColumns(table)).map((c) => ({
    name: c.name,
    kind: c.columnType === 'PgBoolean' ? 'boolean' : c.columnType === 'PgJsonb' ? 'json' : 'other',
  }));
}

interface Side {
  readonly engine: 'sqlite' | 'postgres';
  readonly where: string;
  /** Rows after `after` (keyset) in key order, at most BATCH. Values in the portable form: booleans as booleans, JSON parsed. */
  read(spec: TableSpec, columns: Column[], after: unknown[] | undefined): Promise<Row[]>;
  isEmpty(): Promise<boolean>;
  write(spec: TableSpec, columns: Column[], rows: Row[]): Promise<void>;
  /** Rebuilds the transcripts' search passages once all words are in. */
  reindex(): Promise<void>;
  close(): Promise<void>;
}

const DATA_TABLES = ['meetings', 'folders', 'series', 'settings', 'proposals', 'recording_imports'];

function sqliteSide(path: string, create: boolean): Side {
  const db = openDatabase(path, { create });
  const sqlite: Sqlite = db.sqlite;
  return {
    engine: 'sqlite',
    where: path,
    async read(spec, columns, after) {
      const name = getTableName(spec.table);
      const keys = spec.key.join(', ');
      const cond = after ? `WHERE (${keys}) > (${spec.key.map(() => '?').join(', ')})` : '';
      const rows = sqlite.prepare(`SELECT ${columns.map((c) => c.name).join(', ')} FROM ${name} ${cond} ORDER BY ${keys} LIMIT ${BATCH}`).all(...(after ?? [])) as Row[];
      for (const r of rows)
        for (const c of columns) {
          if (c.kind === 'boolean' && r[c.name] !== null) r[c.name] = r[c.name] === 1;
          if (c.kind === 'json' && typeof r[c.name] === 'string') r[c.name] = JSON.parse(r[c.name] as string) as unknown;
        }
      return rows;
    },
    async isEmpty() {
      return DATA_TABLES.every((t) => sqlite.prepare(`SELECT 1 FROM ${t} LIMIT 1`).get() === undefined);
    },
    async write(spec, columns, rows) {
      const name = getTableName(spec.table);
      const insert = sqlite.prepare(`INSERT INTO ${name} (${columns.map((c) => c.name).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
      sqlite.transaction(() => {
        for (const r of rows)
          insert.run(
            ...columns.map((c) => {
              const v = spec.reset && c.name in spec.reset ? spec.reset[c.name] : r[c.name];
              if (v === null || v === undefined) return null;
              if (c.kind === 'boolean') return v ? 1 : 0;
              if (c.kind === 'json') return JSON.stringify(v);
              return v;
            }),
          );
      })();
    },
    async reindex() {
      const transcripts = sqlite.prepare('SELECT id, meeting_id FROM transcripts ORDER BY id').all() as { id: string; meeting_id: string }[];
      for (const t of transcripts) sqlite.transaction(() => indexSqliteTranscript(sqlite, t.id, t.meeting_id))();
    },
    close: async () => db.close(),
  };
}

async function postgresSide(url: string, create: boolean): Promise<Side> {
  const db: PgDb = await openPostgres(url, { create, max: 2 });
  const guarded =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await fn(...args);
      } catch (error) {
        throw toStorageError(url, error);
      }
    };
  return {
    engine: 'postgres',
    where: describeTarget(url),
    read: guarded(async (spec, columns, after) => {
      const name = getTableName(spec.table);
      // Keyset in byte order (COLLATE "C"), the order SQLite pages in.
      const keys = spec.key.map((k) => (k === 'idx' ? k : `${k} COLLATE "C"`)).join(', ');
      const cond = after ? `WHERE (${keys}) > (${spec.key.map((_, i) => `$${i + 1}`).join(', ')})` : '';
      return (await db.pool.query<Row>(`SELECT ${columns.map((c) => c.name).join(', ')} FROM ${name} ${cond} ORDER BY ${keys} LIMIT ${BATCH}`, after ?? [])).rows;
    }),
    isEmpty: guarded(async () => {
      const r = await db.pool.query<{ any: boolean }>(`SELECT ${DATA_TABLES.map((t) => `EXISTS (SELECT 1 FROM ${t})`).join(' OR ')} AS any`);
      return !r.rows[0]!.any;
    }),
    write: guarded(async (spec, columns, rows) => {
      const name = getTableName(spec.table);
      const list = columns.map((c) => c.name).join(', ');
      const json = rows.map((r) => {
        const out: Row = {};
        for (const c of columns) out[c.name] = spec.reset && c.name in spec.reset ? spec.reset[c.name] : r[c.name];
        return out;
      });
      // One statement per batch; the table's own row type converts every column.
      await db.pool.query(`INSERT INTO ${name} (${list}) SELECT ${list} FROM json_populate_recordset(NULL::${name}, $1::json)`, [JSON.stringify(json)]);
    }),
    reindex: guarded(async () => {
      const transcripts = (await db.pool.query<{ id: string; meeting_id: string }>('SELECT id, meeting_id FROM transcripts ORDER BY id')).rows;
      for (const t of transcripts) await indexPgTranscript(db.pool, t.id, t.meeting_id);
      // Fresh statistics: the planner otherwise plans for the empty tables it saw before the copy.
      await db.pool.query('ANALYZE');
    }),
    close: () => db.close(),
  };
}

export interface CopyResult {
  from: string;
  to: string;
  /** Rows copied per table. */
  tables: Record<string, number>;
}

async function openSide(location: string, create: boolean): Promise<Side> {
  return isPostgresUrl(location) ? postgresSide(location, create) : sqliteSide(location, create);
}

/** Copies every table of `from` into the empty database `to` (created and migrated when missing). */
export async function copyDatabase(from: string, to: string, onProgress?: (table: string, rows: number) => void): Promise<CopyResult> {
  if (from === to) throw new InvalidInputError('--from and --to name the same database.');
  const source = await openSide(from, false);
  let target: Side | undefined;
  try {
    target = await openSide(to, true);
    if (!(await target.isEmpty()))
      throw new ConflictError(`The target database ${target.where} already holds data: db copy only fills an empty database (it never merges). Point --to at a new database.`);
    const tables: Record<string, number> = {};
    for (const spec of TABLES) {
      const columns = columnsOf(spec.table);
      const name = getTableName(spec.table);
      let after: unknown[] | undefined;
      let n = 0;
      for (;;) {
        const rows = await source.read(spec, columns, after);
        if (rows.length === 0) break;
        await target.write(spec, columns, rows);
        n += rows.length;
        const last = rows.at(-1)!;
        after = spec.key.map((k) => last[k]);
        onProgress?.(name, n);
        if (rows.length < BATCH) break;
      }
      tables[name] = n;
    }
    await target.reindex();
    return { from: source.where, to: target.where, tables };
  } finally {
    await target?.close();
    await source.close();
  }
}
