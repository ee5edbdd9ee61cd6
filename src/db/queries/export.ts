import type { Sqlite } from '../open.js';
import { stmt } from '../statements.js';
import { newId } from '../ids.js';
import { isDeepStrictEqual } from 'node:util';
import { ConflictError, InvalidInputError } from '../../errors.js';
import { ensureFolderPath } from './folders.js';
import { readMeetingRecord } from './meetings.js';
import { indexTranscript } from './search.js';
import { EXPORT_FORMAT, type ExportSegment, type ExportTranscript, type MeetingExport } from './types.js';
import { checkParticipants, idTakenError, recordIds, shownId, toSegments, type WordTuple } from '../model/export.js';

// Pure helpers live in src/db/model/export.ts; re-exported for the callers that import them from here.
export { SEGMENT_MAX_WORDS, shownId, toSegments, type WordTuple } from '../model/export.js';

/** The full record of export_meeting and `syntheo meetings export`: what `syntheo load` restores. */
export function exportMeetingOrThrow(sqlite: Sqlite, id: string): MeetingExport {
  const record = readMeetingRecord(sqlite, id);
  const transcripts = stmt<Omit<ExportTranscript, 'segments'>>(
    sqlite,
    'SELECT id, language, source, word_count, timing FROM transcripts WHERE meeting_id = ?',
  )
    .all(id)
    .map((t): ExportTranscript => ({ ...t, segments: transcriptSegments(sqlite, t.id) }));
  return { format: EXPORT_FORMAT, ...record, transcripts };
}

/** A transcript's segments, straight from the rows in word order (no intermediate array of 30,000 rows). */
export function transcriptSegments(sqlite: Sqlite, transcriptId: string): ExportSegment[] {
  return toSegments(stmt(sqlite, 'SELECT idx, text, start_ms, end_ms, speaker FROM transcript_words WHERE transcript_id = ? ORDER BY idx').raw().iterate(transcriptId) as Iterable<WordTuple>);
}

/** What a load did, meeting by meeting: each meeting is restored whole or not at all. */
export interface LoadResult {
  /** Restored (new, or replacing the database's version). */
  meetings: { id: string; title: string; words: number }[];
  /** Already in the database exactly as in the file: nothing written. */
  skipped: { id: string; title: string; reason: string }[];
  /** Not restored, with the reason; the others were. `record` counts from 1 in file order. */
  failed: { record: number; id: string | null; error: string }[];
}

/** Checks one item of an export file; the CLI passes one derived from the tools' output schemas. */
export type RecordCheck = (item: unknown, record: number) => { ok: true; record: MeetingExport } | { ok: false; error: string };

export interface LoadOptions {
  source?: 'load' | 'demo';
  /** Without it, items are trusted to be MeetingExport records (the demo's own data). */
  check?: RecordCheck;
}

// One write transaction holds meetings for at most this long, then lets other writers in: SQLite's
// busy handler retries at most every 100 ms, so the pause between transactions is longer than that.
export const LOAD_BATCH_MS = 200;
export const LOAD_PAUSE_MS = 120;

const MEETING_ID = /^mtg_[A-Za-z0-9_-]{1,64}$/;

/**
 * Restores exported meetings (one record, an array, `{ "meetings": [...] }` or the `--json` envelope of
 * `syntheo meetings export`) with their ids, folders and series. Each meeting is written all or nothing,
 * in short transactions so that other processes can write in between; a meeting that exists is
 * replaced, one identical to the file's is skipped. A record that fails (invalid, or clashing with
 * another meeting's rows) is reported and the others are restored. A database failure stops the load.
 */
