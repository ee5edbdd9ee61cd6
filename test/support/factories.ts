// Factories over hand-written fixtures: each makes one row with sensible defaults, overridable.
import type { Sqlite } from '../../src/db/open.js';
import { newId } from '../../src/db/ids.js';
import { stmt } from '../../src/db/statements.js';
import { ensureFolderPath } from '../../src/db/queries/folders.js';
import { appendTranscriptWords, type NewWord } from '../../src/db/queries/transcripts.js';

let clock = Date.parse('2026-01-05T09:00:00.000Z');
const nextTime = () => new Date((clock += 3_600_000)).toISOString();

export interface MeetingOverrides {
  id?: string;
  title?: string;
  startedAt?: string;
  endedAt?: string | null;
  folderPath?: string | null;
  seriesId?: string | null;
  note?: string;
  speakers?: string[] | null;
  speakerContext?: string | null;
}

export function makeMeeting(sqlite: Sqlite, o: MeetingOverrides = {}): string {
  const id = o.id ?? newId('meeting');
  const startedAt = o.startedAt ?? nextTime();
  const folderId = o.folderPath ? ensureFolderPath(sqlite, o.folderPath).id : null;
  stmt(
    sqlite,
    `INSERT INTO meetings (id, title, started_at, ended_at, folder_id, series_id, note, speakers, speaker_context, source, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'user', ?, ?)`,
  ).run(
    id,
    o.title ?? `Meeting ${id.slice(-4)}`,
    startedAt,
    o.endedAt === undefined ? new Date(Date.parse(startedAt) + 1_800_000).toISOString() : o.endedAt,
    folderId,
    o.seriesId ?? null,
    o.note ?? '',
    o.speakers ? JSON.stringify(o.speakers) : null,
    o.speakerContext ?? null,
    startedAt,
    startedAt,
  );
  return id;
}

export function makeSeries(sqlite: Sqlite, o: { id?: string; title?: string; cadence?: string | null } = {}): string {
  const id = o.id ?? newId('series');
  stmt(sqlite, 'INSERT INTO series (id, title, cadence, created_at) VALUES (?, ?, ?, ?)').run(id, o.title ?? 'Weekly sync', o.cadence ?? 'weekly', nextTime());
  return id;
}

export function makeSummary(sqlite: Sqlite, meetingId: string, o: { id?: string; title?: string; content?: string; position?: number } = {}): string {
  const id = o.id ?? newId('summary');
  const now = new Date().toISOString();
  stmt(sqlite, 'INSERT INTO summaries (id, meeting_id, title, content, position, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
    .run(id, meetingId, o.title ?? 'Summary', o.content ?? '## Summary\n\n- Point one\n- Point two\n', o.position ?? 0, 'user', now, now);
  return id;
}

export function makeParticipant(sqlite: Sqlite, meetingId: string, o: { name?: string; email?: string | null; role?: string | null; position?: number } = {}): void {
  stmt(sqlite, 'INSERT INTO participants (id, meeting_id, name, email, role, position) VALUES (?, ?, ?, ?, ?, ?)')
    .run(newId('participant'), meetingId, o.name ?? 'Ada Lovelace', o.email ?? null, o.role ?? null, o.position ?? 0);
}

export function makeActionItem(sqlite: Sqlite, meetingId: string, o: { text?: string; assignee?: string | null; dueDate?: string | null; done?: boolean; position?: number } = {}): string {
  const id = newId('actionItem');
  stmt(sqlite, 'INSERT INTO action_items (id, meeting_id, text, assignee, due_date, done, position, source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
    .run(id, meetingId, o.text ?? 'Send the notes', o.assignee ?? null, o.dueDate ?? null, o.done ? 1 : 0, o.position ?? 0, 'user', new Date().toISOString());
  return id;
}

/** Words `w0 w1 ...` (or the given texts), 400 ms apart, speakers alternating every `turn` words. */
export function makeTranscript(sqlite: Sqlite, meetingId: string, o: { words?: number; texts?: string[]; speakers?: (string | null)[]; turn?: number } = {}): NewWord[] {
  const texts = o.texts ?? Array.from({ length: o.words ?? 50 }, (_, i) => `w${i}`);
  const speakers = o.speakers ?? ['Alice', 'Bob'];
  const turn = o.turn ?? 7;
  const words = texts.map((text, i) => ({ text, startMs: i * 400, endMs: i * 400 + 300, speaker: speakers[Math.floor(i / turn) % speakers.length] ?? null }));
  appendTranscriptWords(sqlite, meetingId, words, { source: 'user', language: 'en' });
  return words;
}
