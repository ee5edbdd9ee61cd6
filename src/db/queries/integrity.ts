// What `syntheo doctor` checks beyond "the file opens": SQLite's own consistency check (which, since
// SQLite 3.44, also reads the FTS5 indexes), the schema against a freshly migrated one, and the search
// index against the rows it indexes. And the repair of the search index, which is derived data.
import type { Sqlite } from '../open.js';
import { openDatabase } from '../open.js';
import { stmt } from '../statements.js';
import { indexTranscript } from './search.js';
import { fillListIndexes } from './list-index.js';
import { recountWords } from './bulk-index.js';
import { resetSearchBits, wrongSearchBits } from './search-bits.js';
import { wrongMeetingBits } from './meeting-bits.js';
import { FTS_INDEXES } from './fts-upkeep.js';

/** The FTS5 tables and the table of passages the search index is built from. */
const FTS_TABLES = [...FTS_INDEXES, 'search_words_scratch'] as const;
// meeting_tags is derived from meetings.search_tags, which the view meeting_search_tags computes; the
// views meeting_next_key and meeting_list_terms give a meeting's key and its meeting_terms row.
// search_word_counts (0013) counts the passages saying each word: search_vocab reads search_fts's words,
// search_scratch_vocab those of the one passage its triggers tokenise.
const SEARCH_TABLES: readonly string[] = [
  'search_passages',
  'meeting_tags',
  'meeting_keys',
  'meeting_search_tags',
  'meeting_next_key',
  'meeting_list_terms',
  'search_word_counts',
  'search_vocab',
  'search_scratch_vocab',
  'search_bits',
  'search_cells',
  'search_lists',
  'search_said',
  'search_bits_terms',
  'search_bits_dirty',
  'search_bits_state',
  'meeting_bits',
  'meeting_bits_keys',
  'meeting_bits_terms',
  'meeting_bits_gens',
  'meeting_bits_changed',
  'meeting_bits_state',
  'participant_handles',
  'title_words',
  'meeting_title_words',
  ...FTS_TABLES,
];

/** A participant's name or e-mail missing from participant_handles (a meeting the participant filter would not find). */
const MISSING_HANDLE = `SELECT 1 FROM participants p WHERE NOT EXISTS (SELECT 1 FROM participant_handles h WHERE h.handle = p.name)
  OR (p.email IS NOT NULL AND NOT EXISTS (SELECT 1 FROM participant_handles h WHERE h.handle = p.email)) LIMIT 1`;

/**
 * A meeting whose stored tags are not the ones the view computes: a REPLACE that moved a participant to another meeting
 * (SQLite runs no delete trigger for a REPLACE's deletion), or a trigger dropped by hand. One view evaluation a meeting
 * (~60 µs): checked with the full check only (files up to 256 MiB: ~15k meetings, ~1 s).
 */
const STALE_TAGS = 'SELECT 1 FROM meetings m WHERE m.search_tags IS NOT (SELECT tags FROM meeting_search_tags v WHERE v.meeting_id = m.id) LIMIT 1';

/** Meetings whose meeting_tags rows are compared with their stored tags by the quick check, newest first (as on PostgreSQL). */
export const TAG_ROWS_SAMPLE = 500;

/**
 * meeting_tags rows that are no tag of their meeting's stored tags, plus a meeting's tags without their row: for the
 * newest TAG_ROWS_SAMPLE meetings, or with `every` for every meeting and row (rows left by a deleted meeting included).
 * A row deleted or written by hand, or a trigger dropped: the filters that read it (list_meetings driven by one tag or
 * probing tags, the dates of search_transcripts) then miss a meeting or take one they should not, silently.
 * CROSS JOIN: the sample's rows found by meeting; else SQLite scanned the whole table (100k meetings: 850 ms, 25 ms
 * so). Every meeting: ~85 µs each (100k: 8.5 s), so with the full check only.
 */
