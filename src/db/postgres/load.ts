import { isDeepStrictEqual } from 'node:util';
import type { Pool, PoolClient } from 'pg';
import { ConflictError, InvalidInputError } from '../../errors.js';
import { newId } from '../ids.js';
import { exportItems, shownId, type LoadOptions, type LoadResult } from '../queries/export.js';
import { checkParticipants, idTakenError, recordIds } from '../model/export.js';
import type { MeetingExport } from '../queries/types.js';
import { ensureFolderPathIn, exportMeetingOrThrow } from './meetings.js';
import { indexTranscript } from './transcripts.js';
import { one, transaction } from './sql.js';

// `syntheo load` on PostgreSQL: src/db/queries/export.ts's loadMeetings, one transaction per meeting
// (a meeting is restored whole or not at all; one that fails is reported, the others go on).

const MEETING_ID = /^mtg_[A-Za-z0-9_-]{1,64}$/;
const SOURCES = new Set(['user', 'import', 'llm', 'proposal', 'demo', 'load']);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export async function loadMeetings(pool: Pool, input: unknown, options: LoadOptions = {}): Promise<LoadResult> {
  const items = exportItems(input);
  const source = options.source ?? 'load';
  const out: LoadResult = { meetings: [], skipped: [], failed: [] };
  const seen = new Map<string, number>();
  for (const [i, item] of items.entries()) {
    const n = i + 1;
    const checked = options.check ? options.check(item, n) : { ok: true as const, record: item as MeetingExport };
    if (!checked.ok) {
      out.failed.push({ record: n, id: isObject(item) && typeof item.id === 'string' ? item.id : null, error: checked.error });
      continue;
    }
    const record = checked.record;
    if (!MEETING_ID.test(record.id)) {
      out.failed.push({ record: n, id: record.id, error: `Record ${n}: id: a meeting ID is mtg_ followed by 1 to 64 letters, digits, _ or - (got ${shownId(record.id)}).` });
      continue;
    }
    const first = seen.get(record.id);
    if (first !== undefined) {
      out.failed.push({ record: n, id: record.id, error: `Meeting ${record.id} (record ${n}) is already record ${first} of this file; only the first was restored.` });
      continue;
    }
    seen.set(record.id, n);
    try {
      const done = await transaction(pool, (c) => loadOne(c, record, source));
      if (done === 'unchanged') out.skipped.push({ id: record.id, title: record.title, reason: 'identical to the database' });
      else out.meetings.push(done);
    } catch (error) {
      if (!(error instanceof InvalidInputError || error instanceof ConflictError)) throw error;
      out.failed.push({ record: n, id: record.id, error: `Meeting ${record.id} (record ${n}): ${error.message}` });
    }
  }
  out.failed.sort((x, y) => x.record - y.record);
  return out;
}

async function checkIds(c: PoolClient, r: MeetingExport): Promise<void> {
  checkParticipants(r);
  for (const e of recordIds(r)) {
    const owner = await one<{ meeting_id: string }>(c, `SELECT meeting_id FROM ${e.table} WHERE id = $1`, [e.id]);
    if (owner && owner.meeting_id !== r.id) throw idTakenError(e, owner.meeting_id);
  }
}

