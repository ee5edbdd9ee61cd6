import type { Sqlite } from '../open.js';
import { matchFragment, stmt } from '../statements.js';
import type { SearchKind } from '../schema/enums.js';
import { InvalidInputError } from '../../errors.js';
import { compileMeetingFilter, rangeSql, type FilterPart, type MeetingFilter } from './meetings.js';
import { pagination } from './pagination.js';
import type { Page, Pagination } from './types.js';
import { calendarCover, monthsLessDays } from '../model/calendar.js';
import { firstInOrder, passagesSaying, phraseFirst, rankWindow, type RankedRow } from './rank.js';
import { SNIPPET_TOKENS, snippetOf } from './snippet.js';
import { asciiTokens, tokenizedAsAscii } from './fts-tokens.js';
import { quoteToken } from './list-index.js';
import { gramTerm, idsNewestFirst, listTerm, matchBits, saidTerm, tagTerm, termsBuilt, windowCells, wordTerm, type BitsGroup } from './search-bits.js';

/** A transcript passage is one speaker turn, cut after this many words. */
export const PASSAGE_MAX_WORDS = 60;

type WordRow = [idx: number, text: string, speaker: string | null];

/**
 * (Re)writes the search passages of a transcript from word `fromIdx` on. The passage that holds
 * `fromIdx` is rebuilt too, so appending a chunk extends the last turn instead of splitting it.
 * Run inside the transaction that wrote the words.
 */
export function indexTranscript(sqlite: Sqlite, transcriptId: string, meetingId: string, fromIdx = 0): void {
  const start =
    fromIdx === 0
      ? 0
      : (stmt<{ start: number | null }>(sqlite, 'SELECT max(word_offset) AS start FROM search_passages WHERE ref_id = ? AND word_offset <= ?').get(transcriptId, fromIdx)!.start ??
        0);
  stmt(sqlite, 'DELETE FROM search_passages WHERE ref_id = ? AND word_offset >= ?').run(transcriptId, start);
  const words = stmt(sqlite, 'SELECT idx, text, speaker FROM transcript_words WHERE transcript_id = ? AND idx >= ? ORDER BY idx').raw().all(transcriptId, start) as WordRow[];
  // Indexed with the meeting's tags (search_passages.tags, see migration 0010).
  const tags = stmt<{ t: string }>(sqlite, 'SELECT search_tags AS t FROM meetings WHERE id = ?').get(meetingId)?.t ?? '';
  const insert = stmt(sqlite, "INSERT INTO search_passages (meeting_id, kind, ref_id, word_offset, speaker, text, tags) VALUES (?, 'transcript', ?, ?, ?, ?, ?)");
  let first = 0;
  for (let i = 1; i <= words.length; i++) {
    if (i === words.length || words[i]![2] !== words[first]![2] || i - first >= PASSAGE_MAX_WORDS) {
      const passage = words.slice(first, i);
      insert.run(meetingId, transcriptId, passage[0]![0], passage[0]![2], passage.map((w) => w[1]).join(' '), tags);
      first = i;
    }
  }
}

// The hit's shape is declared once, with its schema (src/db/model/shapes.ts).
export type { SearchHit } from './types.js';
import type { SearchHit } from './types.js';

export interface SearchFilter extends Omit<MeetingFilter, 'query'> {
  query: string;
}

/**
 * Words of a query, for FTS5: every run of letters or digits, each quoted, so quotes, `*`, `-`,
 * `NEAR`, `AND`/`OR` are plain text and never FTS syntax.
 */
export function queryTerms(query: string): string[] {
  return query.match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
}

const quote = (term: string) => `"${term.replace(/"/g, '""')}"`;

interface HitRow {
  id: number;
  meeting_id: string;
  title: string;
  started_at: string;
  kind: SearchKind;
  ref_id: string;
  word_offset: number | null;
  speaker: string | null;
}

/**
 * Ranking work is bounded: the newest RANK_WINDOW matching passages are ranked (exact phrase first,
 * then BM25); older matches follow, newest first. BM25 costs ~1.5 µs a match, so ranking every
 * passage that says "budget" in ten million words would cost seconds; this costs a few ms at most.
 */
export const RANK_WINDOW = 2000;

/** The matches with no filter but those inside the index. */
const MATCH_ONLY = 'FROM search_fts f WHERE search_fts MATCH ?';

/** Below this many meetings passing a filter no tag holds (a participant fragment in more than MAX_PARTICIPANT_HANDLES names), search reads their passages rather than joining every match. */
const FEW_MEETINGS = 1000;
/**
 * With every word's bitmaps built, up to this many: their passages are then set in the bits (~1 µs each), or else the
 * word's matches walked once and kept when theirs. Joined match by match to the meetings, `the` with a fragment across
 * words held by 1,580 meetings took 896 ms at 100k meetings.
 */
const FEW_MEETINGS_WITH_BITS = 20_000;

/**
 * A participant fragment in more names than MAX_PARTICIPANT_HANDLES and in too many meetings to read their passages
 * (`person1`: 1,111 of the 2,000 e-mails at 100k meetings, in 93% of the meetings), with words whose bitmaps are not all
 * built (a word not dense), the rarest said in at most this many passages: each match is checked on its meeting's
 * participants (the part's `probe`, ~2.5 µs a match), rather than every participant matched by LIKE for an IN in each
 * of the search's statements (~55 ms each: `marmarorpla` + `person1` 139 ms, `logrepovi`, in 10,026 passages, 216).
 * With every word's bitmaps built, the names' lists are ORed instead (~13 ms for any word: 1,111 names); so with said
 * lists, past NAME_PROBES.
 */
