// A `participant` fragment resolved to participant words (participant_words, kept by the triggers of
// migration 0010), so that "meetings with X" is read from meeting_tags or search_fts by word, or, when it
// spans words, to whole names and e-mails (participant_handles, migration 0017): never by matching every
// participant row.
import type { Sqlite } from '../open.js';
import { likeFragment, stmt } from '../statements.js';
import { anySpelling, trigramMatch } from './fragments.js';
import { lowerAscii, PARTICIPANT_SEPARATORS, peopleGramToken, quoteToken } from './list-index.js';
import { isAscii } from './unicode.js';

export { PARTICIPANT_SEPARATORS };

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

/** A condition: one of the columns holds the fragment (case-insensitive, either Unicode form, `%` and `_` literal). */
export function holdsFragment(fragment: string, columns: string[]): { sql: string; values: string[] } {
  if (!isAscii(fragment)) return anySpelling(fragment, columns);
  const like = likeFragment(fragment);
  return { sql: `(${columns.map((c) => `${c} LIKE ? ESCAPE '\\'`).join(' OR ')})`, values: columns.map(() => like) };
}

/**
 * The newest meetings that must all have a participant holding a fragment found in several participant words before
 * the few meetings it fails are looked for (meetingsLacking). Their words' tags are then most meetings' rows: `a` (10
 * words at 100k meetings, the bench's e-mail domain among them, in every meeting) was listed in 16 ms on SQLite and
 * 140 ms on PostgreSQL from its words or names, against ~1 and ~4 from its exceptions; and a fragment in some meetings
 * only (`ar`, 58%) fails the check at the first newest meeting lacking it, where the search for exceptions read 20,000
 * participants before giving up (18-45 ms). A fragment failing 1 meeting in 64 would already have ~1,500 exceptions
 * at 100k meetings, past MAX_PARTICIPANT_EXCEPTIONS.
 */
export const RECENT_MEETINGS_HOLDING = 64;

/** Whether each of the RECENT_MEETINGS_HOLDING newest meetings has a participant holding the fragment (matched as the participant filter matches it). */
export function heldByRecentMeetings(sqlite: Sqlite, fragment: string): boolean {
  const { sql, values } = holdsFragment(fragment, ['p.name', 'p.email']);
  return (
    stmt(
      sqlite,
      `SELECT NOT EXISTS (SELECT 1 FROM (SELECT m.id FROM meetings m ORDER BY m.started_at DESC, m.id DESC LIMIT ${RECENT_MEETINGS_HOLDING}) r
                          WHERE NOT EXISTS (SELECT 1 FROM participants p WHERE p.meeting_id = r.id AND ${sql}))`,
    )
      .pluck()
      .get(...values) === 1
  );
}

/** Beyond this many meetings where no participant may hold a fragment, its meetings are not found as the others. */
export const MAX_PARTICIPANT_EXCEPTIONS = 1_000;

/**
 * Whether the meetings a fragment in many names fails may be few enough to be looked for (meetingsLacking): the newest
 * RECENT_MEETINGS_HOLDING meetings taken as a sample, those lacking it, in proportion to all the meetings, at most
 * MAX_PARTICIPANT_EXCEPTIONS. `person1` (in 1,111 of the 2,000 e-mails at 100k meetings, failing 7% of the meetings)
 * read 20,000 participants lacking it, ~20 ms, before meetingsLacking gave up.
 */
export function fewMayLack(sqlite: Sqlite, fragment: string): boolean {
  const { sql, values } = holdsFragment(fragment, ['p.name', 'p.email']);
  const r = stmt<{ meetings: number; lacking: number }>(
    sqlite,
    `SELECT (SELECT count(*) FROM meetings) AS meetings,
            (SELECT count(*) FROM (SELECT m.id FROM meetings m ORDER BY m.started_at DESC, m.id DESC LIMIT ${RECENT_MEETINGS_HOLDING}) r
             WHERE NOT EXISTS (SELECT 1 FROM participants p WHERE p.meeting_id = r.id AND ${sql})) AS lacking`,
  ).get(...values)!;
  return r.lacking * r.meetings <= MAX_PARTICIPANT_EXCEPTIONS * RECENT_MEETINGS_HOLDING;
}