function tagRowsDrift(sqlite: Sqlite, every: boolean): number {
  const meetings = `SELECT id, started_at, search_tags FROM meetings${every ? '' : ` ORDER BY started_at DESC LIMIT ${TAG_ROWS_SAMPLE}`}`;
  const rows = every ? 'SELECT tag, started_at, meeting_id FROM meeting_tags' : 'SELECT t.tag, t.started_at, t.meeting_id FROM m CROSS JOIN meeting_tags t ON t.meeting_id = m.id';
  // Tags are letters and digits (f, s, p, h, dates): the space-separated list made a JSON array as it is.
  const tags = `SELECT j.value AS tag, m.started_at, m.id AS meeting_id FROM m, json_each('["' || replace(m.search_tags, ' ', '","') || '"]') j WHERE j.value != ''`;
  return stmt<{ n: number }>(
    sqlite,
    `WITH m AS MATERIALIZED (${meetings}), tags AS (${tags}), rows AS (${rows})
     SELECT (SELECT count(*) FROM (SELECT * FROM tags EXCEPT SELECT * FROM rows)) + (SELECT count(*) FROM (SELECT * FROM rows EXCEPT SELECT * FROM tags)) AS n`,
  ).get()!.n;
}

/** The trigram indexes compared with their tables too (external content, a few thousand rows): 'integrity-check' with rank 1. */
const COMPARED_WITH_CONTENT: readonly string[] = ['search_fts', 'participant_words_fts', 'participant_handles_fts', 'title_words_fts'];

/** Words whose count of passages differs from search_fts's own, both ways (from its vocabulary: one walk of the index). */
export const WRONG_WORD_COUNTS = `SELECT
  (SELECT count(*) FROM (SELECT term, doc FROM search_vocab WHERE col = 'text' EXCEPT SELECT word, passages FROM search_word_counts)) +
  (SELECT count(*) FROM (SELECT word, passages FROM search_word_counts EXCEPT SELECT term, doc FROM search_vocab WHERE col = 'text')) AS n`;


/** Problems listed at most, so a badly damaged file gives a readable report. */
const MAX_PROBLEMS = 10;