const PROBED_MATCHES = 50_000;

/**
 * With words not dense but said in many passages (a said list each), a participant fragment's names are ORed from
 * their lists rather than each match probed when the rarest word's passages are at least this many times its names: a
 * name's list costs about as much as that many matches probed (at 100k meetings, ~11 µs a name, its ~800 passages,
 * against ~4.5 µs a passage probed in the count and the window: `elra`, 9,822 passages, + `person1`, 1,111 names, 42 ->
 * 15 ms; `ramineti`, 2,789, + `1`, 2,542 names, probed in 16 ms against 31 from the lists).
 */
const NAME_PROBES = 2.5;

/**
 * A tag group of at least CHECKED_TAGS tags (the names holding a participant fragment, up to MAX_PARTICIPANT_HANDLES)
 * with words the rarest of which is said in at most CHECKED_MATCHES passages, when the bitmaps do not answer: FTS5 seeks
 * each tag's doclist at every match of the words (`that antoralo` + `erg `, 238 names, `antoralo` in 445 passages: 11 ms
 * at 100k meetings, ~0.1 µs a match and tag), so the words' matches are read without the group and each one's tags
 * checked against it here (~1-1.5 µs a match).
 */
const CHECKED_TAGS = 64;
const CHECKED_MATCHES = 2_000;

/**
 * A from/to range as calendar tokens of the tags (view meeting_search_tags): the fewest year, month and
 * day tokens covering the days strictly between the range's first and last day (every meeting of those
 * days is inside the range, whatever the time of day), plus the first and last day's tokens and `dx`
 * (a start that is not a date), whose meetings outside the range `outside` selects from meeting_tags,
 * with exactly the comparisons of rangeSql. Undefined without dates, or when it would take too many tokens.
 */
function dateTerm(sqlite: Sqlite, range: { from?: string; to?: string }): { tokens: string[]; outside?: { sql: string; params: string[] } } | undefined {
  if (range.from === undefined && range.to === undefined) return undefined;
  // The first and last days that hold meetings: the cover need not reach past them.
  const extreme = (order: 'ASC' | 'DESC') =>
    stmt<{ tag: string }>(sqlite, `SELECT tag FROM meeting_tags WHERE tag > 'd' AND tag < 'd:' ORDER BY tag ${order} LIMIT 1`).get()?.tag;
  const [first, last] = [extreme('ASC'), extreme('DESC')];
  const cover = calendarCover(range, first, last);
  if (cover === null) return undefined;
  const { tokens, edges } = cover;
  const failing = rangeSql(range, 't.started_at');
  const outside = { sql: `t.tag IN (${edges.map(() => '?').join(', ')}) AND NOT (${failing.sql.join(' AND ')})`, params: [...edges, ...failing.params] };
  const any = stmt<{ n: number }>(sqlite, `SELECT EXISTS (SELECT 1 FROM meeting_tags t WHERE ${outside.sql}) AS n`).get(...outside.params)!.n;
  return { tokens, ...(any ? { outside } : {}) };
}

/**
 * A range's calendar tokens as a group of the bitmaps: a month the range holds most days of is read as the month's
 * bits less the days it leaves out (the days are not dense: each read from FTS5; six months at 100k meetings: 31
 * days and 6,299 passages read from FTS5 become 2 days, 2 left out and 429 passages).
 */
function dateGroup(sqlite: Sqlite, tokens: string[]): BitsGroup {
  const built = stmt<{ built: number }>(sqlite, 'SELECT built FROM search_bits_terms WHERE term = ?');
  const { tokens: tags, less } = monthsLessDays(tokens, (month) => (built.get(tagTerm(month))?.built ?? 0) > 0);
  return { tags, less };
}

/**
 * A participant fragment in many names: what matchBits reads for them (`bits`: their bits and lists, or their gram's
 * bits), and how a passage the bits do not cover is checked: its tags against the names' (`tags`, read when first
 * needed), or, when few, its meeting's participants' grams (`gram`: its gram's token in meeting_terms, migration 0025,
 * held by exactly the fragment's meetings; see GRAM_CHECKS).
 */
type ManyNames = { tags: () => string[]; gram?: string; bits: BitsGroup };

/**
 * Passages the bits do not cover (above them, or marked) checked for a fragment read from its gram at most this many in
 * meeting_terms (~6.5 µs each at 100k meetings: the passage's meeting, its key, the gram's doclist sought); more are
 * checked on their tags against its names' (`person1`'s 1,111 read once, ~0.5 ms, then ~1 µs a passage).
 */
const GRAM_CHECKS = 64;

/**
 * The tags of the names and e-mails holding a participant fragment too common for a filter's tags (FilterPart.manyTags),
 * as a group of the bitmaps with its terms' built blocks (BitsGroup), when each has its bits or its list built over
 * `built` blocks, those of the words' bitmaps (a list is new for a name added since the worker last read the terms).
 */
function manyNames(sqlite: Sqlite, part: FilterPart, built: number): ManyNames | undefined {
  const tags = part.manyTags?.();
  if (tags === undefined) return undefined;
  const terms = termsBuilt(sqlite, tags.flatMap((t) => [tagTerm(t), listTerm(t)]));
  const ready = (term: string) => (terms.get(term) ?? 0) >= built;
  return tags.every((t) => ready(tagTerm(t)) || ready(listTerm(t))) ? { tags: () => tags, bits: { tags, built: terms } } : undefined;
}

