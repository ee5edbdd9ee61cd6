// The export record's transcript segments and how a record's ID is shown: pure, shared by the Store,
// the CLI (load) and the demo.
import { clip } from '../../text/clip.js';
import { ConflictError, InvalidInputError } from '../../errors.js';
import type { ExportSegment, MeetingExport } from '../queries/types.js';

/** A segment ends where the speaker changes, or after this many words, so exports stay readable. */
export const SEGMENT_MAX_WORDS = 100;

export type WordTuple = [idx: number, text: string, start_ms: number | null, end_ms: number | null, speaker: string | null];

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

/** An ID from a file, as a message may show it: quoted and clipped (60 characters and an ellipsis) unless it is plain. */
export function shownId(id: string): string {
  return /^[A-Za-z0-9_-]{1,100}$/.test(id) ? id : JSON.stringify(clip(id, 61));
}

/** One ID a record gives to a summary, action item or transcript: where it is, and the table that holds it. */
export interface RecordId {
  table: 'summaries' | 'action_items' | 'transcripts';
  what: string;
  /** `summaries[2]`: where the ID is in the record. */
  at: string;
  id: string;
}

/**
 * The IDs of a record's summaries, action items and transcript, each checked as it is reached (its
 * prefix and length, not used twice in the record; at most one transcript, a series ID that is one).
 * Every engine then checks each against the database, in this order, with `idTakenError`.
 */
export function* recordIds(r: MeetingExport): Generator<RecordId> {
  if (r.transcripts.length > 1)
    throw new InvalidInputError(`transcripts: ${r.transcripts.length} transcripts (${r.transcripts.map((t) => shownId(t.id)).join(', ')}), but a meeting has at most one.`);
  if (r.series && !r.series.id.startsWith('ser_')) throw new InvalidInputError(`series.id: a series ID starts with ser_ (got ${shownId(r.series.id)}).`);
  const kinds = [
    { table: 'summaries', what: 'summary', prefix: 'sum_', ids: r.summaries.map((x) => x.id) },
    { table: 'action_items', what: 'action item', prefix: 'act_', ids: r.action_items.map((x) => x.id) },
    { table: 'transcripts', what: 'transcript', prefix: '', ids: r.transcripts.map((x) => x.id) },
  ] as const;
  const used = new Map<string, string>();
  for (const { table, what, prefix, ids } of kinds)
    for (const [i, id] of ids.entries()) {
      const at = `${table}[${i}]`;
      if (!id.startsWith(prefix) || id.length > 100 || id === '')
        throw new InvalidInputError(`${at}.id: a ${what} ID ${prefix ? `starts with ${prefix} and ` : ''}has 1 to 100 characters (got ${shownId(id)}).`);
      const other = used.get(id);
      if (other !== undefined) throw new InvalidInputError(`${at}: ID ${shownId(id)} is also used by ${other} in this record; each ID must be unique.`);
      used.set(id, at);
      yield { table, what, at, id };
    }
}

/**
 * The most characters a participant's name or e-mail may have. PostgreSQL keeps each whole in its indexes (the
 * participants by name and by e-mail, the distinct names and e-mails, their words and tags), where an entry of more than
 * ~2,700 bytes cannot be written: a name of 3,300 characters that did not compress failed there, and stopped a load.
 * 500 characters of 4 bytes each fit; SQLite holds any, and takes the same bound so that a database copies.
 */
export const MAX_PARTICIPANT_TEXT = 500;

/** A record's participant name or e-mail longer than MAX_PARTICIPANT_TEXT (each engine checks before writing). */
export function checkParticipants(r: MeetingExport): void {
  for (const [i, p] of r.participants.entries())
    for (const [field, text] of [['name', p.name], ['email', p.email]] as const)
      if (text !== null && [...text].length > MAX_PARTICIPANT_TEXT)
        throw new InvalidInputError(`participants[${i}].${field}: at most ${MAX_PARTICIPANT_TEXT} characters (got ${[...text].length}: ${JSON.stringify(clip(text, 41))}).`);
}

/** A record's ID that the database already gives to another meeting. */
export function idTakenError(e: RecordId, ownerMeetingId: string): ConflictError {
  return new ConflictError(`${e.at}: ${e.what} ${shownId(e.id)} already belongs to meeting ${ownerMeetingId} in this database. Give it another ID in the file, or load into another database.`);
}