export interface SchemaObject {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

export interface IntegrityReport {
  /** `quick_check` (every page and the FTS5 indexes, not index contents against rows) or `integrity_check`. */
  check: 'quick_check' | 'integrity_check';
  problems: string[];
  /** Tables, indexes and triggers of the migrated schema that the file lacks, as `type name`. */
  missing: string[];
  /** FTS5 tables whose index disagrees with what they index. */
  search: string[];
  /** Whether `repairSearchIndex` can fix everything that is wrong. */
  searchOnly: boolean;
}

function schemaObjects(sqlite: Sqlite): SchemaObject[] {
  return stmt<SchemaObject>(sqlite, "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all();
}

let reference: SchemaObject[] | undefined;
/** The schema the migrations make, read from a fresh in-memory database (a few ms, once). */
export function referenceSchema(): SchemaObject[] {
  if (!reference) {
    const db = openDatabase(':memory:', { create: true });
    try {
      reference = schemaObjects(db.sqlite);
    } finally {
      db.close();
    }
  }
  return reference;
}

function isSearchObject(o: SchemaObject): boolean {
  if (SEARCH_TABLES.includes(o.tbl_name) || FTS_TABLES.some((t) => o.name.startsWith(`${t}_`))) return true;
  // Triggers on meetings, summaries, participants and transcripts that feed the search tables.
  return o.type === 'trigger' && SEARCH_TABLES.some((t) => o.sql?.includes(t));
}

/**
 * Runs the checks. `full` uses `integrity_check` (also index contents against rows), which reads the
 * whole file; `quick_check` is the one for large files.
 */
export function checkIntegrity(sqlite: Sqlite, options: { full: boolean }): IntegrityReport {
  const check = options.full ? 'integrity_check' : 'quick_check';
  const present = new Set(schemaObjects(sqlite).map((o) => `${o.type} ${o.name}`));
  const rows = sqlite.transaction(() => {
    // SQLite's check of an FTS5 table walks the index structure this connection cached at its last read of
    // the table: on a long-lived connection, after another one merged segments, a sound index reads as
    // "fts5: corruption found reading blob". Opening a cursor reloads the structure when the file changed;
    // in one read transaction with the check, it stays current.
    for (const table of FTS_TABLES)
      if (present.has(`table ${table}`))
        try {
          stmt(sqlite, `SELECT rowid FROM ${table} LIMIT 1`).get();
        } catch {
          // A damaged table: the check below says how.
        }
    return sqlite.pragma(`${check}(${MAX_PROBLEMS})`) as Record<string, string>[];
  })();
  const problems = rows.map((r) => Object.values(r)[0]!).filter((p) => p !== 'ok');
  const absent = referenceSchema().filter((o) => !present.has(`${o.type} ${o.name}`));
  // An FTS5 table's shadow tables go with it: listed only when the table itself is there.
  const gone = new Set(absent.filter((o) => o.type === 'table').map((o) => o.name));
  const missing = absent.filter((o) => !(o.type === 'table' && FTS_TABLES.some((t) => gone.has(t) && o.name.startsWith(`${t}_`)))).map((o) => `${o.type} ${o.name}`);
  const search: string[] = [];
  for (const table of FTS_TABLES) {
    if (!present.has(`table ${table}`)) continue;
    try {
      // rank 1: also compare an external-content index with its content table.
      stmt(sqlite, `INSERT INTO ${table} (${table}, rank) VALUES ('integrity-check', ${COMPARED_WITH_CONTENT.includes(table) ? 1 : 0})`).run();
    } catch (error) {
      // Damaged, or what it indexes is missing (SQLITE_ERROR); a busy database is not a finding.
      const code = String((error as { code?: string }).code);
      if (!code.startsWith('SQLITE_') || code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) throw error;
      search.push(table);
    }
  }
  if (present.has('table search_word_counts') && present.has('table search_vocab') && !search.includes('search_fts'))
    if (stmt<{ n: number }>(sqlite, WRONG_WORD_COUNTS).get()!.n > 0) search.push('search_word_counts');
  if (present.has('table search_bits') && !search.includes('search_fts') && wrongSearchBits(sqlite).length > 0) search.push('search_bits');
  if (present.has('table meeting_bits') && !search.includes('meeting_terms') && wrongMeetingBits(sqlite).length > 0) search.push('meeting_bits');
  if (present.has('table participant_handles') && stmt(sqlite, MISSING_HANDLE).get() !== undefined) search.push('participant_handles');
  if (options.full && present.has('view meeting_search_tags') && stmt(sqlite, STALE_TAGS).get() !== undefined) search.push('meetings.search_tags');
  if (present.has('table meeting_tags') && tagRowsDrift(sqlite, options.full) > 0) search.push('meeting_tags');
  const searchProblem = (p: string) => /^fts5:/.test(p) || SEARCH_TABLES.some((t) => p.includes(`"${t}`) || p.includes(` ${t}`));
  const searchOnly = problems.every(searchProblem) && absent.every(isSearchObject);
  return { check, problems, missing, search, searchOnly };
}

export interface RepairResult {
  passages: number;
  meetings: number;
  participants: number;
  /** Search tables, indexes and triggers that were missing and were created again. */
  recreated: string[];
}

/**
 * Told as a repair of the search index goes (`syntheo doctor --repair-search` shows it): the step under way, by what it
 * goes through, and how many of them are done. Called at each step's start (`done` 0) and end (`done` = `total`).
 */
export type RepairProgress = (step: RepairStep, done: number, total: number) => void;
/** A repair's steps: each transcript's passages indexed; the meetings' filters (tags, title words); the counts and names kept from them. */
export type RepairStep = 'transcripts' | 'meetings' | 'counts';

/**
 * Rebuilds the search index from the meetings, summaries, notes, participants and transcripts, in one
 * transaction: the FTS5 tables are dropped and created again (a damaged one cannot be trusted even to
 * delete from), search objects missing from the schema are recreated from the migrated schema, and the
 * passages are written again. Nothing but search data changes.
 */
export function repairSearchIndex(sqlite: Sqlite, onProgress?: RepairProgress): RepairResult {
  const ref = referenceSchema().filter(isSearchObject);
  return sqlite
    .transaction((): RepairResult => {
      const current = schemaObjects(sqlite);
      const present = new Set(current.map((o) => `${o.type} ${o.name}`));
      // Dropped and created again: the FTS5 tables, and the triggers on the passages, so that emptying
      // the passages does not ask the fresh index to delete entries it never had (SQLITE_CORRUPT_VTAB).
      const dropped = new Set<string>();
      for (const table of FTS_TABLES)
        if (present.has(`table ${table}`)) {
          sqlite.exec(`DROP TABLE ${table}`);
          dropped.add(`table ${table}`);
        }
      // So are those on participant_handles, whose rows are set again below.
      for (const o of current)
        if (o.type === 'trigger' && (o.tbl_name === 'search_passages' || o.tbl_name === 'participant_handles')) {
          sqlite.exec(`DROP TRIGGER ${o.name}`);
          dropped.add(`trigger ${o.name}`);
        }
      if (present.has('table search_passages')) stmt(sqlite, 'DELETE FROM search_passages').run();
      // The participants' names and e-mails as they are now: those nobody carries any more go (writers only ever add
      // them), the missing ones come; their index is built at the end.
      if (present.has('table participant_handles'))
        stmt(sqlite, 'DELETE FROM participant_handles WHERE handle NOT IN (SELECT name FROM participants) AND handle NOT IN (SELECT email FROM participants WHERE email IS NOT NULL)').run();
      const recreated: string[] = [];
      // Tables first (shadow tables come with their FTS5 table), then the tags view, indexes and triggers.
      const order = ['table', 'view', 'index', 'trigger'];
      for (const o of [...ref].sort((x, y) => order.indexOf(x.type) - order.indexOf(y.type))) {
        const key = `${o.type} ${o.name}`;
        if (o.sql === null || (o.type === 'table' && FTS_TABLES.some((t) => o.name.startsWith(`${t}_`)))) continue;
        if (present.has(key) && !dropped.has(key)) continue;
        sqlite.exec(o.sql);
        if (!dropped.has(key)) recreated.push(key);
      }
      stmt(sqlite, "INSERT INTO participant_words_fts (participant_words_fts) VALUES ('rebuild')").run();
      // The missing names and e-mails, before the tags that name them (migration 0018) are computed.
      stmt(sqlite, 'INSERT OR IGNORE INTO participant_handles (handle) SELECT name FROM participants UNION SELECT email FROM participants WHERE email IS NOT NULL').run();
      // Every meeting's tags and meeting_tags rows computed again (the filters' indexes), before its passages are indexed with them.
      const meetingCount = onProgress ? stmt<{ n: number }>(sqlite, 'SELECT count(*) AS n FROM meetings').get()!.n : 0;
      onProgress?.('meetings', 0, meetingCount);
      stmt(sqlite, 'DELETE FROM meeting_tags').run();
      stmt(sqlite, "UPDATE meetings SET search_tags = ''").run();
      stmt(sqlite, 'UPDATE meetings SET folder_id = folder_id').run();
      stmt(
        sqlite,
        "INSERT INTO search_passages (meeting_id, kind, ref_id, text, tags) SELECT s.meeting_id, 'summary', s.id, s.title || char(10) || s.content, m.search_tags FROM summaries s JOIN meetings m ON m.id = s.meeting_id",
      ).run();
      stmt(sqlite, "INSERT INTO search_passages (meeting_id, kind, ref_id, text, tags) SELECT id, 'note', id, note, search_tags FROM meetings WHERE note != ''").run();
      onProgress?.('meetings', meetingCount, meetingCount);
      const transcripts = stmt<{ id: string; meeting_id: string }>(sqlite, 'SELECT id, meeting_id FROM transcripts').all();
      onProgress?.('transcripts', 0, transcripts.length);
      for (const [i, t] of transcripts.entries()) {
        indexTranscript(sqlite, t.id, t.meeting_id);
        onProgress?.('transcripts', i + 1, transcripts.length);
      }
      onProgress?.('counts', 0, 2);
      recountWords(sqlite);
      resetSearchBits(sqlite);
      onProgress?.('counts', 1, 2);
      const { meetings } = fillListIndexes(sqlite);
      stmt(sqlite, "INSERT INTO participant_handles_fts (participant_handles_fts) VALUES ('rebuild')").run();
      stmt(sqlite, "INSERT INTO title_words_fts (title_words_fts) VALUES ('rebuild')").run();
      onProgress?.('counts', 2, 2);
      const participants = stmt<{ n: number }>(sqlite, 'SELECT count(*) AS n FROM participants').get()!.n;
      const passages = stmt<{ n: number }>(sqlite, 'SELECT count(*) AS n FROM search_passages').get()!.n;
      return { passages, meetings, participants, recreated };
    })
    .immediate();
}
