import type { Sqlite } from '../open.js';
import { ACTIVE_STATUSES_SQL } from '../schema/enums.js';
import { likeFragment, matchFragment, stmt } from '../statements.js';
import { InvalidInputError, type NotFoundError } from '../../errors.js';
import { getFolderByPathOrThrow, subtreeBounds } from './folders.js';
import { getImportForMeeting } from './imports.js';
import { clip, notFound } from './not-found.js';
import { pagination } from './pagination.js';
import { isAscii, unicodeForms } from './unicode.js';
import { anySpelling, spellingGrams, trigramMatch } from './fragments.js';
import { countFromMeetingBits } from './meeting-bits.js';
import {
  fewMayLack,
  handleTag,
  heldByRecentMeetings,
  holdsFragment,
  MAX_PARTICIPANT_WORDS,
  meetingsLacking,
  participantGrams,
  participantHandleIds,
  participantTag,
  participantWordIds,
} from './participant-words.js';
import {
  checkedKeys,
  ftsSource,
  gramToken,
  intersection,
  keyRange,
  listSource,
  NUL_TITLE_TOKEN,
  pageOf,
  PARTICIPANT_SEPARATORS,
  probedSource,
  quoteToken,
  TITLE_CHUNK,
  titleWordToken,
  tokenCount,
  unionSource,
  type FtsQuery,
  type KeySource,
} from './list-index.js';
import type { ActionItem, MeetingDetail, MeetingListItem, MeetingRecord, Page, Pagination, Participant, SeriesRef, Summary, TranscriptInfo } from './types.js';

export interface MeetingFilter {
  /** Fragment of the title or the id, case-insensitive; `%` and `_` are literal. */
  query?: string;
  seriesId?: string;
  /** Includes subfolders. */
  folderPath?: string;
  /** ISO date or date-time; meetings that started at or after it. */
  from?: string;
  /** ISO date (the whole day is included) or date-time (inclusive). */
  to?: string;
  /** Fragment of a participant's name or e-mail, case-insensitive. */
  participant?: string;
}

/** Columns of a MeetingListItem over `meetings m`. */
export const MEETING_ITEM_COLUMNS = `m.id, m.title, m.started_at, m.ended_at,
  (SELECT f.path FROM folders f WHERE f.id = m.folder_id) AS folder_path,
  m.series_id,
  coalesce((SELECT t.word_count FROM transcripts t WHERE t.meeting_id = m.id), 0) AS transcript_word_count,
  (SELECT count(*) FROM summaries s WHERE s.meeting_id = m.id) AS summary_count,
  (SELECT CASE WHEN j.status IN ${ACTIVE_STATUSES_SQL} AND j.lease_expires_at <= strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
            THEN 'failed' ELSE j.status END -- an expired lease reads as interrupted, as in toRecordingImport
   FROM recording_imports j WHERE j.meeting_id = m.id ORDER BY j.created_at DESC LIMIT 1) AS processing_status`;

export const NEWEST_FIRST = 'ORDER BY m.started_at DESC, m.id DESC';

/** One filter over `meetings m`, and, when meeting_tags and search_fts hold it, the tags of which a meeting has one. */
export interface FilterPart {
  sql: string;
  params: unknown[];
  /** Tags (meetings.search_tags) of which a matching meeting has at least one; absent when no tag holds the filter. */
  tags?: string[];
  /** The filter as an FTS5 expression over meeting_terms (tags, or the grams of a short title fragment), when it holds it exactly. */
  terms?: string;
  /** Beside `terms`: meeting_terms' candidates for further matches, which `sql` decides (spellings of 3+ code points of a short fragment). */
  looseTerms?: string;
  /** What decides `looseTerms`' candidates instead of `sql`: a condition over meeting_titles `m` (its `title` and meeting `id`). */
  looseCheck?: { sql: string; params: unknown[] };
  /**
   * Without `tags`, a participant fragment in more names and e-mails than MAX_PARTICIPANT_HANDLES: all their tags, of
   * which a matching meeting has one (too many for a statement or an FTS5 expression; search ORs their lists).
   */
  manyTags?: () => string[];
  /**
   * Beside `manyTags`: the participants' gram (its meeting_terms token) that exactly the meetings holding the fragment
   * hold (participantGrams without strays), asked when needed; undefined when there is none.
   */
  gram?: () => string | undefined;
  /**
   * `sql` as a probe of one meeting (a participant fragment in many names, whose `sql` reads every participant once):
   * what a list's walk, which stops at its page or is narrowed by the other filters, asks of each meeting it passes.
   */
  probe?: { sql: (meetingId: string) => string; params: unknown[] };
  /** The only meetings that fail the filter (ascending ids): a participant fragment in most names. */
  except?: string[];
  /**
   * A title fragment in more words than `terms` takes (MAX_TITLE_WORDS, up to MAX_COUNTED_TITLE_WORDS): their tokens
   * ORed, for a total counted from meeting_terms' bitmaps (meeting-bits.ts), which read the rare words' few meetings
   * and the common words' bits; the page is read from the trigrams.
   */
  countTerms?: () => string | undefined;
}

