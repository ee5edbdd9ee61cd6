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

/** A name's or e-mail's tag in meetings.search_tags, meeting_tags and search_fts (migration 0018): `h` + its participant_handles id. */
export const handleTag = (handleId: number): string => `h${handleId}`;

/**
 * The ids of the names and e-mails (participant_handles) that hold the fragment, matched as participantWordIds matches
 * words (case-insensitive, either Unicode form, `%` and `_` literal), or undefined past `max` (MAX_PARTICIPANT_HANDLES).
 * Some may be carried by no participant any more (handles are never removed): their tags are on no meeting.
 */
export function participantHandleIds(sqlite: Sqlite, fragment: string, max = MAX_PARTICIPANT_HANDLES): number[] | undefined {
  // SQLite reads a negative LIMIT as none.
  const limit = Number.isFinite(max) ? max + 1 : -1;
  const phrase = trigramMatch(fragment);
  let ids: number[];
  if (phrase !== undefined)
    ids = stmt(sqlite, 'SELECT rowid FROM participant_handles_fts WHERE participant_handles_fts MATCH ? LIMIT ?').pluck().all(`handle : (${phrase})`, limit) as number[];
  else if (isAscii(fragment))
    ids = stmt(sqlite, "SELECT id FROM participant_handles WHERE handle LIKE ? ESCAPE '\\' LIMIT ?").pluck().all(likeFragment(fragment), limit) as number[];
  else {
    const { sql, values } = anySpelling(fragment, ['handle']);
    ids = stmt(sqlite, `SELECT id FROM participant_handles WHERE ${sql} LIMIT ?`).pluck().all(...values, limit) as number[];
  }
  return ids.length > max ? undefined : ids;
}
