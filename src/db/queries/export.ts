import type { Sqlite } from '../open.js';
import { stmt } from '../statements.js';
import { newId } from '../ids.js';
import { InvalidInputError } from '../../errors.js';
import { ensureFolderPath } from './folders.js';
import { readMeetingRecord } from './meetings.js';
import { indexTranscript } from './search.js';
import { EXPORT_FORMAT, type ExportSegment, type ExportTranscript, type MeetingExport } from './types.js';

/** A segment ends where the speaker changes, or after this many words, so exports stay readable. */
export const SEGMENT_MAX_WORDS = 100;

/** The full record of export_meeting and `syntheo meetings export`: what `syntheo load` restores. */
export function exportMeetingOrThrow(sqlite: Sqlite, id: string): MeetingExport {
  const record = readMeetingRecord(sqlite, id);
  const transcripts = stmt<{ id: string; language: string | null; source: string; word_count: number }>(
    sqlite,
    'SELECT id, language, source, word_count FROM transcripts WHERE meeting_id = ?',
  )
    .all(id)
    .map((t): ExportTranscript => ({ ...t, segments: transcriptSegments(sqlite, t.id) }));
  return { format: EXPORT_FORMAT, ...record, transcripts };
}

export type WordTuple = [idx: number, text: string, start_ms: number | null, end_ms: number | null, speaker: string | null];

/** A transcript's segments, straight from the rows in word order (no intermediate array of 30,000 rows). */
export function transcriptSegments(sqlite: Sqlite, transcriptId: string): ExportSegment[] {
  return toSegments(stmt(sqlite, 'SELECT idx, text, start_ms, end_ms, speaker FROM transcript_words WHERE transcript_id = ? ORDER BY idx').raw().iterate(transcriptId) as Iterable<WordTuple>);
}

/** Speaker turns of at most SEGMENT_MAX_WORDS words; load() turns them back into the same word rows. */
export function toSegments(words: Iterable<WordTuple>): ExportSegment[] {
  const segments: ExportSegment[] = [];
  let current: ExportSegment | undefined;
  let count = 0;
  for (const [, text, start, end, speaker] of words) {
    if (!current || current.speaker !== speaker || count >= SEGMENT_MAX_WORDS) {
      current = { speaker, start_ms: start, end_ms: end, text, times: [[start, end]] };
      segments.push(current);
      count = 1;
    } else {
      current.text += ` ${text}`;
      current.times.push([start, end]);
      current.end_ms = end;
      count++;
    }
  }
  return segments;
}

export interface LoadResult {
  meetings: { id: string; title: string; words: number }[];
}

/**
 * Restores exported meetings (one record, an array, or `{ "meetings": [...] }`) with their ids, folders
 * and series, in one transaction. A meeting that exists is replaced, so loading twice changes nothing.
 */
export async function loadMeetings(sqlite: Sqlite, input: unknown, options: { source?: 'load' | 'demo' } = {}): Promise<LoadResult> {
  const records = await parseRecords(input);
  const source = options.source ?? 'load';
  return sqlite
    .transaction((): LoadResult => {
      const out: LoadResult = { meetings: [] };
      for (const record of records) out.meetings.push(loadOne(sqlite, record, source));
      return out;
    })
    .immediate();
}