export interface CompiledFilter {
  /** The title fragment as a trigram phrase for meeting_titles, when it has 3 characters or more. */
  titleMatch?: string;
  /** Conditions, ANDed (the dates are in `range`). */
  parts: FilterPart[];
  range: { from?: string; to?: string };
  /** A filter that no meeting can match (a participant fragment in no participant's name): the answer is empty. */
  none: boolean;
}

/** A folder or series id as a tag of meetings.search_tags: prefix + hex of its UTF-8 bytes, as SQLite's hex() writes it. */
export const idTag = (prefix: 'f' | 's', id: string): string => prefix + Buffer.from(id, 'utf8').toString('hex').toUpperCase();

/**
 * A filter that every meeting passes but these (ascending ids: a participant fragment's exceptions): a condition on the
 * meeting, and a probe of it, for lists; a search leaves their passages out.
 */
const exceptPart = (ids: string[]): FilterPart => {
  const params = [JSON.stringify(ids)];
  const probe = (meetingId: string) => `${meetingId} NOT IN (SELECT value FROM json_each(?))`;
  return { sql: probe('m.id'), params, except: ids, probe: { sql: probe, params } };
};

/** A filter of which a meeting has one of the tags (participant words, or names and e-mails). */
const tagsPart = (tags: string[]): FilterPart => ({
  sql: `EXISTS (SELECT 1 FROM meeting_tags t WHERE t.tag IN (${tags.map(() => '?').join(', ')}) AND t.started_at = m.started_at AND t.meeting_id = m.id)`,
  params: tags,
  tags,
  terms: `(${tags.map(quoteToken).join(' OR ')})`,
});

/**
 * The filters, compiled once for list_meetings and search_transcripts; unknown series or folder -> NotFoundError.
 * `exceptions: false`: a participant fragment in most names is matched on every meeting's participants even when the
 * meetings it fails are few (to compare the two ways). `grams`: a participant fragment in many names gets `terms` from
 * the participants' grams, which only lists read (a search's passages hold no grams).
 */
