import { getTableColumns, getTableName, type Table } from 'drizzle-orm';
import * as pgSchema from './schema-pg/index.js';
import { isPostgresUrl } from './model/postgres.js';
import { MAX_PARTICIPANT_TEXT } from './model/export.js';
import { openDatabase, type Sqlite } from './open.js';
import { indexTranscript as indexSqliteTranscript, PASSAGE_MAX_WORDS } from './queries/search.js';
import { setIndexesAside, type IndexesAside } from './queries/bulk-index.js';
import type { PoolClient, QueryResult, QueryResultRow } from 'pg';
import { openPostgres, type PgDb } from './postgres/open.js';
import { describeTarget, toStorageError } from './postgres/errors.js';
import { ConflictError, InvalidInputError } from '../errors.js';
import type { OnSchemaNotice } from './model/schema-notice.js';

// `syntheo db copy --from X --to Y`: a whole Syntheo database moved between engines (SQLite <->
// PostgreSQL, or between two of the same), table by table in batches (memory bounded by the batch
// size), keeping every ID; the next batch is read while the last one is written. Derived data is
// rebuilt by the target itself: search passages (triggers for summaries and notes; transcripts once
// all words are in) and folder meeting counts (triggers); a SQLite target builds its full-text indexes once,
// after the last row (queries/bulk-index.ts). The target must be empty: copying never merges.
// The whole copy is one transaction on the target: a copy that fails or is killed half-way leaves the
// target as empty as it found it (indexes and keys included), so it can simply be run again.

/** Rows read and written at a time (transcript words: WORD_BATCH). */
const BATCH = 2_000;
const WORD_BATCH = 20_000;

interface TableSpec {
  table: Table;
  /** Key columns, for keyset paging on the source (stable whatever the engine). */
  key: string[];
  /** Rows per batch (default BATCH). */
  batch?: number;
  /** PostgreSQL: the primary key is built once at the end (millions of rows; nothing references them). */
  keyAtEnd?: boolean;
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
  { table: pgSchema.transcriptWords, key: ['transcript_id', 'idx'], batch: WORD_BATCH, keyAtEnd: true },
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
  /** Rows after `after` (keyset) in key order, at most the table's batch. Values in the portable form: booleans as booleans, JSON parsed. */
  read(spec: TableSpec, columns: Column[], after: unknown[] | undefined): Promise<Row[]>;
  isEmpty(): Promise<boolean>;
  /** Before the first write (the target is empty): opens the copy's one transaction. */
  begin(): Promise<void>;
  write(spec: TableSpec, columns: Column[], rows: Row[]): Promise<void>;
  /** Rebuilds the transcripts' search passages once all words are in, and the indexes begin() set aside. */
  reindex(): Promise<void>;
  /** After the copy: puts back what begin() set aside and commits (done), or rolls everything back. */
  finish(done: boolean): Promise<void>;
  close(): Promise<void>;
}

const DATA_TABLES = ['meetings', 'folders', 'series', 'settings', 'proposals', 'recording_imports'];