async function parseRecords(input: unknown): Promise<MeetingExport[]> {
  const v = await import('valibot');
  const nullableString = v.nullable(v.string());
  const time = v.nullable(v.number());
  const Record = v.object({
    format: v.literal(EXPORT_FORMAT),
    id: v.pipe(v.string(), v.regex(/^mtg_[A-Za-z0-9_-]{1,64}$/)),
    title: v.string(),
    started_at: v.pipe(v.string(), v.isoTimestamp()),
    ended_at: v.nullable(v.pipe(v.string(), v.isoTimestamp())),
    folder_path: nullableString,
    series: v.nullable(v.object({ id: v.pipe(v.string(), v.startsWith('ser_')), title: v.string(), cadence: nullableString })),
    note: v.string(),
    summaries: v.array(v.object({ id: v.pipe(v.string(), v.startsWith('sum_')), title: v.string(), content: v.string(), created_at: v.string(), updated_at: v.string() })),
    participants: v.array(v.object({ name: v.string(), email: nullableString, role: nullableString })),
    action_items: v.array(
      v.object({ id: v.pipe(v.string(), v.startsWith('act_')), text: v.string(), assignee: nullableString, due_date: nullableString, done: v.boolean() }),
    ),
    speakers: v.optional(v.array(v.string())),
    speaker_context: v.optional(v.string()),
    transcripts: v.array(
      v.object({
        id: v.string(),
        language: nullableString,
        source: v.string(),
        word_count: v.number(),
        segments: v.array(v.object({ speaker: nullableString, start_ms: time, end_ms: time, text: v.string(), times: v.array(v.tuple([time, time])) })),
      }),
    ),
    created_at: v.string(),
    updated_at: v.string(),
  });
  const list = Array.isArray(input) ? input : isObject(input) && Array.isArray(input.meetings) ? input.meetings : [input];
  return list.map((item: unknown, i: number) => {
    const result = v.safeParse(Record, item);
    if (!result.success) {
      const issue = result.issues[0];
      const where = issue.path?.map((p: { key: unknown }) => String(p.key)).join('.') ?? '';
      throw new InvalidInputError(`Record ${i + 1} is not a Syntheo meeting export (${EXPORT_FORMAT}): ${where ? `${where}: ` : ''}${issue.message}.`);
    }
    return result.output as MeetingExport;
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

const SOURCES = new Set(['user', 'import', 'llm', 'proposal', 'demo', 'load']);

function loadOne(sqlite: Sqlite, r: MeetingExport, source: 'load' | 'demo'): { id: string; title: string; words: number } {
  const folderId = r.folder_path !== null ? ensureFolderPath(sqlite, r.folder_path).id : null;
  if (r.series)
    stmt(
      sqlite,
      `INSERT INTO series (id, title, cadence, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET title = excluded.title, cadence = excluded.cadence`,
    ).run(r.series.id, r.series.title, r.series.cadence, r.created_at);
  stmt(
    sqlite,
    `INSERT INTO meetings (id, title, started_at, ended_at, folder_id, series_id, note, speakers, speaker_context, source, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(id) DO UPDATE SET title = excluded.title, started_at = excluded.started_at, ended_at = excluded.ended_at,
       folder_id = excluded.folder_id, series_id = excluded.series_id, note = excluded.note, speakers = excluded.speakers,
       speaker_context = excluded.speaker_context, created_at = excluded.created_at, updated_at = excluded.updated_at`,
  ).run(
    r.id,
    r.title,
    r.started_at,
    r.ended_at,
    folderId,
    r.series?.id ?? null,
    r.note,
    r.speakers ? JSON.stringify(r.speakers) : null,
    r.speaker_context ?? null,
    source,
    r.created_at,
    r.updated_at,
  );
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
    stmt(sqlite, 'INSERT INTO transcripts (id, meeting_id, language, source, word_count, created_at, updated_at) VALUES (?, ?, ?, ?, 0, ?, ?)').run(
      t.id,
      r.id,
      t.language,
      SOURCES.has(t.source) ? t.source : source,
      r.created_at,
      r.updated_at,
    );
    const insert = stmt(sqlite, 'INSERT INTO transcript_words (transcript_id, idx, text, start_ms, end_ms, speaker) VALUES (?, ?, ?, ?, ?, ?)');
    let idx = 0;
    t.segments.forEach((segment, n) => {
      const texts = segment.text === '' ? [] : segment.text.split(' ');
      if (texts.length !== segment.times.length || texts.some((w) => w === ''))
        throw new InvalidInputError(
          `Meeting ${r.id}, transcript ${t.id}, segment ${n + 1}: ${texts.length} words but ${segment.times.length} times. Words are separated by single spaces, one [start_ms, end_ms] each.`,
        );
      texts.forEach((text, i) => insert.run(t.id, idx++, text, segment.times[i]![0], segment.times[i]![1], segment.speaker));
    });
    stmt(sqlite, 'UPDATE transcripts SET word_count = ? WHERE id = ?').run(idx, t.id);
    indexTranscript(sqlite, t.id, r.id);
    words += idx;
  }
  return { id: r.id, title: r.title, words };
}