export function compileMeetingFilter(sqlite: Sqlite, filter: MeetingFilter, options: { exceptions?: boolean; grams?: boolean } = {}): CompiledFilter {
  const parts: FilterPart[] = [];
  let titleMatch: string | undefined;
  let none = false;
  if (filter.query !== undefined && filter.query !== '') {
    const fragment = matchFragment(filter.query, 'query');
    titleMatch = trigramMatch(fragment);
    if (titleMatch !== undefined) {
      // The trigram index finds a substring of title or id, case-insensitively (Unicode case folding);
      // quoted, so `%`, `_` and FTS syntax are literal characters. Inside a word: its words' tokens, for lists by key.
      const words = titleWordTerms(sqlite, fragment, titleMatch);
      if (words === null) none = true;
      parts.push({
        sql: 'm.id IN (SELECT id FROM meeting_titles WHERE meeting_titles MATCH ?)',
        params: [titleMatch],
        ...(typeof words === 'string' && { terms: words }),
        ...(words === TOO_MANY_WORDS && { countTerms: () => countedTitleWords(sqlite, titleMatch!) }),
      });
    } else if (isAscii(fragment)) {
      // Trigrams need 3 characters; shorter fragments scan titles with LIKE (ASCII case folding).
      const like = likeFragment(fragment);
      // meeting_terms holds each title's and id's lowercased ASCII characters and pairs: the same answer from an index.
      parts.push({ sql: `(m.title LIKE ? ESCAPE '\\' OR m.id LIKE ? ESCAPE '\\')`, params: [like, like], terms: quoteToken(gramToken(fragment)) });
    } else {
      // Short and beyond ASCII: each spelling (case, Unicode form) with LIKE (IDs are ASCII), or from meeting_terms' grams.
      const { sql, values } = anySpelling(fragment, ['m.title']);
      const grams = spellingGrams(fragment);
      parts.push({ sql, params: values, ...(grams && { terms: grams.exact }), ...(grams?.loose !== undefined && { looseTerms: grams.loose }) });
    }
  }
  if (filter.seriesId !== undefined) {
    getSeriesRefOrThrow(sqlite, filter.seriesId);
    const tag = idTag('s', filter.seriesId);
    parts.push({ sql: 'm.series_id = ?', params: [filter.seriesId], tags: [tag], terms: quoteToken(tag) });
  }
  if (filter.folderPath !== undefined) {
    const folder = getFolderByPathOrThrow(sqlite, filter.folderPath);
    const [exact, low, high] = subtreeBounds(folder.path);
    // Every meeting carries the tag of its folder and of each ancestor: the subtree is one tag.
    const tag = idTag('f', folder.id);
    parts.push({ sql: 'm.folder_id IN (SELECT id FROM folders WHERE path = ? OR (path > ? AND path < ?))', params: [exact, low, high], tags: [tag], terms: quoteToken(tag) });
  }
  const range = parseDateRange(filter.from, filter.to);
  if (filter.participant !== undefined && filter.participant !== '') {
    const fragment = matchFragment(filter.participant, 'participant');
    const words = participantWordIds(sqlite, fragment);
    // For a list, the meetings holding it from their participants' grams (migration 0025).
    const grams = () => (options.grams === true ? gramTerms(sqlite, fragment, parts) : {});
    // In several words and every recent meeting (`a`): the few meetings it fails, when few, rather than the union of its words.
    const fails =
      words !== undefined && words.length > 1 && options.exceptions !== false && heldByRecentMeetings(sqlite, fragment) ? meetingsLacking(sqlite, fragment) : undefined;
    if (fails !== undefined) {
      if (fails.length > 0) parts.push(exceptPart(fails));
    } else if (words !== undefined) {
      if (words.length === 0) none = true;
      // In several words, a list reads a fragment of 1-3 characters from its gram (migration 0025: the meetings holding
      // it, one token, counted from FTS5's vocabulary) rather than the OR of its words' tags, which FTS5 walks to count
      // (`om`, 2 words, 56,460 of 100k meetings: 3.5 -> 1.5 ms; its page at offset 20,000 4.9 -> 2.5).
      parts.push({ ...tagsPart(words.map(participantTag)), ...(words.length > 1 && fragment.length <= 3 && grams()) });
    } else {
      // The fragment spans words (or is in very many): matched against the distinct names and e-mails, each a tag of its
      // meetings (migration 0018) as a word is (the trigram phrase over every participant took 28 ms at 100k meetings).
      const handles = participantHandleIds(sqlite, fragment);
      // In many names and e-mails: a list reads the meetings holding it from their grams, not from an OR of the names'
      // tags (`4@e` at 100k meetings, 184 names: 15 -> ~1 ms) nor probing every meeting.
      if (handles !== undefined) {
        if (handles.length === 0) none = true;
        parts.push({ ...tagsPart(handles.map(handleTag)), ...(handles.length > MAX_PARTICIPANT_WORDS && grams()) });
      } else {
        // In most names, so in most meetings: the few meetings it fails, when they are few (none at all for `e` or the
        // bench's domain at 100k meetings, found in ~1 ms), are left out of the answer as a date range's edges are.
        const lacking = options.exceptions === false || !fewMayLack(sqlite, fragment) ? undefined : meetingsLacking(sqlite, fragment);
        if (lacking !== undefined) {
          if (lacking.length > 0) parts.push(exceptPart(lacking));
        } else {
          const manyTags = () => participantHandleIds(sqlite, fragment, Infinity)!.map(handleTag);
          // Else a list probes each meeting it passes, from the meeting's participants in participants_meeting_idx alone
          // (migration 0022): the newest 20 of `e`'s 100,000 meetings at 100k in 0.3 ms, all of them counted in 57 ms,
          // against 230 ms for the IN over every participant (100 ms with that index). A search joins its matches to the
          // meetings of the IN.
          const { sql, values: params } = holdsFragment(fragment, ['p.name', 'p.email']);
          const gram = () => {
            const held = participantGrams(sqlite, fragment);
            return held?.loose === undefined ? held?.token : undefined;
          };
          parts.push({ sql: `m.id IN (SELECT meeting_id FROM participants p WHERE ${sql})`, params, manyTags, gram, probe: participantsProbe(fragment), ...grams() });
        }
      }
    }
  }
  return { titleMatch, parts, range, none };
}

/** Beyond this many title words holding a fragment, it is read from meeting_titles' trigrams (as on PostgreSQL). */
const MAX_TITLE_WORDS = 32;

/**
 * Up to this many, their tokens still count the fragment's meetings from meeting_terms' bitmaps (`des`: `design` and 32
 * words of ids at 100k meetings, each id word one meeting's).
 */
const MAX_COUNTED_TITLE_WORDS = 256;

/** titleWordTerms' answer for a fragment in more than MAX_TITLE_WORDS words. */
const TOO_MANY_WORDS = Symbol('too many title words');

/**
 * A title fragment of 3+ characters inside one word of a title or id (no separator, at most half a chunk: migration
 * 0027) as the OR of the tokens of the title words holding it (trigram index title_words_fts, which folds case as
 * meeting_titles does); null when no word holds it (no meeting does); TOO_MANY_WORDS when more than MAX_TITLE_WORDS
 * do; undefined when a meeting's title or id holds a NUL (its words may not be what the trigram index reads), or the
 * fragment is not inside one word.
 */