export async function loadMeetings(sqlite: Sqlite, input: unknown, options: LoadOptions = {}): Promise<LoadResult> {
  const items = exportItems(input);
  const source = options.source ?? 'load';
  const out: LoadResult = { meetings: [], skipped: [], failed: [] };
  const seen = new Map<string, number>();
  const pending: { n: number; record: MeetingExport }[] = [];
  items.forEach((item, i) => {
    const n = i + 1;
    const checked = options.check ? options.check(item, n) : { ok: true as const, record: item as MeetingExport };
    if (!checked.ok) return out.failed.push({ record: n, id: idOf(item), error: checked.error });
    const record = checked.record;
    if (!MEETING_ID.test(record.id))
      return out.failed.push({ record: n, id: record.id, error: `Record ${n}: id: a meeting ID is mtg_ followed by 1 to 64 letters, digits, _ or - (got ${shownId(record.id)}).` });
    const first = seen.get(record.id);
    if (first !== undefined) return out.failed.push({ record: n, id: record.id, error: `Meeting ${record.id} (record ${n}) is already record ${first} of this file; only the first was restored.` });
    seen.set(record.id, n);
    return pending.push({ n, record });
  });
  const { setTimeout: sleep } = await import('node:timers/promises');
  let next = 0;
  while (next < pending.length) {
    if (next > 0) await sleep(LOAD_PAUSE_MS);
    const started = performance.now();
    sqlite
      .transaction(() => {
        do {
          const { n, record } = pending[next++]!;
          try {
            // A savepoint per meeting: one that fails leaves no trace, the batch goes on.
            const done = sqlite.transaction(() => loadOne(sqlite, record, source))();
            if (done === 'unchanged') out.skipped.push({ id: record.id, title: record.title, reason: 'identical to the database' });
            else out.meetings.push(done);
          } catch (error) {
            if (!(error instanceof InvalidInputError || error instanceof ConflictError)) throw error;
            out.failed.push({ record: n, id: record.id, error: `Meeting ${record.id} (record ${n}): ${error.message}` });
          }
        } while (next < pending.length && performance.now() - started < LOAD_BATCH_MS);
      })
      .immediate();
  }
  out.failed.sort((x, y) => x.record - y.record);
  return out;
}

function idOf(item: unknown): string | null {
  return isObject(item) && typeof item.id === 'string' ? item.id : null;
}

/**
 * The records of an export file, in whatever shape Syntheo wrote it. Anything else is refused with a
 * message that says what the file is and what to load instead.
 */