function sqliteSide(path: string, create: boolean, onSchema?: OnSchemaNotice): Side {
  const db = openDatabase(path, { create, ...(onSchema && { onSchema }) });
  const sqlite: Sqlite = db.sqlite;
  let aside: IndexesAside | undefined;
  return {
    engine: 'sqlite',
    where: path,
    async read(spec, columns, after) {
      const name = getTableName(spec.table);
      const keys = spec.key.join(', ');
      const cond = after ? `WHERE (${keys}) > (${spec.key.map(() => '?').join(', ')})` : '';
      const rows = sqlite.prepare(`SELECT ${columns.map((c) => c.name).join(', ')} FROM ${name} ${cond} ORDER BY ${keys} LIMIT ${spec.batch ?? BATCH}`).all(...(after ?? [])) as Row[];
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
    begin: async () => {
      sqlite.exec('BEGIN IMMEDIATE');
      // The full-text indexes are built once at the end (reindex), inside this transaction.
      aside = setIndexesAside(sqlite);
    },
    finish: async (done) => {
      if (sqlite.inTransaction) sqlite.exec(done ? 'COMMIT' : 'ROLLBACK');
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
      aside?.restore();
    },
    close: async () => db.close(),
  };
}

/**
 * Transcript search passages built from the words as they are copied (indexTranscript's rule: speaker
 * turns cut every PASSAGE_MAX_WORDS words), so they need not be read back; words arrive in
 * (transcript, idx) order, and a passage may span two batches.
 */
function passageBuilder() {
  const done = { ref: [] as string[], offset: [] as number[], speaker: [] as (string | null)[], text: [] as string[] };
  let open: { ref: string; offset: number; speaker: string | null; words: string[] } | undefined;
  const close = () => {
    if (!open) return;
    done.ref.push(open.ref);
    done.offset.push(open.offset);
    done.speaker.push(open.speaker);
    done.text.push(open.words.join(' '));
    open = undefined;
  };
  return {
    add(ref: string, text: string, idx: number, speaker: string | null) {
      if (open && (open.ref !== ref || open.speaker !== speaker || open.words.length >= PASSAGE_MAX_WORDS)) close();
      if (open) open.words.push(text);
      else open = { ref, offset: idx, speaker, words: [text] };
    },
    end: close,
    /** The passages closed so far, handed over once. */
    take() {
      const out = { ref: done.ref.splice(0), offset: done.offset.splice(0), speaker: done.speaker.splice(0), text: done.text.splice(0) };
      return out;
    },
  };
}

/** Column name -> its SQL type, for the array casts of a batch INSERT. */
type Query = <R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]) => Promise<QueryResult<R>>;

async function columnTypes(q: Query, table: string): Promise<Map<string, string>> {
  const r = await q<{ name: string; type: string }>(
    'SELECT attname AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped',
    [table],
  );
  return new Map(r.rows.map((c) => [c.name, c.type]));
}

/** The filter tags of migration 0007, the title grams of 0008, their words (0012) and pairs (0033) (both filled by triggers on meeting_grams): their keys and indexes are built at the end, after one fill each. */
const FILTER_TABLES = ['participant_words', 'meeting_tags', 'search_tags', 'meeting_grams', 'title_words', 'title_pairs'];
/** The insert triggers that keep them (set aside during the copy). */
const FILTER_TRIGGERS = [
  ['meetings', 'meetings_tags_ai'],
  ['participants', 'participants_tags_ai'],
  ['search_passages', 'search_passages_tags_ai'],
  ['meeting_tags', 'meeting_tags_search_ai'],
  ['meetings', 'meetings_grams_ai'],
  // The bitmaps' stale marks (migration 0013): none to make in an empty target (the worker builds the bitmaps after).
  ['search_tags', 'search_tags_bitmaps_ai'],
] as const;
/** search_postings' insert triggers set aside while its rows are written in one statement at the end: the words' counts (0010), the bitmaps' marks (0013). */
const POSTINGS_TRIGGERS = ['search_postings_counts_ai', 'search_postings_bitmaps_ai'];
/** Their fill, the same statements as the migration's backfill. */
const FILTER_FILL = [
  'INSERT INTO participant_words (word) SELECT DISTINCT w.word FROM participants p CROSS JOIN LATERAL syntheo_participant_words_of(p.name, p.email) w(word)',
  'INSERT INTO meeting_tags (tag, started_at, meeting_id) SELECT tag, started_at, meeting_id FROM meeting_tag_rows',
  // The participants' grams' bits (migration 0023), from the names' and e-mails' bits the insert above wrote.
  'SELECT syntheo_fill_people_gram_bits()',
  'INSERT INTO search_tags (tag, passage_id) SELECT t.tag, p.id FROM meeting_tags t JOIN search_passages p ON p.meeting_id = t.meeting_id',
  'INSERT INTO meeting_grams (tag, started_at, meeting_id) SELECT tag, started_at, meeting_id FROM meeting_gram_rows',
];