function titleWordTerms(sqlite: Sqlite, fragment: string, match: string): string | typeof TOO_MANY_WORDS | null | undefined {
  const forms = unicodeForms(fragment);
  if (forms.some((f) => Array.from(f).length > TITLE_CHUNK / 2 || f.includes('\0') || [...f].some((ch) => PARTICIPANT_SEPARATORS.includes(ch)))) return undefined;
  if (tokenCount(sqlite, NUL_TITLE_TOKEN) > 0) return undefined;
  const words = stmt(sqlite, `SELECT word FROM title_words_fts WHERE title_words_fts MATCH ? LIMIT ${MAX_TITLE_WORDS + 1}`).pluck().all(match) as string[];
  if (words.length > MAX_TITLE_WORDS) return TOO_MANY_WORDS;
  return words.length === 0 ? null : orWords(words);
}

const orWords = (words: string[]) => (words.length === 1 ? quoteToken(titleWordToken(words[0]!)) : `(${words.map((w) => quoteToken(titleWordToken(w))).join(' OR ')})`);

/** A fragment in more than MAX_TITLE_WORDS title words: their tokens ORed when at most MAX_COUNTED_TITLE_WORDS. */
function countedTitleWords(sqlite: Sqlite, match: string): string | undefined {
  const words = stmt(sqlite, `SELECT word FROM title_words_fts WHERE title_words_fts MATCH ? LIMIT ${MAX_COUNTED_TITLE_WORDS + 1}`).pluck().all(match) as string[];
  return words.length > MAX_COUNTED_TITLE_WORDS ? undefined : orWords(words);
}

/**
 * A participant fragment's `terms` from the participants' grams (participantGrams), with its candidates' check (each
 * meeting's participants): none beyond ASCII, or when another part already has candidates (a list reads one kind).
 */
function gramTerms(sqlite: Sqlite, fragment: string, parts: FilterPart[]): Pick<FilterPart, 'terms' | 'looseTerms' | 'looseCheck'> {
  const grams = participantGrams(sqlite, fragment);
  if (grams === undefined || (grams.loose !== undefined && parts.some((p) => p.looseTerms !== undefined))) return {};
  if (grams.loose === undefined) return { terms: grams.exact };
  const probe = participantsProbe(fragment);
  return { terms: grams.exact, looseTerms: grams.loose, looseCheck: { sql: probe.sql('m.id'), params: probe.params } };
}

/** A meeting's participants checked for a fragment (its id given as SQL), from participants_meeting_idx (migration 0022). */
function participantsProbe(fragment: string): NonNullable<FilterPart['probe']> {
  const { sql, values: params } = holdsFragment(fragment, ['p.name', 'p.email']);
  return { sql: (meetingId) => `EXISTS (SELECT 1 FROM participants p WHERE p.meeting_id = ${meetingId} AND ${sql})`, params };
}

/** The date range as conditions on a `started_at` column. */
export function rangeSql(range: CompiledFilter['range'], column: string): { sql: string[]; params: string[] } {
  const sql: string[] = [];
  const params: string[] = [];
  if (range.from !== undefined) {
    sql.push(`${column} >= ?`);
    params.push(range.from);
  }
  if (range.to !== undefined) {
    sql.push(`${column} <= ?`);
    params.push(range.to);
  }
  return { sql, params };
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;
const FIRST_MS = -62_167_219_200_000; // 0000-01-01T00:00:00.000Z
const LAST_MS = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z

/**
 * A `from`/`to` value as the stored form (fixed-width ISO UTC, so text order is time order), or an
 * InvalidInputError. Strict ISO 8601: Date.parse reads "1" as 2001 and rolls 2026-02-30 over to March;
 * a year past 9999 prints as "+010000-..." and compares as text before every stored date.
 * A date-time without a zone is UTC; a bare date stands for its whole UTC day (`to` includes it).
 */
function parseDateBound(value: string, name: 'from' | 'to'): { iso: string; bareDate: boolean } {
  const trimmed = value.trim();
  const m = DATE_TIME.exec(trimmed);
  const refuse = () =>
    new InvalidInputError(
      `"${name}" must be an ISO 8601 date or date-time between 0000-01-01 and 9999-12-31, such as 2026-11-30 or 2026-11-30T09:00:00Z; got "${clip(value, 60)}".`,
    );
  if (!m) throw refuse();
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((part) => Number(part ?? 0)) as [number, number, number, number, number, number];
  const bareDate = m[4] === undefined;
  const ms3 = bareDate && name === 'to' ? 999 : Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3));
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) throw refuse();
  // The last instant of a bare `to` date: stored times have millisecond precision.
  const [h, mi, sec] = bareDate && name === 'to' ? [23, 59, 59] : [hour, minute, second];
  let ms = date.getTime() + ((h * 60 + mi) * 60 + sec) * 1000 + ms3;
  const zone = m[8];
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const digits = zone.replace(':', '');
    ms -= (zone[0] === '-' ? -1 : 1) * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5))) * 60_000;
  }
  if (ms < FIRST_MS || ms > LAST_MS) throw refuse();
  return { iso: new Date(ms).toISOString(), bareDate };
}