export function exportItems(input: unknown): unknown[] {
  if (Array.isArray(input)) return input;
  if (!isObject(input)) throw new InvalidInputError(`The file holds a JSON ${input === null ? 'null' : typeof input}, not a Syntheo meeting export (${EXPORT_FORMAT}). Give a file written by \`syntheo meetings export\`.`);
  if (Array.isArray(input.meetings)) return input.meetings;
  // The --json envelope of the CLI, or an MCP tools/call result of export_meeting.
  if ('schema_version' in input) {
    if (isObject(input.error)) throw new InvalidInputError('The file holds an error report printed by syntheo, not a meeting export. Export the meetings again with `syntheo meetings export ID...`.');
    const data = input.data;
    if (input.command === 'meetings export' && isObject(data) && typeof data.path === 'string' && !('format' in data && data.format === EXPORT_FORMAT))
      throw new InvalidInputError(`The file holds the summary that \`syntheo --json meetings export --output\` printed, not the meetings: load the file it wrote, ${data.path}.`);
    if (Array.isArray(data)) return data;
    if (isObject(data) && data.format === EXPORT_FORMAT) return [data];
    const command = typeof input.command === 'string' ? `\`syntheo ${input.command}\`` : 'a syntheo command';
    throw new InvalidInputError(`The file holds the output of ${command}, not a meeting export. Write one with \`syntheo meetings export ID...\`.`);
  }
  if (isObject(input.structuredContent)) return [input.structuredContent];
  return [input];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const SOURCES = new Set(['user', 'import', 'llm', 'proposal', 'demo', 'load']);

/**
 * IDs of the record's summaries, action items and transcript that the database gives to another
 * meeting, or that the record uses twice: named here, before SQLite would refuse them without saying which.
 */
function checkIds(sqlite: Sqlite, r: MeetingExport): void {
  checkParticipants(r);
  for (const e of recordIds(r)) {
    const owner = stmt<{ meeting_id: string }>(sqlite, `SELECT meeting_id FROM ${e.table} WHERE id = ?`).get(e.id);
    if (owner && owner.meeting_id !== r.id) throw idTakenError(e, owner.meeting_id);
  }
}

function loadOne(sqlite: Sqlite, r: MeetingExport, source: 'load' | 'demo'): { id: string; title: string; words: number } | 'unchanged' {
  // An export older than the timing flag equals the database's record when the flag is the default.
  const same = { ...r, transcripts: r.transcripts.map((t) => ({ ...t, timing: t.timing ?? 'measured' })) };
  const exists = stmt(sqlite, 'SELECT 1 FROM meetings WHERE id = ?').get(r.id) !== undefined;
  if (exists && isDeepStrictEqual(exportMeetingOrThrow(sqlite, r.id), same)) return 'unchanged';
  checkIds(sqlite, r);
  const folderId = r.folder_path !== null ? ensureFolderPath(sqlite, r.folder_path).id : null;
  if (r.series)
    stmt(
      sqlite,
      `INSERT INTO series (id, title, cadence, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET title = excluded.title, cadence = excluded.cadence`,
    ).run(r.series.id, r.series.title, r.series.cadence, r.created_at);
  // An UPDATE or an INSERT, not an upsert: a statement's own ON CONFLICT clause overrides the conflict clauses of the
  // statements its triggers run, so the triggers' INSERT OR IGNORE (a passage already marked for the search bitmaps)
  // failed the load, and their INSERT OR REPLACE into a contentless FTS5 table (meeting_terms) kept the old row too.
  const columns = [r.title, r.started_at, r.ended_at, folderId, r.series?.id ?? null, r.note, r.speakers ? JSON.stringify(r.speakers) : null, r.speaker_context ?? null];
  if (exists)
    stmt(
      sqlite,
      `UPDATE meetings SET title = ?, started_at = ?, ended_at = ?, folder_id = ?, series_id = ?, note = ?, speakers = ?, speaker_context = ?,
         created_at = ?, updated_at = ? WHERE id = ?`,
    ).run(...columns, r.created_at, r.updated_at, r.id);
  else
    stmt(
      sqlite,
      `INSERT INTO meetings (title, started_at, ended_at, folder_id, series_id, note, speakers, speaker_context, id, source, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(...columns, r.id, source, r.created_at, r.updated_at);
  for (const table of ['summaries', 'participants', 'action_items', 'transcripts']) stmt(sqlite, `DELETE FROM ${table} WHERE meeting_id = ?`).run(r.id);
  r.summaries.forEach((s, position) =>
    stmt(sqlite, "INSERT INTO summaries (id, meeting_id, title, content, position, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)").run(
      s.id,
      r.id,
      s.title,
      s.content,
      position,
      source,
      s.created_at,
      s.updated_at,
    ),
  );
  r.participants.forEach((p, position) =>
    stmt(sqlite, 'INSERT INTO participants (id, meeting_id, name, email, role, position) VALUES (?, ?, ?, ?, ?, ?)').run(
      newId('participant'),
      r.id,
      p.name,
      p.email,
      p.role,
      position,
    ),
  );
  r.action_items.forEach((a, position) =>
    stmt(
      sqlite,
      "INSERT INTO action_items (id, meeting_id, text, assignee, due_date, done, position, source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ).run(a.id, r.id, a.text, a.assignee, a.due_date, a.done ? 1 : 0, position, source, r.created_at),
  );
  let words = 0;
  for (const t of r.transcripts) {
    stmt(sqlite, 'INSERT INTO transcripts (id, meeting_id, language, source, timing, word_count, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)').run(
      t.id,
      r.id,
      t.language,
      SOURCES.has(t.source) ? t.source : source,
      t.timing ?? 'measured',
      r.created_at,
      r.updated_at,
    );
    const insert = stmt(sqlite, 'INSERT INTO transcript_words (transcript_id, idx, text, start_ms, end_ms, speaker) VALUES (?, ?, ?, ?, ?, ?)');
    let idx = 0;
    t.segments.forEach((segment, n) => {
      const texts = segment.text === '' ? [] : segment.text.split(' ');
      if (texts.length !== segment.times.length || texts.some((w) => w === ''))
        throw new InvalidInputError(
          `transcript ${shownId(t.id)}, segment ${n + 1}: ${texts.length} words but ${segment.times.length} times. Words are separated by single spaces, one [start_ms, end_ms] each.`,
        );
      texts.forEach((text, i) => insert.run(t.id, idx++, text, segment.times[i]![0], segment.times[i]![1], segment.speaker));
    });
    stmt(sqlite, 'UPDATE transcripts SET word_count = ? WHERE id = ?').run(idx, t.id);
    indexTranscript(sqlite, t.id, r.id);
    words += idx;
  }
  return { id: r.id, title: r.title, words };
}
