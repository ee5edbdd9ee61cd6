// A `participant` fragment resolved to participant words (participant_words, kept by the triggers of
// migration 0010), so that "meetings with X" is read from meeting_tags or search_fts by word, or, when it
// spans words, to whole names and e-mails (participant_handles, migration 0017): never by matching every
// participant row.
import type { Sqlite } from '../open.js';
import { likeFragment, stmt } from '../statements.js';
import { anySpelling, trigramMatch } from './fragments.js';
import { isAscii } from './unicode.js';

/** What splits names and e-mails into words: the same characters as the triggers of migration 0010. */
export const PARTICIPANT_SEPARATORS = " @.,-_()/'\"+;:\t\n\r";

/** Beyond this many matching words, a fragment is matched participant by participant (an OR this wide costs more than it saves). */
export const MAX_PARTICIPANT_WORDS = 32;

/** A participant word's tag in meetings.search_tags, meeting_tags and search_fts. */
export const participantTag = (wordId: number): string => `p${wordId}`;

/**
 * The ids of the participant words that hold the fragment (case-insensitive, either Unicode form, `%`
 * and `_` literal), or undefined when the fragment holds a separator (it may span two words) or holds in
 * more than MAX_PARTICIPANT_WORDS words: the caller then matches participants row by row. A fragment
 * without a separator is in a name or e-mail exactly when it is in one of its words.
 */
export function participantWordIds(sqlite: Sqlite, fragment: string): number[] | undefined {
  if ([...fragment].some((ch) => PARTICIPANT_SEPARATORS.includes(ch))) return undefined;
  const limit = MAX_PARTICIPANT_WORDS + 1;
  const phrase = trigramMatch(fragment);
  let ids: number[];
  if (phrase !== undefined)
    ids = stmt<{ id: number }>(sqlite, 'SELECT rowid AS id FROM participant_words_fts WHERE participant_words_fts MATCH ? LIMIT ?').all(`word : (${phrase})`, limit).map((r) => r.id);
  else if (isAscii(fragment))
    ids = stmt<{ id: number }>(sqlite, "SELECT id FROM participant_words WHERE word LIKE ? ESCAPE '\\' LIMIT ?").all(likeFragment(fragment), limit).map((r) => r.id);
  else {
    const { sql, values } = anySpelling(fragment, ['word']);
    ids = stmt<{ id: number }>(sqlite, `SELECT id FROM participant_words WHERE ${sql} LIMIT ?`).all(...values, limit).map((r) => r.id);
  }
  return ids.length > MAX_PARTICIPANT_WORDS ? undefined : ids;
}

/** Beyond this many matching names and e-mails, a fragment is matched participant by participant (they are most of them). */
export const MAX_PARTICIPANT_HANDLES = 500;

/**
 * The names and e-mails (participant_handles) that hold the fragment, matched as participantWordIds matches
 * words (case-insensitive, either Unicode form, `%` and `_` literal), or undefined past MAX_PARTICIPANT_HANDLES.
 * Some may be carried by no participant any more (handles are never removed): they match no meeting.
 */
export function participantHandles(sqlite: Sqlite, fragment: string): string[] | undefined {
  const limit = MAX_PARTICIPANT_HANDLES + 1;
  const phrase = trigramMatch(fragment);
  let handles: string[];
  if (phrase !== undefined)
    handles = stmt(sqlite, 'SELECT handle FROM participant_handles_fts WHERE participant_handles_fts MATCH ? LIMIT ?').pluck().all(`handle : (${phrase})`, limit) as string[];
  else if (isAscii(fragment))
    handles = stmt(sqlite, "SELECT handle FROM participant_handles WHERE handle LIKE ? ESCAPE '\\' LIMIT ?").pluck().all(likeFragment(fragment), limit) as string[];
  else {
    const { sql, values } = anySpelling(fragment, ['handle']);
    handles = stmt(sqlite, `SELECT handle FROM participant_handles WHERE ${sql} LIMIT ?`).pluck().all(...values, limit) as string[];
  }
  return handles.length > MAX_PARTICIPANT_HANDLES ? undefined : handles;
}

/**
 * The meetings whose participants carry one of the handles, each once, read from the name and e-mail indexes alone;
 * undefined past `most` of them (or past four times as many participants).
 */
export function meetingsOfHandles(sqlite: Sqlite, handles: string[], most: number): string[] | undefined {
  const list = JSON.stringify(handles);
  const rows = most * 4 + 1;
  // One JSON array rather than a row each (7,624 rows of 38 handles at 100k meetings: 2.4 ms, against 3.6 a row at a
  // time), made distinct here (SQLite's DISTINCT or UNION sorted them: 3-4 ms).
  const ids = JSON.parse(stmt(sqlite, `SELECT json_group_array(meeting_id) FROM (${CARRIERS} LIMIT ?)`).pluck().get(list, list, rows) as string) as string[];
  const found = new Set(ids);
  return ids.length === rows || found.size > most ? undefined : [...found];
}

/** The meetings of the participants carrying the handles (two parameters: the handles as JSON, twice), a meeting once a participant. */
const CARRIERS = `SELECT meeting_id FROM participants WHERE name IN (SELECT value FROM json_each(?))
  UNION ALL SELECT meeting_id FROM participants WHERE email IN (SELECT value FROM json_each(?))`;

/** The same meetings as a condition on `m.id`. */
export const CARRIED_BY = `m.id IN (${CARRIERS})`;