/** Both bounds parsed; a range that no meeting can fall in is refused with the values the other way round. */
export function parseDateRange(from: string | undefined, to: string | undefined): { from?: string; to?: string } {
  const low = from === undefined ? undefined : parseDateBound(from, 'from');
  const high = to === undefined ? undefined : parseDateBound(to, 'to');
  if (low && high && low.iso > high.iso) {
    const [a, b] = [clip(from!.trim(), 60), clip(to!.trim(), 60)];
    throw new InvalidInputError(
      `"from" (${a}) is after "to" (${b}), so no meeting can match. Pass the earlier date as from and the later one as to: from "${b}", to "${a}".`,
    );
  }
  return { ...(low && { from: low.iso }), ...(high && { to: high.iso }) };
}

/** Meetings counted at most when choosing which tag drives a list: enough to tell a rare tag from a common one. */
const DRIVER_PROBE = 2000;

/** `grams: false`: a participant fragment in many names is not read from their grams (to compare the two ways). */
export function listMeetings(
  sqlite: Sqlite,
  filter: MeetingFilter,
  page: Page,
  options: { exceptions?: boolean; grams?: boolean } = {},
): { meetings: MeetingListItem[]; pagination: Pagination } {
  // One snapshot for the filters' names and exceptions, the count and the page: a writer committing between them would
  // otherwise leave the total off by its meeting, or list a meeting the filter fails.
  if (!sqlite.inTransaction) return sqlite.transaction(() => listMeetings(sqlite, filter, page, options)).deferred();
  const c = compileMeetingFilter(sqlite, filter, { ...options, grams: options.grams ?? true });
  if (c.none) return { meetings: [], pagination: pagination(page, 0, 0) };
  // The few meetings a participant fragment in most names fails: each walk probes them out, and the total is that of
  // the other filters less those of them the other filters keep (probing every meeting to count them: `e` with 300 at
  // 100k meetings, 33 ms).
  const except = c.parts.find((p) => p.except !== undefined);
  const known = except && exceptTotal(sqlite, c, except);
  const { meetings, total } = listWith(sqlite, c, page, known);
  return { meetings, pagination: pagination(page, meetings.length, total) };
}

/** The total of the filters but `except` (a participant fragment's exceptions), less the exceptions that pass them. */
function exceptTotal(sqlite: Sqlite, c: CompiledFilter, except: FilterPart): number {
  const rest = { ...c, parts: c.parts.filter((p) => p !== except) };
  const all = listWith(sqlite, rest, { limit: 0, offset: 0 }).total;
  const range = rangeSql(c.range, 'm.started_at');
  // A title fragment of 3+ characters (the first part) as the meeting's key among its trigram matches' (`design` with
  // 300 exceptions: 32 ms reading the matches' `id` column, 9 their keys).
  const parts = rest.parts.map((p, i) =>
    i === 0 && c.titleMatch !== undefined
      ? { sql: '(SELECT k.key FROM meeting_keys k WHERE k.meeting_id = m.id) IN (SELECT rowid FROM meeting_titles WHERE meeting_titles MATCH ?)', params: [c.titleMatch] }
      : p,
  );
  const clauses = ['m.id IN (SELECT value FROM json_each(?))', ...parts.map((p) => p.sql), ...range.sql];
  const kept = stmt(sqlite, `SELECT count(*) FROM meetings m WHERE ${clauses.join(' AND ')}`)
    .pluck()
    .get(JSON.stringify(except.except), ...parts.flatMap((p) => p.params), ...range.params) as number;
  return all - kept;
}

/** The page and the total (`known`: the total, not counted). */
function listWith(sqlite: Sqlite, c: CompiledFilter, page: Page, known?: number): { meetings: MeetingListItem[]; total: number } {
  // A participant fragment in most names with a title fragment (and no single tag to walk): the title's keys walked
  // newest first, each meeting probed (see probedSource), rather than every title match sorted, or every meeting's
  // title compared with LIKE for the count (at 100k meetings, `e` + `design` 238 -> 25 ms, `e` + `in` 131 -> 61 ms).
  const probe = c.parts.find((p) => p.probe)?.probe;
  const rest = probe && { ...c, parts: c.parts.filter((p) => !p.probe) };
  return byKeys(c)
    ? listByKeys(sqlite, c, page, undefined, known)
    : c.parts.some((p) => p.tags?.length === 1)
      ? listByTag(sqlite, c, page, known)
      : rest && byKeys(rest)
        ? listByKeys(sqlite, rest, page, probe, known)
        : listByTime(sqlite, c, page, known);
}

