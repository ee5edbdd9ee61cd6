import type { PoolClient } from 'pg';
import { newId } from '../ids.js';
import { nowIso } from '../time.js';
import { normalizeWords, type NewWord, type TranscriptTarget } from '../queries/transcripts.js';
import { PASSAGE_MAX_WORDS } from '../queries/search.js';
import { one, rows, type Queryable } from './sql.js';

/**
 * The meeting's row, locked before any of its transcript's or passages' rows: the filter tags' triggers
 * (migration 0007) lock it when passages are written, and a writer that holds the meeting (a load) waits
 * for those rows; taking it first keeps the two from waiting for each other.
 */
export async function lockMeetingFirst(q: Queryable, meetingId: string): Promise<void> {
  await q.query('SELECT 1 FROM meetings WHERE id = $1 FOR NO KEY UPDATE', [meetingId]);
}

/** Rows per INSERT ... SELECT FROM unnest(...): one round trip per batch, bounded parameter size. */
const INSERT_BATCH = 5_000;

/** The meeting's transcript, created when missing; its row is locked until the transaction ends (appends are serialised). */
export async function ensureTranscript(client: PoolClient, meetingId: string, target: TranscriptTarget, id?: string): Promise<{ id: string; word_count: number }> {
  await lockMeetingFirst(client, meetingId);
  const now = nowIso();
  await client.query(
    'INSERT INTO transcripts (id, meeting_id, language, source, word_count, created_at, updated_at) VALUES ($1, $2, $3, $4, 0, $5, $5) ON CONFLICT (meeting_id) DO NOTHING',
    [id ?? newId('transcript'), meetingId, target.language ?? null, target.source, now],
  );
  return (await one<{ id: string; word_count: number }>(client, 'SELECT id, word_count FROM transcripts WHERE meeting_id = $1 FOR UPDATE', [meetingId]))!;
}

/** Appends words at the end of the meeting's transcript (creating it), inside the caller's transaction. Returns the new word count. */
export async function appendTranscriptWords(client: PoolClient, meetingId: string, words: readonly NewWord[], target: TranscriptTarget): Promise<number> {
  const clean = normalizeWords(words);
  const transcript = await ensureTranscript(client, meetingId, target);
  let idx = transcript.word_count;
  for (let i = 0; i < clean.length; i += INSERT_BATCH) {
    const batch = clean.slice(i, i + INSERT_BATCH);
    await client.query(
      `INSERT INTO transcript_words (transcript_id, idx, text, start_ms, end_ms, speaker)
       SELECT $1, * FROM unnest($2::int[], $3::text[], $4::int[], $5::int[], $6::text[])`,
      [transcript.id, batch.map((_, k) => idx + k), batch.map((w) => w.text), batch.map((w) => w.startMs), batch.map((w) => w.endMs), batch.map((w) => w.speaker)],
    );
    idx += batch.length;
  }
  await client.query('UPDATE transcripts SET word_count = $1, language = coalesce(language, $2), timing = coalesce($3, timing), updated_at = $4 WHERE id = $5', [
    idx,
    target.language ?? null,
    target.timing ?? null,
    nowIso(),
    transcript.id,
  ]);
  await indexTranscript(client, transcript.id, meetingId, transcript.word_count);
  return idx;
}

/**
 * (Re)writes the search passages of a transcript from word `fromIdx` on, exactly as on SQLite: speaker
 * turns cut after PASSAGE_MAX_WORDS words; the passage holding `fromIdx` is rebuilt so an appended
 * chunk extends the last turn.
 */
export async function indexTranscript(q: Queryable, transcriptId: string, meetingId: string, fromIdx = 0): Promise<void> {
  await lockMeetingFirst(q, meetingId);
  const start =
    fromIdx === 0 ? 0 : ((await one<{ start: number | null }>(q, 'SELECT max(word_offset) AS start FROM search_passages WHERE ref_id = $1 AND word_offset <= $2', [transcriptId, fromIdx]))?.start ?? 0);
  await q.query('DELETE FROM search_passages WHERE ref_id = $1 AND word_offset >= $2', [transcriptId, start]);
  const words = await rows<{ idx: number; text: string; speaker: string | null }>(q, 'SELECT idx, text, speaker FROM transcript_words WHERE transcript_id = $1 AND idx >= $2 ORDER BY idx', [
    transcriptId,
    start,
  ]);
  const offsets: number[] = [];
  const speakers: (string | null)[] = [];
  const texts: string[] = [];
  let first = 0;
  for (let i = 1; i <= words.length; i++) {
    if (i === words.length || words[i]!.speaker !== words[first]!.speaker || i - first >= PASSAGE_MAX_WORDS) {
      const passage = words.slice(first, i);
      offsets.push(passage[0]!.idx);
      speakers.push(passage[0]!.speaker);
      texts.push(passage.map((w) => w.text).join(' '));
      first = i;
    }
  }
  for (let i = 0; i < texts.length; i += INSERT_BATCH)
    await q.query(
      `INSERT INTO search_passages (meeting_id, kind, ref_id, word_offset, speaker, text)
       SELECT $1, 'transcript', $2, * FROM unnest($3::int[], $4::text[], $5::text[])`,
      [meetingId, transcriptId, offsets.slice(i, i + INSERT_BATCH), speakers.slice(i, i + INSERT_BATCH), texts.slice(i, i + INSERT_BATCH)],
    );
}