async function postgresSide(url: string, create: boolean, onSchema?: OnSchemaNotice): Promise<Side> {
  const db: PgDb = await openPostgres(url, { create, max: 2, ...(onSchema && { onSchema }) });
  /** The copy's one transaction (begin() to finish()); reads of the source-side run on the pool. */
  let tx: PoolClient | undefined;
  const q: Query = (text, values) => (tx ?? db.pool).query(text, values);
  const typesByTable: Record<string, Map<string, string>> = {};
  /** The statements that put back what begin() dropped, run by finish(). */
  const setAside: string[] = [];
  /** Whether search_postings is filled once at the end (its trigger set aside for the copy), not passage by passage. */
  let postingsAtEnd = false;
  /** Whether participant_words, meeting_tags and search_tags are filled once at the end (their triggers set aside). */
  let tagsAtEnd = false;
  const meetingOf = new Map<string, string>();
  const passages = passageBuilder();
  const insertPassages = async () => {
    const p = passages.take();
    if (p.ref.length === 0) return;
    await q(
      `INSERT INTO search_passages (meeting_id, kind, ref_id, word_offset, speaker, text)
       SELECT m, 'transcript', r, o, s, t FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[]) AS u(m, r, o, s, t)`,
      [p.ref.map((r) => meetingOf.get(r)!), p.ref, p.offset, p.speaker, p.text],
    );
  };
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
      return (await db.pool.query<Row>(`SELECT ${columns.map((c) => c.name).join(', ')} FROM ${name} ${cond} ORDER BY ${keys} LIMIT ${spec.batch ?? BATCH}`, after ?? [])).rows;
    }),
    isEmpty: guarded(async () => {
      const r = await db.pool.query<{ any: boolean }>(`SELECT ${DATA_TABLES.map((t) => `EXISTS (SELECT 1 FROM ${t})`).join(' OR ')} AS any`);
      return !r.rows[0]!.any;
    }),
    begin: guarded(async () => {
      tx = await db.pool.connect();
      await tx.query('BEGIN');
      // Secondary indexes (search words, title and name fragments), foreign keys and the words' primary
      // key are built and checked once at the end: far cheaper than row by row (a foreign key check
      // cost a third of a word's insert). Other keys and unique indexes stay (triggers look rows up by them).
      const tables = [...TABLES.map((t) => getTableName(t.table)), 'search_passages', ...FILTER_TABLES];
      const keyAtEnd = [...TABLES.filter((t) => t.keyAtEnd).map((t) => getTableName(t.table)), 'search_postings', ...FILTER_TABLES];
      // Keys first in what is put back: foreign keys need them.
      const found = await q<{ drop: string; add: string }>(
        `SELECT format('ALTER TABLE %s DROP CONSTRAINT %I', conrelid::regclass, conname) AS drop,
                format('ALTER TABLE %s ADD CONSTRAINT %I %s', conrelid::regclass, conname, pg_get_constraintdef(oid)) AS add
         FROM pg_constraint WHERE contype = 'p' AND connamespace = current_schema()::regnamespace AND conrelid::regclass::text = ANY($2)
         UNION ALL
         SELECT format('ALTER TABLE %s DROP CONSTRAINT %I', conrelid::regclass, conname) AS drop,
                format('ALTER TABLE %s ADD CONSTRAINT %I %s', conrelid::regclass, conname, pg_get_constraintdef(oid)) AS add
         FROM pg_constraint WHERE contype = 'f' AND connamespace = current_schema()::regnamespace AND conrelid::regclass::text = ANY($1)
         UNION ALL
         SELECT format('DROP INDEX %s', i.indexrelid::regclass), replace(pg_get_indexdef(i.indexrelid), 'CREATE INDEX ', 'CREATE INDEX IF NOT EXISTS ')
         FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
         WHERE c.relnamespace = current_schema()::regnamespace AND c.relname = ANY($1) AND NOT i.indisprimary AND NOT i.indisunique`,
        [tables, keyAtEnd],
      );
      for (const r of found.rows) {
        // A role that may write but does not own the tables keeps them (a slower copy); the savepoint
        // keeps the refusal from aborting the copy's transaction.
        await q('SAVEPOINT set_aside');
        const dropped = await q(r.drop).then(() => true, () => false);
        await q(dropped ? 'RELEASE SAVEPOINT set_aside' : 'ROLLBACK TO SAVEPOINT set_aside');
        if (dropped) setAside.push(r.add);
      }
      // search_postings (migration 0004) is filled from all passages in one statement by finish(), not by
      // its trigger batch by batch. Disabled inside the copy's transaction: a rolled-back copy enables it again.
      await q('SAVEPOINT set_aside');
      // The words' counts (migration 0010) with it: counted once from all postings, not from that statement's 10M rows.
      // And the bitmaps' stale marks (migration 0013): an empty target has no bitmap to mark, but the trigger's
      // transition table would hold all 10M rows.
      postingsAtEnd = await q(`ALTER TABLE search_passages DISABLE TRIGGER search_passages_postings_ai; ALTER TABLE search_postings DISABLE TRIGGER ${POSTINGS_TRIGGERS.join(', DISABLE TRIGGER ')}`).then(
        () => true,
        () => false,
      );
      await q(postingsAtEnd ? 'RELEASE SAVEPOINT set_aside' : 'ROLLBACK TO SAVEPOINT set_aside');
      // The filter tags (migration 0007) likewise: filled once by finish() when all their insert triggers are set aside.
      await q('SAVEPOINT set_aside');
      tagsAtEnd = await q(FILTER_TRIGGERS.map(([table, name]) => `ALTER TABLE ${table} DISABLE TRIGGER ${name}`).join('; ')).then(() => true, () => false);
      await q(tagsAtEnd ? 'RELEASE SAVEPOINT set_aside' : 'ROLLBACK TO SAVEPOINT set_aside');
    }),
    write: guarded(async (spec, columns, rows) => {
      const name = getTableName(spec.table);
      const types = (typesByTable[name] ??= await columnTypes(q, name));
      // One statement per batch, one array parameter per column: PostgreSQL casts each from text.
      const values = columns.map((c) =>
        rows.map((r) => {
          const v = spec.reset && c.name in spec.reset ? spec.reset[c.name] : r[c.name];
          if (v === null || v === undefined) return null;
          if (c.kind === 'json') return JSON.stringify(v);
          return String(v);
        }),
      );
      const list = columns.map((c) => c.name).join(', ');
      const arrays = columns.map((c, i) => `$${i + 1}::${types.get(c.name)}[]`).join(', ');
      await q(`INSERT INTO ${name} (${list}) SELECT * FROM unnest(${arrays})`, values);
      if (name === 'transcripts') for (const r of rows) meetingOf.set(r.id as string, r.meeting_id as string);
      if (name === 'transcript_words') {
        for (const r of rows) passages.add(r.transcript_id as string, r.text as string, r.idx as number, r.speaker as string | null);
        await insertPassages();
      }
    }),
    reindex: guarded(async () => {
      passages.end();
      await insertPassages();
    }),
    finish: guarded(async (done) => {
      const client = tx;
      tx = undefined;
      if (client === undefined) return;
      // A connection that failed its ROLLBACK is destroyed, not returned to the pool.
      let broken = false;
      try {
        if (done) {
          if (postingsAtEnd) {
            await client.query('INSERT INTO search_postings (lexeme, passage_id, n) SELECT u.lexeme, p.id, cardinality(u.positions) FROM search_passages p, unnest(p.words) u');
            // The words' counts (migration 0010) from all postings, as --repair-search computes them.
            await client.query('SELECT syntheo_repair_word_counts()');
            await client.query(`ALTER TABLE search_passages ENABLE TRIGGER search_passages_postings_ai; ALTER TABLE search_postings ENABLE TRIGGER ${POSTINGS_TRIGGERS.join(', ENABLE TRIGGER ')}`);
          }
          if (tagsAtEnd) {
            for (const fill of FILTER_FILL) await client.query(fill);
            await client.query(FILTER_TRIGGERS.map(([table, name]) => `ALTER TABLE ${table} ENABLE TRIGGER ${name}`).join('; '));
          }
          for (const def of setAside.splice(0)) await client.query(def);
          await client.query('COMMIT');
        } else {
          await client.query('ROLLBACK');
          return;
        }
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw error;
      } finally {
        client.release(broken);
      }
      // Fresh statistics (the planner otherwise plans for the empty tables it saw before the copy) and
      // the visibility map set: counts and pages are then index-only scans.
      await db.pool.query('VACUUM (FULL) folders'); // a few hundred rows, updated once per meeting by the count triggers
      await db.pool.query('VACUUM (ANALYZE)');
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

/**
 * A participant whose name or e-mail is longer than a load takes (MAX_PARTICIPANT_TEXT): PostgreSQL may not index it
 * (an entry of ~2,700 bytes or more), and the copy would fail on it with PostgreSQL's error code alone. Named first.
 * (Only a database written before loads took that bound can hold one.)
 */
function checkCopiedParticipant(r: Row, from: Side): void {
  for (const field of ['name', 'email'] as const) {
    const text = r[field];
    const length = typeof text === 'string' ? [...text].length : 0;
    if (length > MAX_PARTICIPANT_TEXT) {
      const db = `syntheo --db ${JSON.stringify(from.where)}`;
      throw new InvalidInputError(
        `Participant ${String(r.id)} of meeting ${String(r.meeting_id)} has ${field === 'name' ? 'a name' : 'an e-mail'} of ${length} characters; PostgreSQL may not index one longer than ${MAX_PARTICIPANT_TEXT} (a load takes at most that). Nothing was copied. Shorten it: ${db} meetings export ${String(r.meeting_id)} > meeting.json, edit its participants there, ${db} load meeting.json, then copy again.`,
      );
    }
  }
}

async function openSide(location: string, create: boolean, onSchema?: OnSchemaNotice): Promise<Side> {
  return isPostgresUrl(location) ? postgresSide(location, create, onSchema) : sqliteSide(location, create, onSchema);
}

/** Copies every table of `from` into the empty database `to` (created and migrated when missing). */
/** Progress of a copy: each table's rows copied so far, then the step that builds the target's derived data (no count). */
export type CopyProgress = (step: string, rows?: number) => void;

export async function copyDatabase(from: string, to: string, onProgress?: CopyProgress, onSchema?: OnSchemaNotice): Promise<CopyResult> {
  if (from === to) throw new InvalidInputError('--from and --to name the same database.');
  const source = await openSide(from, false, onSchema);
  let target: Side | undefined;
  try {
    target = await openSide(to, true, onSchema);
    if (!(await target.isEmpty()))
      throw new ConflictError(`The target database ${target.where} already holds data: db copy only fills an empty database (it never merges). Point --to at a new database.`);
    const tables: Record<string, number> = {};
    await target.begin();
    let done = false;
    try {
      for (const spec of TABLES) {
        const columns = columnsOf(spec.table);
        const name = getTableName(spec.table);
        const batch = spec.batch ?? BATCH;
        let after: unknown[] | undefined;
        let n = 0;
        // The write of one batch runs while the next is read.
        let writing: Promise<void> = Promise.resolve();
        try {
          for (;;) {
            const rows = await source.read(spec, columns, after);
            await writing;
            if (rows.length === 0) break;
            if (target.engine === 'postgres' && name === 'participants') for (const r of rows) checkCopiedParticipant(r, source);
            writing = target.write(spec, columns, rows);
            writing.catch(() => {}); // awaited below; a read failing meanwhile must not leave it unhandled
            n += rows.length;
            const last = rows.at(-1)!;
            after = spec.key.map((k) => last[k]);
            onProgress?.(name, n);
            if (rows.length < batch) break;
          }
        } finally {
          await writing;
        }
        tables[name] = n;
      }
      // Search passages of the transcripts, and a SQLite target's full-text indexes: minutes for millions of words.
      onProgress?.('search indexes');
      await target.reindex();
      done = true;
    } finally {
      await target.finish(done);
    }
    return { from: source.where, to: target.where, tables };
  } finally {
    await target?.close();
    await source.close();
  }
}