/** Matches read in full rather than walked newest first. */
const FEW_KEYS = 500;

/** Every filter is held by meeting_terms or meeting_titles (dates are a key range): the keyed indexes answer alone. */
const byKeys = (c: CompiledFilter): boolean =>
  c.parts.length > 0 && c.parts.every((p, i) => p.terms !== undefined || (i === 0 && c.titleMatch !== undefined));

/**
 * Reads the filters newest first from meeting_terms (tags, short title fragments, ANDed inside one FTS5
 * query) and meeting_titles (title fragments of 3+ characters), within the dates' key range: the count is
 * the index's, the page stops at offset + limit. Both indexes at once: their key lists intersected. With `probe`, each
 * key's meeting is probed as well (the count too).
 */
function listByKeys(sqlite: Sqlite, c: CompiledFilter, page: Page, probe?: FilterPart['probe'], known?: number): { meetings: MeetingListItem[]; total: number } {
  const { lo, hi } = keyRange(c.range);
  const terms = c.parts.filter((p) => p.terms !== undefined).map((p) => p.terms!);
  // A title fragment read from its words' tokens (the first part's `terms`) is one more term of meeting_terms.
  const trigrams = c.titleMatch !== undefined && c.parts[0]!.terms === undefined ? c.titleMatch : undefined;
  const queries: FtsQuery[] = [
    ...(trigrams === undefined ? [] : [{ table: 'meeting_titles' as const, match: trigrams }]),
    ...(terms.length === 0 ? [] : [{ table: 'meeting_terms' as const, match: terms.join(' AND ') }]),
  ];
  let source: KeySource;
  if (queries.length === 2) source = intersection(sqlite, queries[0]!, queries[1]!);
  else {
    // Few matches: all their keys at once (one ascending read that stops) rather than a count, a backwards walk and the page's edges.
    const one = ftsSource(sqlite, queries[0]!);
    const few = one.upTo(FEW_KEYS + 1, lo, hi);
    source = few.length <= FEW_KEYS ? listSource(few) : one;
  }
  const loose = c.parts.find((p) => p.looseTerms !== undefined);
  if (loose !== undefined) {
    // Spellings of 3+ code points (NFD of a short fragment), or a participant fragment's stray names: the meetings
    // holding all their pairs (their names) and not an exact gram, checked one by one with the fragment's own
    // condition (and the title fragment's, which meeting_terms does not hold), join the exact matches.
    const checks = [loose.looseCheck ?? { sql: loose.sql, params: loose.params }];
    if (trigrams !== undefined) checks.push({ sql: 'm.rowid IN (SELECT rowid FROM meeting_titles WHERE meeting_titles MATCH ?)', params: [trigrams] });
    const check = { sql: checks.map((x) => x.sql).join(' AND '), params: checks.flatMap((x) => x.params) };
    const more = checkedKeys(sqlite, `(${[...terms.filter((t) => t !== loose.terms), loose.looseTerms].join(' AND ')}) NOT ${loose.terms}`, check, lo, hi);
    if (more.length > 0) source = unionSource(source, more);
  }
  if (probe) source = probedSource(sqlite, source, probe);
  // A title fragment in too many words for FTS5 beside other tokens: counted from their bitmaps, when they answer (its
  // words read only beside a token with bits: else FTS5 intersects short doclists).
  const words = c.parts[0]!.countTerms;
  const counted = known === undefined && words && queries.length === 2 && loose === undefined && !probe ? countFromMeetingBits(sqlite, terms.join(' AND '), lo, hi, { words }) : undefined;
  const total = known ?? counted ?? source.count(lo, hi);
  const ids = total <= page.offset ? [] : pageOf(sqlite, source, page.offset, page.limit, lo, hi, total);
  const meetings = ids.length === 0 ? [] : stmt<MeetingListItem>(
    sqlite,
    `SELECT ${MEETING_ITEM_COLUMNS} FROM meetings m WHERE m.id IN (SELECT value FROM json_each(?)) ${NEWEST_FIRST}`,
  ).all(JSON.stringify(ids));
  return { meetings, total };
}

/**
 * Walks one tag's rows of meeting_tags (a folder subtree, a series or a participant word), newest
 * first within the dates, the other filters probed per row: the page and the exact count come from the
 * primary key, however deep the offset. The rarest single-tag filter drives.
 */