/**
 * Of passages `ids`, those whose tags column holds a tag of each of `groups` (lower case), with their tags' tokens; and
 * those whose tags go beyond the tokenizer's ASCII rules (`unsure`: the caller asks FTS5).
 */
function tagsHolding(sqlite: Sqlite, ids: number[], groups: Set<string>[]): { passing: { id: number; tokens: string[] }[]; unsure: number[] } {
  const rows = stmt(sqlite, 'SELECT id, tags FROM search_passages WHERE id IN (SELECT value FROM json_each(?))').raw().all(JSON.stringify(ids)) as [number, string][];
  const unsure: number[] = [];
  const passing = rows.flatMap(([id, tags]) => {
    const tokens = asciiTokens(tags);
    if (tokens === undefined) unsure.push(id);
    return tokens !== undefined && groups.every((group) => tokens.some((t) => group.has(t))) ? [{ id, tokens }] : [];
  });
  return { passing, unsure };
}

/** The passages of the meetings on a range's first and last days that fall outside it (by time of day). */
function outsidePassages(sqlite: Sqlite, outside: { sql: string; params: string[] }): number[] {
  return stmt(sqlite, `SELECT p.id FROM meeting_tags t JOIN search_passages p ON p.meeting_id = t.meeting_id WHERE ${outside.sql}`).pluck().all(...outside.params) as number[];
}

/** How the matches are read (tests ask for each way; by default the data decides). */
export interface SearchOptions {
  /** `fts5`: the window ranked by FTS5's bm25(); `computed`: from kept counts and lengths. */
  rank?: 'fts5' | 'computed';
  /** `false`: no bitmaps, lists or cells read. */
  bits?: boolean;
  /** `false`: a participant fragment in most names matched on every meeting's participants, not as the few meetings it fails. */
  exceptions?: boolean;
  /**
   * A participant fragment in many names: each match's meeting probed, or every participant matched once
   * (PROBED_MATCHES), or (`listed`) its names' lists ORed whenever its words' bitmaps or said lists are built (NAME_PROBES),
   * not its gram's bits (by default, when built).
   */
  participants?: 'probed' | 'joined' | 'listed';
  /** A tag group of many names with rare words: its tags matched by FTS5, or checked on the words' matches (CHECKED_TAGS decides). */
  manyTags?: 'fts5' | 'checked';
}

/**
 * search_transcripts: passages containing every word of the query, filtered by the meeting filters of
 * list_meetings. Order: within the newest RANK_WINDOW matches, exact phrase first, then BM25; then
 * the older matches, newest first. Deterministic, so offsets page consistently.
 */