/** Participants read at most looking for those lacking a fragment. */
export const MAX_LACKING_READ = 20_000;

/**
 * The meetings none of whose participants holds a fragment (matched as the participant filter matches it), when they
 * are few: a fragment in most names and e-mails (a letter, a domain) passes every other meeting. A participant lacking
 * it has an e-mail lacking it, or none: those are read by e-mail, from the names and e-mails that lack it (every one
 * less those that hold it: `e` lacks 882 of 4,000 at 100k meetings, all of them names) and from the participants
 * without one (or by name, when fewer names lack it); with the meetings without participants (tag `hx`, migration
 * 0024), their meetings are the candidates, each checked whole. Ascending; undefined past MAX_LACKING_READ participants
 * read or MAX_PARTICIPANT_EXCEPTIONS candidates (the caller then matches the meetings' participants).
 */
export function meetingsLacking(sqlite: Sqlite, fragment: string): string[] | undefined {
  const handle = holdsFragment(fragment, ['h.handle']);
  const person = holdsFragment(fragment, ['p.name', 'p.email']);
  // Or read by name, when fewer names than e-mails lack it (every participant has a name, so a participant lacking it has
  // a name lacking it): ` ` is in every name and no e-mail, and the 400,000 participants of its 2,000 e-mails at 100k
  // meetings were read up to the bound (~20 ms) for none lacking it. (An e-mail is told from a name by its `@`.)
  const sides = stmt<{ names: number; emails: number; participants: number; handles: number }>(
    sqlite,
    `SELECT count(*) FILTER (WHERE instr(h.handle, '@') = 0) AS names, count(*) FILTER (WHERE instr(h.handle, '@') > 0) AS emails,
            (SELECT coalesce(max(rowid), 0) FROM participants) AS participants, (SELECT coalesce(max(rowid), 0) FROM participant_handles) AS handles
     FROM participant_handles h WHERE NOT ${handle.sql}`,
  ).get(...handle.values)!;
  const byName = sides.names < sides.emails;
  // Not read when the participants of the side read are expected to be past the bound by far: its names or e-mails
  // lacking it, each carried by as many participants as the average (a participant's name and e-mail are two of the
  // handles, ids counted from their rowids). `i` lacks 600 names and every e-mail at 100k meetings: ~120,000
  // participants were read to the bound for nothing (~24 ms on SQLite).
  const expected = ((byName ? sides.names : sides.emails) * 2 * sides.participants) / Math.max(1, sides.handles);
  if (expected > 2 * MAX_LACKING_READ) return undefined;
  const read = (
    byName
      ? stmt(sqlite, `SELECT p.meeting_id, ${person.sql} AS holds FROM participant_handles h JOIN participants p ON p.name = h.handle WHERE NOT ${handle.sql} LIMIT ${MAX_LACKING_READ + 1}`)
          .raw()
          .all(...person.values, ...handle.values)
      : stmt(
          sqlite,
          `SELECT p.meeting_id, ${person.sql} AS holds FROM participant_handles h JOIN participants p ON p.email = h.handle WHERE NOT ${handle.sql}
           UNION ALL SELECT p.meeting_id, ${person.sql} FROM participants p WHERE p.email IS NULL
           LIMIT ${MAX_LACKING_READ + 1}`,
        )
          .raw()
          .all(...person.values, ...handle.values, ...person.values)
  ) as [string, number | null][];
  if (read.length > MAX_LACKING_READ) return undefined;
  const candidates = new Set(read.flatMap(([id, holds]) => (holds ? [] : [id])));
  for (const id of stmt(sqlite, `SELECT meeting_id FROM meeting_tags WHERE tag = 'hx' LIMIT ${MAX_PARTICIPANT_EXCEPTIONS + 1}`).pluck().all() as string[]) candidates.add(id);
  if (candidates.size > MAX_PARTICIPANT_EXCEPTIONS) return undefined;
  if (candidates.size === 0) return [];
  return stmt(
    sqlite,
    `SELECT c.value FROM json_each(?) c WHERE NOT EXISTS (SELECT 1 FROM participants p WHERE p.meeting_id = c.value AND ${person.sql}) ORDER BY 1`,
  )
    .pluck()
    .all(JSON.stringify([...candidates]), ...person.values) as string[];
}