function listByTag(sqlite: Sqlite, c: CompiledFilter, page: Page, known?: number): { meetings: MeetingListItem[]; total: number } {
  const range = rangeSql(c.range, 'd.started_at');
  const single = c.parts.filter((p) => p.tags?.length === 1);
  const rows = (tag: string) =>
    stmt<{ n: number }>(sqlite, `SELECT count(*) AS n FROM (SELECT 1 FROM meeting_tags d WHERE d.tag = ? ${range.sql.map((x) => `AND ${x}`).join(' ')} LIMIT ${DRIVER_PROBE})`).get(tag, ...range.params)!.n;
  const driver = single.length === 1 ? single[0]! : single.map((p) => ({ p, n: rows(p.tags![0]!) })).sort((a, b) => a.n - b.n)[0]!.p;
  const clauses = ['d.tag = ?', ...range.sql];
  const params: unknown[] = [driver.tags![0]!, ...range.params];
  let joinMeetings = false;
  for (const p of c.parts) {
    if (p === driver) continue;
    if (p.tags) {
      clauses.push(`EXISTS (SELECT 1 FROM meeting_tags o WHERE o.tag IN (${p.tags.map(() => '?').join(', ')}) AND o.started_at = d.started_at AND o.meeting_id = d.meeting_id)`);
      params.push(...p.tags);
    } else if (p.probe) {
      clauses.push(p.probe.sql('d.meeting_id'));
      params.push(...p.probe.params);
    } else {
      clauses.push(p.sql);
      params.push(...p.params);
      joinMeetings = true;
    }
  }
  const from = `meeting_tags d${joinMeetings ? ' JOIN meetings m ON m.id = d.meeting_id' : ''} WHERE ${clauses.join(' AND ')}`;
  const meetings = stmt<MeetingListItem>(
    sqlite,
    `SELECT ${MEETING_ITEM_COLUMNS} FROM (SELECT d.meeting_id, d.started_at FROM ${from} ORDER BY d.started_at DESC, d.meeting_id DESC LIMIT ? OFFSET ?) k
     JOIN meetings m ON m.id = k.meeting_id ORDER BY k.started_at DESC, k.meeting_id DESC`,
  ).all(...params, page.limit, page.offset);
  const total = known ?? stmt<{ n: number }>(sqlite, `SELECT count(*) AS n FROM ${from}`).get(...params)!.n;
  return { meetings, total };
}

/** Walks meetings newest first (the time index), or the title index when a title fragment of 3+ characters drives. */
function listByTime(sqlite: Sqlite, c: CompiledFilter, page: Page, known?: number): { meetings: MeetingListItem[]; total: number } {
  const range = rangeSql(c.range, 'm.started_at');
  const parts = c.titleMatch === undefined ? c.parts : c.parts.slice(1); // the title part comes first
  // Each meeting passed is probed (a participant fragment in many names).
  const probed = parts.map((p) => (p.probe ? { sql: p.probe.sql('m.id'), params: p.probe.params } : p));
  const clauses = [...probed.map((p) => p.sql), ...range.sql];
  const params = [...probed.flatMap((p) => p.params), ...range.params];
  if (c.titleMatch !== undefined) {
    // The trigram index drives: its matches, sorted by date.
    const where = ['meeting_titles MATCH ?', ...clauses].join(' AND ');
    const from = 'meeting_titles JOIN meetings m ON m.id = meeting_titles.id';
    const meetings = stmt<MeetingListItem>(sqlite, `SELECT ${MEETING_ITEM_COLUMNS} FROM ${from} WHERE ${where} ${NEWEST_FIRST} LIMIT ? OFFSET ?`).all(
      c.titleMatch,
      ...params,
      page.limit,
      page.offset,
    );
    const total =
      known ??
      stmt<{ n: number }>(sqlite, clauses.length === 0 ? 'SELECT count(*) AS n FROM meeting_titles WHERE meeting_titles MATCH ?' : `SELECT count(*) AS n FROM ${from} WHERE ${where}`).get(
      c.titleMatch,
      ...params,
    )!.n;
    return { meetings, total };
  }
  const where = clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
  // The page's ids first (an index-only walk past the offset), then their columns.
  const meetings = stmt<MeetingListItem>(
    sqlite,
    `SELECT ${MEETING_ITEM_COLUMNS} FROM (SELECT m.id, m.started_at FROM meetings m ${where} ${NEWEST_FIRST} LIMIT ? OFFSET ?) k
     JOIN meetings m ON m.id = k.id ORDER BY k.started_at DESC, k.id DESC`,
  ).all(...params, page.limit, page.offset);
  const total = known ?? stmt<{ n: number }>(sqlite, `SELECT count(*) AS n FROM meetings m ${where}`).get(...params)!.n;
  return { meetings, total };
}

/** Names what `id` is when it is an ID of another kind or a title (see not-found.ts). */
export function meetingNotFound(sqlite: Sqlite, id: string): NotFoundError {
  return notFound(sqlite, 'meeting', id);
}

export { clip };

interface MeetingRowOut {
  id: string;
  title: string;
  started_at: string;
  ended_at: string | null;
  folder_path: string | null;
  series_id: string | null;
  series_title: string | null;
  series_cadence: string | null;
  note: string;
  speakers: string | null;
  speaker_context: string | null;
  created_at: string;
  updated_at: string;
}