export function searchTranscripts(sqlite: Sqlite, filter: SearchFilter, page: Page, options: SearchOptions = {}): { hits: SearchHit[]; pagination: Pagination } {
  // One snapshot for the count, the window, the ranking and the page: a writer committing between them
  // would otherwise leave a hit without its passage.
  if (!sqlite.inTransaction) return sqlite.transaction(() => searchTranscripts(sqlite, filter, page, options)).deferred();
  const terms = queryTerms(matchFragment(filter.query, 'query'));
  // Nothing searchable (empty, blank, only punctuation): an empty list would read as "never discussed".
  if (terms.length === 0)
    throw new InvalidInputError({ type: 'no_search_word', query: filter.query });
  // Restricted to the text column only when a word could be a tag token (the restriction costs ~70% on
  // a common word's count): tags are f/s + hex digits, p/h + digits, `hx` (no participants) and the calendar tokens.
  const mayBeTag = terms.some((t) => /^(?:[fs][0-9a-f]+|[ph][0-9]+|hx|y[0-9]{4}|m[0-9]{6}|d[0-9]{8}|dx)$/i.test(t.normalize('NFD').replace(/\p{M}/gu, '')));
  const column = mayBeTag ? '{text} : ' : '';
  // A word said twice (`the the`) matches what it matches once: FTS5 would walk its postings twice.
  // Only the ranking counts it twice (BM25 adds each word's share).
  const distinct = [...new Set(terms.map((t) => (/^\p{ASCII}+$/u.test(t) ? t.toLowerCase() : t)))];
  const words = `${column}(${distinct.map(quote).join(' ')})`;
  const c = compileMeetingFilter(sqlite, { ...filter, query: undefined }, options);
  if (c.none) return { hits: [], pagination: pagination(page, 0, 0) };
  // Folder, series, participant words, names and e-mails, and dates are terms of the index (column `tags`): FTS5
  // intersects them with the words; only a participant fragment in more names than MAX_PARTICIPANT_HANDLES needs the
  // meetings.
  const dates = dateTerm(sqlite, c.range);
  const untagged = c.parts.filter((p) => !p.tags && !p.except);
  // A participant fragment in most names: the few meetings it fails, left out (the few meetings' list, or their passages).
  const except = c.parts.find((p) => p.except)?.except;
  // The dates stay a condition too when the meetings are read anyway (or the range needs too many tokens).
  const range = untagged.length > 0 || !dates ? rangeSql(c.range, 'm.started_at') : { sql: [], params: [] };
  // Words the bitmaps and the kept counts may hold (ASCII letters and digits, as the tokenizer keeps them).
  const plainWords = distinct.every((w) => /^[a-z0-9]+$/.test(w));
  // Each word's built blocks: of its bitmaps (`text:`) and of its said list (`said:`, migration 0023), when it has them.
  const wordBits =
    (untagged.length > 0 || range.sql.length > 0) && options.bits !== false && plainWords
      ? termsBuilt(sqlite, distinct.flatMap((w) => [wordTerm(w), saidTerm(w)]))
      : undefined;
  /** The blocks over which every word has what `of` gives built (`of`: a word's built blocks, 0 for none). */
  const builtOver = (of: (w: string) => number) => (wordBits ? Math.min(...distinct.map(of)) : 0);
  // The blocks every word's bitmaps are built over (0: not all of them are).
  const wordsBuilt = builtOver((w) => wordBits!.get(wordTerm(w)) ?? 0);
  let fewestSaid: number | undefined;
  const rarest = () => (fewestSaid ??= Math.min(...distinct.map((w) => passagesSaying(sqlite, w))));
  // A participant fragment in more names and e-mails than MAX_PARTICIPANT_HANDLES (a letter: "e" is in 3,118 of the
  // 4,000 at 100k meetings, held by 99% of the meetings): with the words' bitmaps built, and every one of the names'
  // bits or list (migration 0021) built as far, its names are a group of the bitmaps, and the matches above the
  // bitmaps and the dirty ones are checked on their tags (below). No meeting is read. (Should the bitmaps refuse after
  // all, too many passages being marked, each match is joined to its meeting, as for a fragment in many meetings.)
  // So with words not dense but said in many passages (each a said list, migration 0023, or bitmaps), when the names'
  // lists cost less than probing each match (NAME_PROBES).
  // Rather than its names, the fragment's gram (its meetings' passages, one row a block) when the gram's bits are built as
  // far (DENSE_GRAM_SHARE): `person1` + `the` at 100k meetings, its 1,111 names' lists 865,000 ids.
  const one = untagged.length === 1 ? untagged[0]! : undefined;
  const gramOver = (bound: number): ManyNames | undefined => {
    const token = one?.manyTags && options.participants !== 'listed' ? one.gram?.() : undefined;
    if (token === undefined) return undefined;
    const term = gramTerm(token);
    if ((termsBuilt(sqlite, [term]).get(term) ?? 0) < bound) return undefined;
    let tags: string[] | undefined;
    return { tags: () => (tags ??= one!.manyTags!()), gram: token, bits: { term } };
  };
  let many: ManyNames | undefined;
  if (one && wordsBuilt && options.participants !== 'probed') many = gramOver(wordsBuilt) ?? manyNames(sqlite, one, wordsBuilt);
  else if (one?.manyTags && wordBits && options.participants !== 'probed' && options.participants !== 'joined') {
    // Every word's bitmaps or said list, whichever is built further: what matchBits reads it from.
    const listed = builtOver((w) => Math.max(wordBits.get(wordTerm(w)) ?? 0, wordBits.get(saidTerm(w)) ?? 0));
    const gram = listed ? gramOver(listed) : undefined;
    const names = gram ?? (listed ? manyNames(sqlite, one, listed) : undefined);
    if (names && (gram || options.participants === 'listed' || rarest() >= NAME_PROBES * names.tags().length)) many = names;
  }
  // Else a fragment in many names with a word not dense: each match's meeting probed (PROBED_MATCHES).
  const probing =
    !many &&
    untagged.some((p) => p.probe) &&
    (options.participants === 'probed' || (options.participants === undefined && plainWords && !wordsBuilt && rarest() <= PROBED_MATCHES));
  const conditions = untagged.map((p) => (probing && p.probe ? { sql: p.probe.sql('m.id'), params: p.probe.params } : p));
  const joined = [...conditions.map((p) => p.sql), ...range.sql];
  let params: unknown[] = [...conditions.flatMap((p) => p.params), ...range.params];
  // The rest: when few meetings pass, as the set of their passages,
  // found from the meetings' indexes; else each match is joined to its meeting (measured: reading the
  // passages of 10,000 meetings costs more than joining the matches of `the`).
  // With few meetings, every match is read (one FTS5 lookup per passage of theirs; in rowid order, SQLite would
  // walk the word's whole doclist instead) and ordered here.
  // The meetings are found once, then named by id: their conditions may cost (a participant fragment matched by LIKE
  // over every participant), and were evaluated in each statement.
  const fewest = wordsBuilt ? FEW_MEETINGS_WITH_BITS : FEW_MEETINGS;
  // Probing, the matches are few: joined to their meetings, not the meetings looked for (probed, most of them to find none).
  const meetings =
    joined.length > 0 && !many && !probing
      ? (stmt(sqlite, `SELECT m.id FROM meetings m WHERE ${[...joined, ...(except ? ['m.id NOT IN (SELECT value FROM json_each(?))'] : [])].join(' AND ')} LIMIT ${fewest}`)
          .pluck()
          .all(...params, ...(except ? [JSON.stringify(except)] : [])) as string[])
      : [];
  const few = joined.length > 0 && !many && !probing && meetings.length < fewest;
  // Many meetings' passages (the bitmaps did not answer after all): the word's matches walked once, each kept when theirs.
  const walk = meetings.length >= FEW_MEETINGS;
  // The dates' tokens narrow what FTS5 walks, but for the few meetings' passages, whose dates are compared on the
  // meetings: each passage's lookup would seek every token (620 ms for ~30 tokens and 700 passages).
  const tagGroups = [...c.parts.filter((p) => p.tags).map((p) => p.tags!), ...(dates && !few ? [dates.tokens] : [])];
  const tagMatch = (tags: string[]) => `{tags} : (${tags.map(quote).join(' OR ')})`;
  const tagTerms = tagGroups.map(tagMatch);
  const all = [words, ...tagTerms].join(' AND ');
  const phrase = [`${column}${quote(terms.join(' '))}`, ...tagTerms].join(' AND ');
  let from = MATCH_ONLY;
  let ranked = from;
  // The few meetings' passages, read only when the bitmaps answer.
  let fewPassages: (() => number[]) | undefined;
  let fewIds: number[] | undefined;
  if (joined.length) {
    if (few) {
      const theirs = 'SELECT p.id FROM search_passages p WHERE p.meeting_id IN (SELECT value FROM json_each(?))';
      const passages = `(${theirs})`;
      const list = JSON.stringify([...meetings].sort());
      params = [list];
      // Read in the order of the meetings given, sorted, as one JSON array (7,381 meetings' 29k passages at 100k: 11 ms
      // against 23 from SQLite's index of the ids built from unsorted ones, a row at a time).
      fewPassages = () =>
        (fewIds ??= JSON.parse(stmt(sqlite, 'SELECT json_group_array(p.id) FROM json_each(?) j JOIN search_passages p ON p.meeting_id = j.value').pluck().get(list) as string) as number[]);
      from = `FROM search_fts f WHERE search_fts MATCH ? AND f.rowid IN ${passages}`;
      // Ranked in one scan of the matches: looked up one rowid at a time, bm25() would count the word's
      // matches again for each (seconds for a common word).
      ranked = `FROM search_fts f WHERE search_fts MATCH ? AND +f.rowid IN ${passages}`;
    } else {
      from = `FROM search_fts f JOIN search_passages p ON p.id = f.rowid JOIN meetings m ON m.id = p.meeting_id WHERE search_fts MATCH ? AND ${joined.join(' AND ')}`;
      ranked = from;
    }
  }
  // The boundary days' tokens also match their meetings outside the range: those passages are left out, unless the
  // range is compared on the meetings anyway.
  const outside = range.sql.length === 0 ? dates?.outside : undefined;
  if (outside) {
    const clause = ` AND f.rowid NOT IN (SELECT p.id FROM meeting_tags t JOIN search_passages p ON p.meeting_id = t.meeting_id WHERE ${outside.sql})`;
    from += clause;
    ranked += clause;
    params.push(...outside.params);
  }
  // The statements before the exceptions' passages are left out: a word's kept count less their matches is its total.
  const bare = from;
  const exceptPassages = except && !few ? (stmt(sqlite, 'SELECT p.id FROM json_each(?) j JOIN search_passages p ON p.meeting_id = j.value').pluck().all(JSON.stringify(except)) as number[]) : undefined;
  if (exceptPassages) {
    const clause = ' AND f.rowid NOT IN (SELECT value FROM json_each(?))';
    from += clause;
    ranked += clause;
    params.push(JSON.stringify(exceptPassages));
  }
  const args = [all, ...params];

  /**
   * The matches of `match` and the filters' `values` (in `statement`, FTS5's MATCH and the filters) from `lowest` up,
   * ascending. FTS5 seeks such a bound only walking up: walked down from the newest to it, it read every match below it
   * too when none was above (`the and to of a`, a phrase said nowhere, looked for in the window: 26 ms against 0.6).
   */
  const matchesFrom = (statement: string, match: string, values: unknown[], lowest: number): number[] =>
    stmt(sqlite, `SELECT f.rowid AS id ${statement} AND f.rowid >= CAST(? AS INTEGER) ORDER BY f.rowid`).pluck().all(match, ...values, lowest) as number[];
  // Matches newest first, at most `limit` of them: how FTS5 walks a doclist cheaply.
  const newestOf = (match: string, limit: number): number[] =>
    few
      ? (stmt(sqlite, `SELECT f.rowid AS id ${walk ? ranked : from}`).pluck().all(match, ...params) as number[]).sort((a, b) => b - a).slice(0, limit)
      : (stmt(sqlite, `SELECT f.rowid AS id ${from} ORDER BY f.rowid DESC LIMIT ?`).pluck().all(match, ...params, limit) as number[]);
  // The boundary days' meetings outside the range, left out of the bitmaps' dates group.
  const asideDays = outside ?? (many ? dates?.outside : undefined);
  // Common words with broad filters: the matches from the bitmaps of the dense terms (migration 0015) below the
  // blocks they cover, intersected with the filters' tags (or the few meetings' passages); those above and those of
  // passages changed since their bits were set, from FTS5. Else the window from FTS5, and the total counted.
  // Several common words without a filter too (`the` and `we`: FTS5 counted their 286,474 matches in 18 ms).
  // And with a participant fragment's exceptions: a word's total is then its kept count less its matches among their
  // passages, which walks its matches (`the`'s 346,673: 27 ms; from the bitmaps, `the` + `e` with 300 exceptions 36 ->
  // 10 ms).
  const tryBits =
    options.bits !== false && (few || many !== undefined || (joined.length === 0 && (tagGroups.length > 0 || distinct.length > 1 || exceptPassages !== undefined))) && plainWords;
  const aside = tryBits ? [...(asideDays ? outsidePassages(sqlite, asideDays) : []), ...(exceptPassages ?? [])] : [];
  const bits = tryBits
    ? matchBits(
        sqlite,
        distinct,
        [
          ...tagGroups.map((tags, i): BitsGroup => (dates && !few && i === tagGroups.length - 1 ? dateGroup(sqlite, dates.tokens) : { tags })),
          ...(fewPassages ? [{ ids: fewPassages }] : []),
          ...(many ? [many.bits] : []),
        ],
        aside,
      )
    : undefined;
  let everyMatch: number[] | undefined;
  let ordered: ((n: number) => number[]) | undefined;
  let counted: number | undefined;
  if (bits) {
    // Which of these passages match: asked of FTS5 for the words only, by rowid, and their filters read from their
    // tags column (a rowid looked up against the whole query seeks every tag of its groups: a range's calendar tokens,
    // ~1 ms a passage with 60 of them); the whole query only for tags beyond the tokenizer's ASCII rules. The few
    // meetings' passages are already the ids asked about: their set again in the statement, SQLite looked every one up.
    // A fragment's many names are tags read the same way, not the meetings' participants (their LIKE over every
    // participant: ~230 ms at 100k meetings), the boundary days' meetings outside the range set aside; or, read from its
    // gram's bits, those passages' meetings' grams when few (GRAM_CHECKS).
    const byTags = few || many !== undefined;
    const lower = (tags: string[]) => new Set(tags.map((t) => t.toLowerCase()));
    const groups = tagGroups.map(lower);
    let names: Set<string> | undefined;
    const left = new Set(many ? aside : []);
    /** Of the passages (and their tokens) the other filters pass, those of the fragment's meetings. */
    const ofMany = (passing: { id: number; tokens: string[] }[]): number[] => {
      if (many === undefined || passing.length === 0) return passing.map((p) => p.id);
      if (many.gram !== undefined && passing.length <= GRAM_CHECKS)
        return stmt(
          sqlite,
          `SELECT p.id FROM search_passages p JOIN meeting_keys k ON k.meeting_id = p.meeting_id
           WHERE p.id IN (SELECT value FROM json_each(?)) AND EXISTS (SELECT 1 FROM meeting_terms t WHERE meeting_terms MATCH ? AND t.rowid = k.key)`,
        )
          .pluck()
          .all(JSON.stringify(passing.map((p) => p.id)), quoteToken(many.gram)) as number[];
      names ??= lower(many.tags());
      return passing.flatMap((p) => (p.tokens.some((t) => names!.has(t)) ? [p.id] : []));
    };
    const askedIn = (statement: string, match: string, values: unknown[], ids: number[]) =>
      stmt(sqlite, `SELECT f.rowid AS id ${statement} AND f.rowid IN (SELECT value FROM json_each(?))`)
        .pluck()
        .all(match, ...values, JSON.stringify(ids)) as number[];
    const asked = (match: string, ids: number[]) => (byTags ? askedIn(MATCH_ONLY, match, [], ids) : askedIn(from, match, params, ids));
    const ask = (ids: number[]): number[] => {
      const said = ids.length ? asked(words, ids) : [];
      if (said.length === 0) return [];
      const { passing, unsure } = tagsHolding(sqlite, said.filter((id) => !left.has(id)), groups);
      // Tags beyond the tokenizer's ASCII rules: the whole query (with many names, joined to the meetings).
      return [...ofMany(passing), ...(unsure.length ? (many ? askedIn(from, all, params, unsure) : asked(all, unsure)) : [])];
    };
    const newer: number[] = [];
    // The dirty passages asked about: for the few meetings, those of their passages only.
    let dirty = bits.dirty;
    if (few) {
      const passages = fewPassages!();
      newer.push(...ask(passages.filter((id) => id >= bits.below)));
      // Their dirty ones, looked up in the few dirty (a set of their 29k passages cost ~1 ms, usually for none).
      if (dirty.length > 0) {
        const marked = new Set(dirty);
        dirty = passages.filter((id) => marked.has(id));
      }
    }
    else if (many) {
      // Above the bitmaps: the matches of the words and the other filters' tags, then their names' tags or their gram read (ask).
      newer.push(...ask(matchesFrom(MATCH_ONLY, all, [], bits.below)));
    } else newer.push(...matchesFrom(from, all, params, bits.below));
    const extra = [...newer, ...ask(dirty)].sort((a, b) => b - a);
    counted = extra.length + bits.count;
    // Newest first: those from FTS5 (all above the bitmaps' matches but for the dirty ones) merged with the bits' ids.
    const sequence = (function* () {
      let i = 0;
      for (const id of idsNewestFirst(bits.bits)) {
        while (i < extra.length && extra[i]! > id) yield extra[i++]!;
        yield id;
      }
      while (i < extra.length) yield extra[i++]!;
    })();
    const taken: number[] = [];
    ordered = (n) => {
      while (taken.length < n) {
        const next = sequence.next();
        if (next.done) break;
        taken.push(next.value);
      }
      return taken.slice(0, n);
    };
  } else if (few) everyMatch = newestOf(all, Infinity);
  // A group of many tags with rare words (CHECKED_TAGS): the words' matches and the other groups' from FTS5, each one's
  // tags checked against the group's. (Their window's texts are read to rank it, the rare words having no cells: the
  // phrase is found in them, not walked.)
  const checked = !bits && !few && plainWords && options.manyTags !== 'fts5' ? tagGroups.filter((g) => g.length >= CHECKED_TAGS) : [];
  if (checked.length > 0 && (options.manyTags === 'checked' || rarest() <= CHECKED_MATCHES)) {
    const others = tagGroups.filter((g) => !checked.includes(g)).map(tagMatch);
    const candidates = stmt(sqlite, `SELECT f.rowid AS id ${from} ORDER BY f.rowid DESC`).pluck().all([words, ...others].join(' AND '), ...params) as number[];
    const { passing, unsure } = tagsHolding(sqlite, candidates, checked.map((g) => new Set(g.map((t) => t.toLowerCase()))));
    const kept = new Set(passing.map((p) => p.id));
    // Tags beyond the tokenizer's ASCII rules: the whole query, for those.
    if (unsure.length > 0)
      for (const id of stmt(sqlite, `SELECT f.rowid AS id ${from} AND f.rowid IN (SELECT value FROM json_each(?))`).pluck().all(all, ...params, JSON.stringify(unsure)) as number[]) kept.add(id);
    everyMatch = candidates.filter((id) => kept.has(id));
  }
  // The window. When it holds every match, it is the total.
  const newest = ordered?.(RANK_WINDOW) ?? everyMatch?.slice(0, RANK_WINDOW) ?? newestOf(all, RANK_WINDOW);
  // One word and no filter: its count of passages is kept (search_word_counts, migration 0013), else counted.
  const own = distinct.length === 1 && all === words && bare === MATCH_ONLY;
  // Less the matches among the exceptions' passages (read when the total is not known otherwise), the word's matches
  // walked and each looked up in their set (`+`): FTS5 seeking each of 1,112 passages took 26-30 ms, whatever the word;
  // the walk of `elra`'s 9,822 matches 1.4.
  const kept = () => {
    const saying = own && plainWords ? passagesSaying(sqlite, distinct[0]!) : undefined;
    if (saying === undefined || !exceptPassages) return saying;
    return saying - (stmt(sqlite, `SELECT count(*) ${MATCH_ONLY} AND +f.rowid IN (SELECT value FROM json_each(?))`).pluck().get(words, JSON.stringify(exceptPassages)) as number);
  };
  const total = counted ?? everyMatch?.length ?? (newest.length < RANK_WINDOW ? newest.length : (kept() ?? stmt<{ n: number }>(sqlite, `SELECT count(*) AS n ${from}`).get(...args)!.n));
  // BM25 for these rows only: by FTS5's bm25() when its IDF counts are known to be cheap (one word, no
  // filter, its matches under ~60 a window row: bm25() walks ~25 ns a match, reading a row here costs
  // ~1.5 µs), or where only it is exact; else computed here without those counts (src/db/queries/rank.ts).
  // What BM25 needs of the window's passages, kept for the dense words (migration 0016) and in the said lists of the
  // words neither dense nor rare (migration 0023): those it covers are not read. The said lists for one word, or a full
  // window: a window of several words holding every match is read whole, the phrase found in its texts (measured with a
  // list for a word of 452 passages, `the marmarorpla`: 5.2 ms a call against 7.5 with the list, FTS5 walking the
  // phrase through every match); a full window's phrase is walked down to its boundary only (`the elra`, 2,000 of
  // 9,397: 13 ms against 6-7.5).
  const cells =
    options.bits !== false && options.rank !== 'fts5' && plainWords ? windowCells(sqlite, distinct, newest, terms.length === 1 || newest.length === RANK_WINDOW) : undefined;
  const computed = options.rank === 'computed' || (options.rank !== 'fts5' && (cells !== undefined || !(own && total < 60 * newest.length)));
  const window =
    (computed ? rankWindow(sqlite, newest, terms, cells, terms.length > 1) : undefined) ??
    stmt<RankedRow>(sqlite, `SELECT f.rowid AS id, bm25(search_fts, 1.0, 0.0) AS score ${ranked} ORDER BY f.rowid DESC LIMIT ?`).all(
      [`${column}(${terms.map(quote).join(' ')})`, ...tagTerms].join(' AND '),
      ...params,
      RANK_WINDOW,
    );
  const boundary = newest.at(-1) ?? 0;
  const exact = new Set<number>();
  // The exact phrase first, then BM25, then the newest: the phrase's rows sorted apart (a comparator looking the phrase
  // up at each comparison cost 0.75 ms of `the elra`'s 2,000 rows).
  // Only the rows up to the page's end are ordered (sorting all 2,000 cost ~0.4 ms a search).
  const byScore = (a: RankedRow, b: RankedRow) => a.score - b.score || b.id - a.id;
  const upTo = page.offset + page.limit;
  // Every row's text read to rank it (a word not dense: no cells): the phrase found in the texts (`the marmarorpla`:
  // 430 texts, ~0.2 ms, against FTS5's walk of the phrase down to the window's boundary, 1.4 ms).
  const fromTexts = terms.length > 1 && window.length > 0 && window.every((r) => r.exact !== undefined);
  if (fromTexts) {
    for (const r of window) if (r.exact) exact.add(r.id);
  } else if (terms.length > 1 && window.length > 0) {
    // A window holding every match, ranked from the cells: its boundary is the oldest match, so FTS5 walked the phrase
    // through the whole index (`the and` + the smallest leaf folder, 1,247 matches: 1.9 ms). Looked for in the texts of
    // the best ranked first, until the page's end is reached (phraseFirst: its 10 in the best 80, or further down while
    // the texts cost less than the walk: `the mitoka` + a month, 5.3 -> 3.4 ms).
    // Else phrase matches that pass the filters are a subset of the matches: those of the window are at or after its
    // boundary. With many names, the phrase's matches of the other filters: those in the window are matches already.
    const phrased =
      (newest.length < RANK_WINDOW ? phraseFirst(sqlite, window, terms, byScore, upTo)?.map((r) => r.id) : undefined) ??
      (few ? newestOf(phrase, RANK_WINDOW).filter((id) => id >= boundary) : many ? matchesFrom(MATCH_ONLY, phrase, [], boundary) : matchesFrom(from, phrase, params, boundary));
    for (const id of phrased) exact.add(id);
  }
  const phrased = exact.size === 0 ? [] : firstInOrder(window.filter((r) => exact.has(r.id)), byScore, upTo);
  const rest = exact.size === 0 ? window : window.filter((r) => !exact.has(r.id));
  const sorted = [...phrased, ...firstInOrder(rest, byScore, upTo - phrased.length)];

  const ids = sorted.slice(page.offset, upTo).map((r) => r.id);
  if (ids.length < page.limit && total > window.length) {
    const [limit, skip] = [page.limit - ids.length, Math.max(0, page.offset - window.length)];
    const older = ordered
      ? ordered(window.length + skip + limit).slice(window.length + skip)
      : everyMatch
      ? everyMatch.slice(window.length + skip, window.length + skip + limit)
      : // The bound as an integer: better-sqlite3 binds a number as a REAL, and FTS5 takes only an integer as a bound of
        // its rowid (fts5GetRowidLimit); with a REAL it walked from the newest and SQLite left out the rows past it.
        (stmt(sqlite, `SELECT f.rowid AS id ${from} AND f.rowid < ? ORDER BY f.rowid DESC LIMIT ? OFFSET ?`).pluck().all(...args, BigInt(boundary), limit, skip) as number[]);
    ids.push(...older);
  }

  const rows = new Map(
    (ids.length
      ? stmt<HitRow & { text: string }>(
          sqlite,
          `SELECT p.id, p.meeting_id, m.title, m.started_at, p.kind, p.ref_id, p.word_offset, p.speaker, p.text
           FROM search_passages p JOIN meetings m ON m.id = p.meeting_id WHERE p.id IN (${ids.map(() => '?').join(',')})`,
        ).all(...ids)
      : []
    ).map((r) => [r.id, r]),
  );
  const { snippets, firstMatch } = snippetsAndFirstMatches(sqlite, words, distinct, rows);
  const hits = ids.map((id): SearchHit => {
    const r = rows.get(id)!;
    return {
      meeting_id: r.meeting_id,
      title: r.title,
      started_at: r.started_at,
      kind: r.kind,
      summary_id: r.kind === 'summary' ? r.ref_id : null,
      speaker: r.speaker,
      ...pointAt(sqlite, r, firstMatch.get(id) ?? 0),
      snippet: snippets.get(id) ?? '',
    };
  });
  return { hits, pagination: pagination(page, hits.length, total) };
}

