import type { Sqlite } from '../open.js';
import { stmt } from '../statements.js';
import { newId } from '../ids.js';
import { nowIso } from '../time.js';
import type { ContentSource, TranscriptTiming } from '../schema/enums.js';
import { assertMeetingExists } from './meetings.js';
import { pagination } from './pagination.js';
import { indexTranscript } from './search.js';
import { transcriptPageOf, type NewWord } from '../model/transcripts.js';
import type { Page, TranscriptPage, TranscriptTurn, TranscriptWord } from './types.js';

type WordTuple = [idx: number, text: string, start_ms: number | null, end_ms: number | null, speaker: string | null];

/**
 * A page of the transcript: `text` one line per speaker turn with its start time; `words` one
 * {index, text, start_ms, end_ms, speaker} per word, or with `wordTimings: false` one [offset,
 * start_ms] per line of text (what a model needs, at a twelfth of the tokens).
 */
export function getTranscriptPageOrThrow(sqlite: Sqlite, meetingId: string, page: Page, options?: { wordTimings: true }): TranscriptPage;
export function getTranscriptPageOrThrow(sqlite: Sqlite, meetingId: string, page: Page, options: { wordTimings: boolean }): TranscriptPage | TranscriptPage<TranscriptTurn>;
export function getTranscriptPageOrThrow(sqlite: Sqlite, meetingId: string, page: Page, options = { wordTimings: true }): TranscriptPage | TranscriptPage<TranscriptTurn> {
  const transcript = stmt<{ id: string; word_count: number; timing: TranscriptTiming }>(sqlite, 'SELECT id, word_count, timing FROM transcripts WHERE meeting_id = ?').get(meetingId);
  if (!transcript) {
    assertMeetingExists(sqlite, meetingId);
    return { meeting_id: meetingId, text: '', words: [], pagination: pagination(page, 0, 0) };
  }
  // A range on the primary key (transcript_id, idx): the cost is the page, not the offset.
  const rows = stmt(sqlite, 'SELECT idx, text, start_ms, end_ms, speaker FROM transcript_words WHERE transcript_id = ? AND idx >= ? ORDER BY idx LIMIT ?')
    .raw()
    .all(transcript.id, page.offset, page.limit) as WordTuple[];
  const words: TranscriptWord[] = rows.map(([index, text, start_ms, end_ms, speaker]) => ({ index, text, start_ms, end_ms, speaker }));
  return transcriptPageOf(meetingId, words, page, transcript, options);
}

export { transcriptText, type NewWord } from '../model/transcripts.js';

/**
 * Stored words are never empty and never contain whitespace (export segments rely on it):
 * a "word" holding spaces is split, its time shared out evenly between the parts.
 */
export function normalizeWords(words: readonly NewWord[]): NewWord[] {
  const out: NewWord[] = [];
  for (const w of words) {
    const parts = w.text.split(/\s+/u).filter((p) => p !== '');
    if (parts.length === 1) out.push({ ...w, text: parts[0]! });
    else if (parts.length > 1) {
      const { startMs, endMs } = w;
      const span = startMs !== null && endMs !== null ? (endMs - startMs) / parts.length : null;
      parts.forEach((text, i) =>
        out.push({
          text,
          speaker: w.speaker,
          startMs: span === null ? startMs : Math.round(startMs! + span * i),
          endMs: span === null ? endMs : Math.round(startMs! + span * (i + 1)),
        }),
      );
    }
  }
  return out;
}

export interface TranscriptTarget {
  language?: string | null;
  source: ContentSource;
  /** How the transcript's times were obtained so far; unchanged when absent. */
  timing?: TranscriptTiming;
}

/** The meeting's transcript, created when missing. Run inside a write transaction. */
export function ensureTranscript(sqlite: Sqlite, meetingId: string, target: TranscriptTarget, id?: string): { id: string; word_count: number } {
  const existing = stmt<{ id: string; word_count: number }>(sqlite, 'SELECT id, word_count FROM transcripts WHERE meeting_id = ?').get(meetingId);
  if (existing) return existing;
  const now = nowIso();
  const created = { id: id ?? newId('transcript'), word_count: 0 };
  stmt(sqlite, 'INSERT INTO transcripts (id, meeting_id, language, source, word_count, created_at, updated_at) VALUES (?, ?, ?, ?, 0, ?, ?)').run(
    created.id,
    meetingId,
    target.language ?? null,
    target.source,
    now,
    now,
  );
  return created;
}

/**
 * Appends words at the end of the meeting's transcript (creating it) in one transaction, so a reader
 * sees all of a batch or none of it. Returns the new word count.
 */
export function appendTranscriptWords(sqlite: Sqlite, meetingId: string, words: readonly NewWord[], target: TranscriptTarget): number {
  const clean = normalizeWords(words);
  return sqlite.transaction(() => {
    const transcript = ensureTranscript(sqlite, meetingId, target);
    const insert = stmt(sqlite, 'INSERT INTO transcript_words (transcript_id, idx, text, start_ms, end_ms, speaker) VALUES (?, ?, ?, ?, ?, ?)');
    let idx = transcript.word_count;
    for (const w of clean) insert.run(transcript.id, idx++, w.text, w.startMs, w.endMs, w.speaker);
    stmt(sqlite, 'UPDATE transcripts SET word_count = ?, language = coalesce(language, ?), timing = coalesce(?, timing), updated_at = ? WHERE id = ?').run(
      idx,
      target.language ?? null,
      target.timing ?? null,
      nowIso(),
      transcript.id,
    );
    indexTranscript(sqlite, transcript.id, meetingId, transcript.word_count);
    return idx;
  }).immediate();
}

/** All words of a transcript in order, as tuples (fast path for export). */
export function allTranscriptWords(sqlite: Sqlite, transcriptId: string): WordTuple[] {
  return stmt(sqlite, 'SELECT idx, text, start_ms, end_ms, speaker FROM transcript_words WHERE transcript_id = ? ORDER BY idx').raw().all(transcriptId) as WordTuple[];
}