export function assertMeetingExists(sqlite: Sqlite, id: string): void {
  if (stmt(sqlite, 'SELECT 1 FROM meetings WHERE id = ?').get(id) === undefined) throw meetingNotFound(sqlite, id);
}

/** The meeting's own fields and its children: what get_meeting and export_meeting share. */
export function readMeetingRecord(sqlite: Sqlite, id: string): MeetingRecord {
  const row = stmt<MeetingRowOut>(
    sqlite,
    `SELECT m.id, m.title, m.started_at, m.ended_at, f.path AS folder_path, m.series_id,
       s.title AS series_title, s.cadence AS series_cadence, m.note, m.speakers, m.speaker_context, m.created_at, m.updated_at
     FROM meetings m LEFT JOIN folders f ON f.id = m.folder_id LEFT JOIN series s ON s.id = m.series_id
     WHERE m.id = ?`,
  ).get(id);
  if (!row) throw meetingNotFound(sqlite, id);
  const record: MeetingRecord = {
    id: row.id,
    title: row.title,
    started_at: row.started_at,
    ended_at: row.ended_at,
    folder_path: row.folder_path,
    series: row.series_id ? { id: row.series_id, title: row.series_title ?? '', cadence: row.series_cadence } : null,
    note: row.note,
    summaries: stmt<Summary>(sqlite, 'SELECT id, title, content, created_at, updated_at FROM summaries WHERE meeting_id = ? ORDER BY position, created_at, id').all(id),
    participants: stmt<Participant>(sqlite, 'SELECT name, email, role FROM participants WHERE meeting_id = ? ORDER BY position, id').all(id),
    action_items: stmt<Omit<ActionItem, 'done'> & { done: number }>(
      sqlite,
      'SELECT id, text, assignee, due_date, done FROM action_items WHERE meeting_id = ? ORDER BY position, created_at, id',
    )
      .all(id)
      .map((a) => ({ ...a, done: a.done === 1 })),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
  // Present only when known (the reference calls them optional).
  if (row.speakers !== null) record.speakers = JSON.parse(row.speakers) as string[];
  if (row.speaker_context !== null) record.speaker_context = row.speaker_context;
  return record;
}

export function getMeetingOrThrow(sqlite: Sqlite, id: string): MeetingDetail {
  const record = readMeetingRecord(sqlite, id);
  const recordingImport = getImportForMeeting(sqlite, id);
  return {
    ...record,
    transcript: stmt<TranscriptInfo>(sqlite, 'SELECT id, language, word_count, timing FROM transcripts WHERE meeting_id = ?').get(id) ?? null,
    pending_proposal_count: stmt<{ n: number }>(sqlite, "SELECT count(*) AS n FROM proposals WHERE meeting_id = ? AND status = 'pending'").get(id)!.n,
    processing_status: recordingImport?.processing_status ?? null,
    recording_import: recordingImport,
  };
}

export function getSeriesRefOrThrow(sqlite: Sqlite, id: string): SeriesRef {
  const row = stmt<SeriesRef>(sqlite, 'SELECT id, title, cadence FROM series WHERE id = ?').get(id);
  if (!row) throw notFound(sqlite, 'series', id);
  return row;
}

/** Meetings of the meeting's series, newest first; empty when it belongs to none. */
export function seriesHistoryOrThrow(
  sqlite: Sqlite,
  meetingId: string,
  page: Page,
): { meeting_id: string; series: SeriesRef | null; meetings: MeetingListItem[]; pagination: Pagination } {
  const row = stmt<{ series_id: string | null }>(sqlite, 'SELECT series_id FROM meetings WHERE id = ?').get(meetingId);
  if (!row) throw meetingNotFound(sqlite, meetingId);
  if (row.series_id === null) return { meeting_id: meetingId, series: null, meetings: [], pagination: pagination(page, 0, 0) };
  const series = getSeriesRefOrThrow(sqlite, row.series_id);
  const { meetings, total } = seriesMeetings(sqlite, row.series_id, page);
  return { meeting_id: meetingId, series, meetings, pagination: pagination(page, meetings.length, total) };
}

export function seriesMeetings(sqlite: Sqlite, seriesId: string, page: Page): { meetings: MeetingListItem[]; total: number } {
  const meetings = stmt<MeetingListItem>(sqlite, `SELECT ${MEETING_ITEM_COLUMNS} FROM meetings m WHERE m.series_id = ? ${NEWEST_FIRST} LIMIT ? OFFSET ?`).all(
    seriesId,
    page.limit,
    page.offset,
  );
  const total = stmt<{ n: number }>(sqlite, 'SELECT count(*) AS n FROM meetings WHERE series_id = ?').get(seriesId)!.n;
  return { meetings, total };
}