async function loadOne(c: PoolClient, r: MeetingExport, source: 'load' | 'demo'): Promise<{ id: string; title: string; words: number } | 'unchanged'> {
  const same = { ...r, transcripts: r.transcripts.map((t) => ({ ...t, timing: t.timing ?? 'measured' })) };
  // Serialises two loads of the same meeting.
  await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`syntheo-load:${r.id}`]);
  if ((await one(c, 'SELECT 1 FROM meetings WHERE id = $1', [r.id])) && isDeepStrictEqual(await exportMeetingOrThrow(c, r.id), same)) return 'unchanged';
  await checkIds(c, r);
  const folderId = r.folder_path !== null ? (await ensureFolderPathIn(c, r.folder_path)).id : null;
  if (r.series)
    await c.query('INSERT INTO series (id, title, cadence, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO UPDATE SET title = excluded.title, cadence = excluded.cadence', [
      r.series.id,
      r.series.title,
      r.series.cadence,
      r.created_at,
    ]);
  await c.query(
    `INSERT INTO meetings (id, title, started_at, ended_at, folder_id, series_id, note, speakers, speaker_context, source, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12)
     ON CONFLICT (id) DO UPDATE SET title = excluded.title, started_at = excluded.started_at, ended_at = excluded.ended_at,
       folder_id = excluded.folder_id, series_id = excluded.series_id, note = excluded.note, speakers = excluded.speakers,
       speaker_context = excluded.speaker_context, created_at = excluded.created_at, updated_at = excluded.updated_at`,
    [r.id, r.title, r.started_at, r.ended_at, folderId, r.series?.id ?? null, r.note, r.speakers ? JSON.stringify(r.speakers) : null, r.speaker_context ?? null, source, r.created_at, r.updated_at],
  );
  for (const table of ['summaries', 'participants', 'action_items', 'transcripts']) await c.query(`DELETE FROM ${table} WHERE meeting_id = $1`, [r.id]);
  for (const [position, s] of r.summaries.entries())
    await c.query('INSERT INTO summaries (id, meeting_id, title, content, position, source, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
      s.id,
      r.id,
      s.title,
      s.content,
      position,
      source,
      s.created_at,
      s.updated_at,
    ]);
  for (const [position, p] of r.participants.entries())
    await c.query('INSERT INTO participants (id, meeting_id, name, email, role, position) VALUES ($1, $2, $3, $4, $5, $6)', [newId('participant'), r.id, p.name, p.email, p.role, position]);
  for (const [position, a] of r.action_items.entries())
    await c.query('INSERT INTO action_items (id, meeting_id, text, assignee, due_date, done, position, source, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)', [
      a.id,
      r.id,
      a.text,
      a.assignee,
      a.due_date,
      a.done,
      position,
      source,
      r.created_at,
    ]);
  let words = 0;
  for (const t of r.transcripts) {
    await c.query('INSERT INTO transcripts (id, meeting_id, language, source, timing, word_count, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, 0, $6, $7)', [
      t.id,
      r.id,
      t.language,
      SOURCES.has(t.source) ? t.source : source,
      t.timing ?? 'measured',
      r.created_at,
      r.updated_at,
    ]);
    const idx: number[] = [];
    const texts: string[] = [];
    const starts: (number | null)[] = [];
    const ends: (number | null)[] = [];
    const speakers: (string | null)[] = [];
    for (const [n, segment] of t.segments.entries()) {
      const parts = segment.text === '' ? [] : segment.text.split(' ');
      if (parts.length !== segment.times.length || parts.some((w) => w === ''))
        throw new InvalidInputError(
          `transcript ${shownId(t.id)}, segment ${n + 1}: ${parts.length} words but ${segment.times.length} times. Words are separated by single spaces, one [start_ms, end_ms] each.`,
        );
      for (const [i, text] of parts.entries()) {
        idx.push(idx.length);
        texts.push(text);
        starts.push(segment.times[i]![0]);
        ends.push(segment.times[i]![1]);
        speakers.push(segment.speaker);
      }
    }
    for (let i = 0; i < idx.length; i += 5_000)
      await c.query('INSERT INTO transcript_words (transcript_id, idx, text, start_ms, end_ms, speaker) SELECT $1, * FROM unnest($2::int[], $3::text[], $4::int[], $5::int[], $6::text[])', [
        t.id,
        idx.slice(i, i + 5_000),
        texts.slice(i, i + 5_000),
        starts.slice(i, i + 5_000),
        ends.slice(i, i + 5_000),
        speakers.slice(i, i + 5_000),
      ]);
    await c.query('UPDATE transcripts SET word_count = $1 WHERE id = $2', [idx.length, t.id]);
    await indexTranscript(c, t.id, r.id);
    words += idx.length;
  }
  return { id: r.id, title: r.title, words };
}