/** Beyond this many names and e-mails holding a fragment's rarest triple but not the fragment, its grams are not read. */
export const MAX_GRAM_STRAYS = 32;

/** A fragment's triples counted at most to find its rarest (any of them is right; the rarest checks fewest meetings). */
export const MAX_GRAM_TRIPLES = 16;

/**
 * A participant fragment in many names and e-mails as FTS5 expressions over meeting_terms' participant grams (migration
 * 0025), for list_meetings, matched as the participant filter matches an ASCII fragment (LIKE: ASCII case folding);
 * undefined beyond ASCII. A fragment of 1-3 characters is its gram (`exact`: a meeting holds the gram exactly when one
 * of its names or e-mails holds the fragment). A longer one is read from the triple of its characters in the fewest
 * names and e-mails (counted in their trigram index), whose meetings hold the fragment but for those holding the triple
 * only through names and e-mails lacking the fragment (`strays`; `person1`'s `on1` has none): `exact`, the gram's
 * meetings without a stray; `loose`, those with one, each then checked. Undefined past MAX_GRAM_STRAYS strays.
 * `token`: the gram's own meeting_terms token (its meetings are exactly the fragment's when there is no `loose`).
 */
export function participantGrams(sqlite: Sqlite, fragment: string): { exact: string; loose?: string; token: string } | undefined {
  if (!isAscii(fragment) || fragment.includes('\0')) return undefined;
  const text = lowerAscii(fragment);
  if (text.length <= 3) return { exact: quoteToken(peopleGramToken(text)), token: peopleGramToken(text) };
  const handlesWith = (triple: string) => `handle : (${trigramMatch(triple)!})`;
  const count = stmt(sqlite, 'SELECT count(*) FROM participant_handles_fts WHERE participant_handles_fts MATCH ?').pluck();
  // At most MAX_GRAM_TRIPLES of them counted, spread over the fragment (up to 1,000 characters: one count each).
  const all = [...new Set(Array.from({ length: text.length - 2 }, (_, i) => text.slice(i, i + 3)))];
  const triples = all.length <= MAX_GRAM_TRIPLES ? all : Array.from({ length: MAX_GRAM_TRIPLES }, (_, i) => all[Math.floor((i * all.length) / MAX_GRAM_TRIPLES)]!);
  const rarest = triples.map((t) => ({ t, n: count.get(handlesWith(t)) as number })).sort((a, b) => a.n - b.n)[0]!.t;
  const strays = stmt(
    sqlite,
    `SELECT h.id FROM participant_handles h WHERE h.id IN (SELECT rowid FROM participant_handles_fts WHERE participant_handles_fts MATCH ?)
       AND h.handle LIKE ? ESCAPE '\\' AND NOT h.handle LIKE ? ESCAPE '\\' LIMIT ${MAX_GRAM_STRAYS + 1}`,
  )
    .pluck()
    .all(handlesWith(rarest), likeFragment(rarest), likeFragment(fragment)) as number[];
  if (strays.length > MAX_GRAM_STRAYS) return undefined;
  const token = peopleGramToken(rarest);
  const gram = quoteToken(token);
  if (strays.length === 0) return { exact: gram, token };
  const others = `(${strays.map((id) => quoteToken(handleTag(id))).join(' OR ')})`;
  return { exact: `(${gram} NOT ${others})`, loose: `(${gram} AND ${others})`, token };
}