/**
 * The page's snippets and where in each passage the first matched word is, counted in words (the passage text's words
 * are the transcript's words joined by single spaces; stored words hold no whitespace). Computed from the rows' texts
 * as FTS5's snippet() and highlight() compute them (snippet.ts) where its tokens are exactly FTS5's: every word of the
 * query and every token of the text ASCII letters and digits. The other rows (a word or a text beyond ASCII: stemming
 * and diacritics as FTS5 sees them) by FTS5, in one statement.
 */
function snippetsAndFirstMatches(
  sqlite: Sqlite,
  match: string,
  words: string[],
  rows: Map<number, { text: string }>,
): { snippets: Map<number, string>; firstMatch: Map<number, number> } {
  const snippets = new Map<number, string>();
  const firstMatch = new Map<number, number>();
  const ascii = words.every((w) => /^[a-z0-9]+$/.test(w));
  const rest: number[] = [];
  for (const [id, { text }] of rows) {
    if (!ascii || !tokenizedAsAscii(text)) {
      rest.push(id);
      continue;
    }
    const s = snippetOf(text, words);
    snippets.set(id, s.snippet);
    if (s.firstMatch !== null) firstMatch.set(id, s.firstMatch);
  }
  if (rest.length === 0) return { snippets, firstMatch };
  // At most one statement shape per page size (the cache keeps them).
  const found = stmt<{ id: number; snippet: string; marked: string }>(
    sqlite,
    `SELECT rowid AS id, snippet(search_fts, 0, '**', '**', '…', ${SNIPPET_TOKENS}) AS snippet, highlight(search_fts, 0, char(1), '') AS marked
     FROM search_fts WHERE search_fts MATCH ? AND rowid IN (${rest.map(() => '?').join(',')})`,
  ).all(match, ...rest);
  for (const r of found) {
    snippets.set(r.id, r.snippet.replace(/\s*\n+\s*/g, ' '));
    const at = r.marked.indexOf('\u0001');
    if (at > 0) firstMatch.set(r.id, r.marked.slice(0, at).split(' ').length - 1);
  }
  return { snippets, firstMatch };
}

/** A transcript hit's offset and start time: those of its first matched word. */
function pointAt(sqlite: Sqlite, r: HitRow, inPassage: number): { offset: number | null; start_ms: number | null } {
  if (r.kind !== 'transcript' || r.word_offset === null) return { offset: r.word_offset, start_ms: null };
  const offset = r.word_offset + inPassage;
  const word = stmt<{ start_ms: number | null }>(sqlite, 'SELECT start_ms FROM transcript_words WHERE transcript_id = ? AND idx = ?').get(r.ref_id, offset);
  return { offset, start_ms: word?.start_ms ?? null };
}

