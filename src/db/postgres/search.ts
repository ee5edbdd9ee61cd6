import { InvalidInputError } from '../../errors.js';
import { matchFragment } from '../statements.js';
import { pagination } from '../queries/pagination.js';
import { PASSAGE_MAX_WORDS, queryTerms, RANK_WINDOW, type SearchFilter, type SearchHit } from '../queries/search.js';
import type { SearchKind } from '../schema/enums.js';
import type { Page, Pagination } from '../queries/types.js';
import { MAX_PARTICIPANT_EXCEPTIONS } from '../queries/participant-words.js';
import { compileMeetingFilter, compileTags, MAX_GRAM_EXCEPTIONS, probedFor, tagBlocks, type TagFilter } from './meetings.js';
import { dateTerm, startedWithin } from './calendar.js';
import type { Pool } from 'pg';
import { genericPoolOf, one, rows, rowsGeneric, rowsGenericOr, rowsPlanned, warmCompanions, withMergePlans, type Queryable } from './sql.js';
import { monthsLessDays } from '../model/calendar.js';
import { bitmapTotal, keptCount, keptView, renewKeptView, TAIL_READ } from './bitmaps.js';
import { snippetOf } from '../queries/snippet.js';

// search_transcripts on PostgreSQL: the same semantics as SQLite's FTS5 search (src/db/queries/search.ts).
// Every word must appear (plainto_tsquery: AND of the words), the input is plain text (only runs of
// letters and digits are kept, as on SQLite), folded and without diacritics (syntheo_fold, as the
// stored tsvector); within the newest RANK_WINDOW matches the exact phrase comes first
// (phraseto_tsquery), then BM25 of how often each passage says each word (see `share`); then older
// matches, newest first. Hits point at word offsets.

/**
 * The query's words as a phrase (phraseto_tsquery), computed once a statement: a scalar subquery is an InitPlan. Written inline in a
 * select list, it is computed again for every row once a prepared statement runs its generic plan (from the sixth
 * call): `the the` ranked its 2,000 window rows in 14.5 ms instead of 7.2 (psql, PREPARE and EXECUTE, p50).
 * Not in a WHERE: a custom plan estimates a match's rows from the constant, not from an InitPlan's parameter.
 */
const phraseQuery = (param: string) => `(SELECT phraseto_tsquery('simple', syntheo_fold(${param})))`;

/**
 * The window is ranked by BM25 as SQLite's bm25() ranks it (k1 = 1.2; src/db/queries/rank.ts), of how often each
 * passage says each word, without its length (b = 0: PostgreSQL keeps no passage's length). Those counts are kept (the
 * postings' `n`, migration 0004, and the dense words' counts, 0020), so a window is ranked without reading its passages;
 * only the phrase is looked for in them, in rank order, until the page is full. (ts_rank_cd, which ranked several words
 * before, reads every passage of the window: ~1.2 µs a passage for two words and 3.3 for five, on top of reading them,
 * ~1 µs each.) For one lexeme, this is the order of its count alone, as before.
 * A lexeme's share of a passage's score: its IDF `idf` and the passage's count of it `n` (SQL expressions).
 */
const share = (idf: string, n: string) => `${idf} * ${n}::float8 * 2.2::float8 / (${n}::float8 + 1.2::float8)`;

/**
 * A lexeme's IDF (floored at 1e-6, as bm25()'s) from `n` (SQL), the passages saying it, and the highest passage id as
 * the number of passages (`t.top`, from TOP: a key's end, where a count would read every passage; ids are not reused).
 * Kept counts gone wrong (more passages than there are, or fewer than none: `syntheo doctor` names them) give the
 * floor rather than the logarithm of a number below zero, which would fail the search.
 */
const idfOf = (n: string) => {
  const said = `greatest(${n}, 0::float8)`;
  return `greatest(1e-6::float8, ln(greatest(t.top - ${said} + 0.5::float8, 0.5::float8) / (${said} + 0.5::float8)))`;
};
const TOP = '(SELECT coalesce(max(id), 0)::float8 AS top FROM search_passages) t';

/**
 * The passage id a kept term's bits (kind `kind`, term `term`: SQL) answer for below, but for the stale blocks: its first
 * block not built's start, or that block's `upto` when it is the newest and its bits there are read (migration 0031, as
 * bitmaps.ts's kb.lo); null when the term is not kept.
 */
const keptUpto = (kind: string, term: string) =>
  `(SELECT CASE WHEN t.block IS NULL THEN k.built::bigint * 4096 ELSE t.upto END FROM search_bitmap_terms k
      LEFT JOIN search_bitmap_tail t ON t.block = k.built AND ${TAIL_READ}
    WHERE k.kind = '${kind}' AND k.term = ${term})`;

/** The distinct lexemes of the query's words (in `param`) as `l`, each with how many passages say it, as kept, as `n`. */
const lexemeCounts = (param: string) =>
  `SELECT u.l, ${keptCount('u.l')}::float8 AS n FROM (SELECT DISTINCT x.lexeme AS l FROM unnest(to_tsvector('simple', syntheo_fold(${param}))) x) u`;

/** The query's lexemes (its words in `param`), each with its IDF (`i`) and as a tsquery of it alone (`q`): a common table expression `lx`. */
const lexemesOf = (param: string) =>
  `lx AS MATERIALIZED (SELECT ${idfOf('x.n')} AS i, ('''' || replace(replace(x.l, '\\', '\\\\'), '''', '''''') || '''')::tsquery AS q
                      FROM (${lexemeCounts(param)}) x, ${TOP}),`;

/**
 * A window row's rank over `p.words` (lx's lexemes; the query's words in `param`): BM25 as `score`, each lexeme's count
 * read as ts_rank_cd of it alone (0.1 a position), and the exact phrase (several words) as `exact`.
 */
const rankOf = (param: string, termCount: number) =>
  `(SELECT sum(${share('l.i', 'f.n')}) FROM lx l CROSS JOIN LATERAL (SELECT round(ts_rank_cd(p.words, l.q) * 10) AS n) f) AS score,
   ${termCount > 1 ? `p.words @@ ${phraseQuery(param)}` : 'false'} AS exact`;

/** Folded as syntheo_fold() folds stored text: no diacritics, lower case. */
const fold = (word: string) => word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

interface HitRow {
  id: number;
  meeting_id: string;
  title: string;
  started_at: string;
  kind: SearchKind;
  ref_id: string;
  word_offset: number | null;
  speaker: string | null;
  text: string;
  /**
   * A transcript passage's words from `word_offset` on, as many as a passage holds at most (PASSAGE_MAX_WORDS), each as
   * its index less `word_offset` and its start time (`-`: none), `3 1200`, separated by commas (HIT_COLUMNS).
   */
  starts?: string | null;
}

/**
 * A hit's columns (HitRow's, but `id`), of passage `p` and its meeting `m`, with its words' start times: the page's
 * passages and those times were two statements at each search, ~0.4 ms each at 100k meetings; read with the page in the
 * window's statement (hitColumns), or in one. A transcript passage's words' start times come whole (its first match is
 * found in its text, by snippetOf): ~0.02 ms a passage, and no plan made longer (in their order, an aggregate sorted
 * them, 0.05; a LATERAL join checking that their `idx` follow each other cost 0.3 ms more to plan). As text: an array of
 * pairs was parsed in ~0.2 ms a page.
 */
const HIT_COLUMNS = `p.meeting_id, m.title, m.started_at, p.kind, p.ref_id, p.word_offset, p.speaker, p.text,
  CASE WHEN p.kind = 'transcript' THEN
    (SELECT coalesce(string_agg((w.idx - p.word_offset) || ' ' || coalesce(w.start_ms::text, '-'), ','), '') FROM transcript_words w
     WHERE w.transcript_id = p.ref_id AND w.idx >= p.word_offset AND w.idx < p.word_offset + ${PASSAGE_MAX_WORDS}) END AS starts`;

/** HIT_COLUMNS of passage `id` (SQL), as pagedWindow reads them with its page. */
const hitColumns = (id: string) => `SELECT ${HIT_COLUMNS} FROM search_passages p JOIN meetings m ON m.id = p.meeting_id WHERE p.id = ${id}`;

/** Word `k`'s start time in a hit's `starts` (HitRow's): null when it has none, or is not there. */
function startIn(starts: string, k: number): number | null {
  const key = `${k} `;
  for (const pair of starts.split(',')) if (pair.startsWith(key)) return pair.endsWith('-') ? null : Number(pair.slice(key.length));
  return null;
}

/** `q` when it is a Store's pool (one with companions: genericPoolOf), whose view of the kept terms a search uses (keptView). */
const storePool = (q: Queryable): Pool | undefined => (genericPoolOf(q) ? (q as Pool) : undefined);

/** How the matches are read (tests ask for each way; by default, WALKED_RATIO and COST_US decide). */
export interface SearchOptions {
  /** How the window reads the matches when the bitmaps count them. */
  window?: 'bits' | 'walk';
  /**
   * How a date range and a participant fragment held by several tags are matched: their tags, or each passage's meeting
   * (the bitmaps then count nothing).
   */
  filters?: 'tags' | 'meetings';
  /** `false`: a participant fragment in most names matched on every meeting's participants, not as the few meetings it fails. */
  exceptions?: boolean;
  /** A participant fragment in too many names for tags: each match's meeting probed, or every participant matched once (PROBED_MATCHES). */
  participants?: 'probed' | 'joined';
  /** Words and one tag: whether the tag's passages are looked up in the words' kept counts (TAG_IN_COUNTS_US), or the key ranges joined. */
  tagInCounts?: boolean;
  /** A participant's gram: whether the matches beyond its bits are tested against its passages there as a set (GRAM_SET_SHARE), or one by one. */
  gramSet?: boolean;
  /** A window read from the bits: whether its matches are the rarest word's postings tested in the bits (DRIVEN_BLOCK_POSTINGS), or the bits' positions. */
  driven?: boolean;
}

export async function searchTranscripts(q: Queryable, filter: SearchFilter, page: Page, options: SearchOptions = {}): Promise<{ hits: SearchHit[]; pagination: Pagination }> {
  const terms = queryTerms(matchFragment(filter.query, 'query'));
  if (terms.length === 0) throw new InvalidInputError({ type: 'no_search_word', query: filter.query });
  const words = terms.join(' ');
  const meetingFilter = { ...filter, query: undefined };
  const filtered = [filter.seriesId, filter.folderPath, filter.from, filter.to].some((v) => v !== undefined) || (filter.participant !== undefined && filter.participant !== '');
  // The matches expected: the rarest word's passages, or, of several words, each word's share of the passages
  // multiplied (as if said independently): `usan kasto` + `1`, 49,874 and 64,676 of 389,640 passages, 9,198 matches
  // (8,278 expected). Read once, when a participant fragment in too many names for tags asks.
  let expecting: Promise<number> | undefined;
  const expected = () =>
    (expecting ??= one<{ n: number }>(
      q,
      `SELECT least(min(x.n), exp(sum(ln(greatest(x.n, 1))) - (count(*) - 1) * ln((SELECT greatest(t.top, 1) FROM ${TOP})))) AS n FROM (${lexemeCounts('$1')}) x`,
      [words],
    ).then((r) => Number(r!.n)));
  // Filters held by tags are postings too (search_tags, migration 0007): the words' and the filters' merged on passage id.
  // A fragment in too many names for tags: the meetings it fails, from its gram's bits, when they cost less to leave out
  // than the matches to check (FAILED_US; not when a way is asked for).
  const lacking =
    options.participants === undefined
      ? async () => {
          const n = await expected();
          return Math.min(MAX_GRAM_EXCEPTIONS, (n * (n <= PROBED_MATCHES ? FAILED_US.probed : FAILED_US.joined)) / FAILED_US.exception);
        }
      : undefined;
  // Or, when it is exactly its participants' gram and that gram's passages' bits are kept (migration 0027), those bits:
  // ANDed with the words' (`the` + `person1`: its 6,985 failed meetings' 27,441 passages were read and tested, ~75 ms of
  // 90), or each match walked tested in them.
  const compile = (passageGram: boolean) =>
    compileTags(q, meetingFilter, { exceptions: options.exceptions, ...(lacking && { lacking }), passageGram: passageGram && options.participants === undefined, folderMeetings: true });
  let tags = filtered ? await compile(true) : { groups: [], range: {}, none: false };
  if (tags?.none) return { hits: [], pagination: pagination(page, 0, 0) };
  const viaTags = async (tags: TagFilter | undefined) => {
    if (!tags) return undefined;
    const byTags = tags.groups.length > 0 || tags.range.from !== undefined || tags.range.to !== undefined || tags.except?.length || tags.passageGram ? tags : undefined;
    // Several words too: their postings are key ranges merged or probed as the tags are (planned with the defaults, the
    // postings of `the` and `and` were hashed: 231 ms against 62 through the Store).
    const merged = byTags !== undefined || new Set(terms.map(fold)).size > 1;
    // The statistics are kept by the pool given (a merge connection is another each time); read on the connection at
    // hand (on the pool given while holding a merge connection, ~1.1x for `the` + `Legal`: another of its connections in use).
    return merged ? await withMergePlans(q, (c) => fromPostings(c, q, words, terms.length, page, options, byTags)) : await fromPostings(q, q, words, terms.length, page, options);
  };
  let counted = await viaTags(tags);
  // The gram's bits not read (not kept, or not built as far as the words' yet, or the other filters matched otherwise):
  // the meetings the fragment fails instead.
  if (!counted && tags?.passageGram) {
    tags = await compile(false);
    counted = await viaTags(tags);
  }
  if (!counted) {
    // A filter that tags do not hold (a fragment in too many names and e-mails), or too many words:
    // each match joined to its meeting, whose participants are probed when the matches expected are few.
    const fragment = filter.participant !== undefined && filter.participant !== '';
    // The matches expected (`usan kasto` + `1`, 9,198 matches, 8,278 expected): joined 155-210 ms, probed ~80.
    const probed = fragment && (options.participants === 'probed' || (options.participants === undefined && (await expected()) <= PROBED_MATCHES));
    const { where, params } = await compileMeetingFilter(q, meetingFilter, 1, probed);
    const alone = [filter.seriesId, filter.folderPath, filter.from, filter.to].every((v) => v === undefined);
    counted = await fromBitmap(q, words, terms.length, where, params, page, fragment && alone);
  }
  const { ids, total } = counted;
  // The page's rows read with it (the window's), the others now, with their words' start times (one statement: their
  // times were looked up by another, ~0.4 ms).
  const byId = new Map(counted.rows);
  const unread = ids.filter((id) => !byId.has(id));
  const found = unread.length
    ? await rowsGenericOr<HitRow>(genericPoolOf(q), q, `SELECT p.id, ${HIT_COLUMNS} FROM search_passages p JOIN meetings m ON m.id = p.meeting_id WHERE p.id = ANY($1::bigint[])`, [unread])
    : [];
  for (const r of found) byId.set(Number(r.id), r);
  // The query's words as the tokens of a text are folded (its runs of letters, digits and marks, as queryTerms reads
  // the query); each passage cut and marked as SQLite's snippet() does (snippet.ts), so that both engines show the same
  // words of a passage.
  const folded = [...new Set(terms.map(fold))];
  // A passage deleted (a transcript re-indexed, a meeting deleted) between the statements above is left out.
  const picked = ids.map((id) => byId.get(id)).filter((r) => r !== undefined);
  const snippets = picked.map((r) => snippetOf(r.text, folded, fold));
  const at = picked.map((r, i) => (r.kind === 'transcript' && r.word_offset !== null ? r.word_offset + (snippets[i]!.firstMatch ?? 0) : null));
  const starts = await startTimes(q, picked, at);
  const hits: SearchHit[] = picked.map((r, i) => ({
    meeting_id: r.meeting_id,
    title: r.title,
    started_at: r.started_at,
    kind: r.kind,
    summary_id: r.kind === 'summary' ? r.ref_id : null,
    speaker: r.speaker,
    offset: at[i] ?? r.word_offset,
    start_ms: starts[i] ?? null,
    snippet: snippets[i]!.snippet,
  }));
  // The Store's view of the kept terms read again for the next search, once old (apart: this one is answered).
  const store = storePool(q);
  if (store) renewKeptView(store);
  return { hits, pagination: pagination(page, hits.length, total) };
}

/** The ids of one page of matches, in search order, and the total; the rows of those read with them, by id. */
interface Matches {
  ids: number[];
  total: number;
  rows?: Map<number, HitRow>;
}

/**
 * The window ranked and paged in its statement (only the page's rows come back: parsing the 2,000 rows of a window
 * cost ~1 ms a search): `withs` (ending with a comma, or empty) then `ranked`, the window's rows (`id`, `score`,
 * `exact`: exact phrase first, then the score, then newest). One row when the page is past the window (`id` null),
 * always with the window's size `n`, its lowest id `lo` and the `total` (computed only when the window holds a match:
 * with none, there are none at all). `hits`: each page row with its hit's columns (hitColumns).
 */
const pagedWindow = (withs: string, ranked: string, total: string, limit: string, offset: string, reach = 'NULL::bigint', hits = false) =>
  `WITH ${withs} r AS MATERIALIZED (${ranked})
   SELECT s.n, s.lo, s.total, s.reach, x.id${hits ? ', h.*' : ''}
   FROM (SELECT count(*)::int AS n, min(r.id) AS lo, CASE WHEN count(*) > 0 THEN ${total} END AS total, ${reach} AS reach FROM r) s
   LEFT JOIN LATERAL (SELECT r.id, r.score, r.exact FROM r ORDER BY r.exact DESC, r.score DESC, r.id DESC LIMIT ${limit} OFFSET ${offset}) x ON true
   ${hits ? `LEFT JOIN LATERAL (${hitColumns('x.id')}) h ON true` : ''}
   ORDER BY x.exact DESC, x.score DESC, x.id DESC`;

/**
 * A pagedWindow's rows (bigint columns: numbers on the Store's pools, which parse int8 so; text on another client), with
 * the page's hits' columns (null in the row of a page past the window).
 */
export type PagedRow = { n: number; lo: string | number | null; total: string | number | null; reach: string | number | null; id: string | number | null } & {
  [K in keyof Omit<HitRow, 'id'>]?: HitRow[K] | null;
};

/**
 * The page's passage ids from a pagedWindow's rows (with the hits read with them), then the older matches (newest
 * first) that `olderThan` reads past the window: from `reach` on when the window's statement found where the page ends
 * (pagedWindow's `reach`, above 0), and again from the start when that read comes short (a writer deleted passages in
 * between: the statements do not share a snapshot).
 */
export async function pageOf(
  window: PagedRow[],
  page: Page,
  olderThan: (boundary: number, limit: number, offset: number, reach?: number) => Promise<{ id: number }[]>,
): Promise<Matches> {
  const { n, lo } = window[0]!;
  const total = n === 0 ? 0 : Number(window[0]!.total);
  const reach = Number(window[0]!.reach ?? 0);
  const ids = window.flatMap((r) => (r.id === null ? [] : [Number(r.id)]));
  // A page's row without its passage (`meeting_id` null) is read again with those past the window.
  const rows = new Map(window.flatMap((r) => (r.id === null || r.meeting_id == null ? [] : [[Number(r.id), { ...r, id: Number(r.id) } as HitRow] as const])));
  if (ids.length < page.limit && total > n) {
    const [limit, offset] = [page.limit - ids.length, Math.max(0, page.offset - n)];
    let older = reach > 0 ? await olderThan(Number(lo), limit, offset, reach) : undefined;
    if (older === undefined || (older.length < limit && offset + older.length < total - n)) older = await olderThan(Number(lo), limit, offset);
    for (const r of older) ids.push(Number(r.id));
  }
  return { ids, total, rows };
}

/**
 * With the bitmaps, and each call planned for its values (see `planOnce`), the window's matches are read from the bits
 * when the key ranges hold more than this many times the matches expected (filters taken as independent), else the
 * ranges are walked from the floor. At 100k meetings, the ranges' rows against the matches expected, and the bits
 * against the walk (calls alternated, 21-41 a row, p50s; this VM varies run to run): `the` + a folder, six months and a participant 286 times, 0.40-0.55x; + two weeks 36 times,
 * 0.32-0.56x; + "Ines Kowalski" and a folder 178 times, 0.43-0.76x. Walked: + the biggest folder 13 times, 1.34-1.74x
 * from the bits (a merge reads the rows above the floor in order; the bits' positions are each looked up in the word's
 * postings), + a common participant word 3 times 1.49-1.99x, + six months 8 times 1.21-1.55x.
 */
const WALKED_RATIO = 20;

/**
 * The two shortest ranges of a search, when walking them reads twice this share of the passages or more, and twice
 * `least` (39,000 rows at 100k meetings; below `least`, a merge costs less than a millisecond), are not walked to find
 * its matches: the bitmaps count them (both costs grow with the passages; ~0.05 µs a row merged, the bits ~2 ms at 100k
 * meetings). A probe of one range's passage into another's costs as much as reading `probeRows` rows (EXPLAIN ANALYZE at
 * 100k meetings: ~2 µs a probe, ~0.07 a row of the merge it replaces).
 */
const LONG_WALK = { share: 1 / 20, least: 2_000, probeRows: 20 };

/**
 * What matching a filter held by several tags costs, a tag or a passage (µs, EXPLAIN ANALYZE at 100k meetings), which
 * decides how a date range or a participant fragment is matched. By its tags: each row read and sorted (`marmarorpla` +
 * six months: 39,802 rows deduplicated and sorted, 35 ms; `Ines Kowalski`'s 30,000 sorted, 11 ms), or, for each passage
 * the other terms leave, each tag looked up in its key (6). By the passage's meeting: its start compared (two key
 * lookups, 9-17), or its participants' names and e-mails matched (23-30). A date range's years and months are kept as
 * bitmaps (migration 0021): counted from them, a statement's bits cost ~2 ms (`bits`), and only its days' rows are read.
 */
const COST_US = { tagRow: 0.5, tagLookup: 6, dateCheck: 12, participantCheck: 30, bits: 2_000 };

/**
 * What finding a word's matches among a single tag's passages costs (µs, EXPLAIN ANALYZE at 100k meetings): each tag
 * row probed into the word's postings (`probe`: `the` + the smallest leaf folder, 2,153 probes, 6.5 ms), or looked up
 * in the word's kept counts (migration 0020), each block's row of 4 KB read, decompressed and laid end to end once
 * (`block`: 95 of them, 1.4 ms), then each tag row's byte read (`row`).
 */
const TAG_IN_COUNTS_US = { probe: 3, block: 15, row: 0.5 };
/** A tag's passages are looked up in the words' counts only when each word says this many times more passages (else the planner merges the ranges or probes the word's into the tag's). */
const TAG_IN_COUNTS_RATIO = 8;
/** A tag's passages looked up in the words' counts whatever the matches expected when it holds this many or fewer (~0.5 µs each, and ~15 µs a block). */
const TAG_IN_COUNTS_ROWS = 4 * RANK_WINDOW;

/**
 * The phrase of several words is looked for in rank order in the best ranked PHRASE_LOOKS times the page's end plus
 * PHRASE_LOOKS_MIN passages of the window (`the and`: 283 of its 2,000 hold it, one in seven); when fewer hold it, in all
 * of them, in the window's order.
 */
const PHRASE_LOOKS = 10;
const PHRASE_LOOKS_MIN = 100;
/**
 * The best ranked looked at first are at most this many: a deep page's end (`rabanesu usan desuusmar` + `.t` at offset
 * 1,430: 14,500) took the whole window (1,725 passages each read in rank order for a phrase in 2 of them, ~10 ms), where
 * the rest are looked at in the window's order, those holding the phrase's pairs' bits only (ea, pc).
 */
const PHRASE_LOOKS_MAX = 400;

/**
 * A participant fragment in more names than MAX_PARTICIPANT_HANDLES and too few meetings for their exceptions
 * (`person1`: 1,111 of the 2,000 e-mails at 100k meetings, in 93% of the meetings): when the rarest word of the query is
 * said in at most this many passages (as kept), each match's meeting has its participants probed (~7 µs a match, their
 * rows read), rather than the participants of every name holding it hashed for a semi-join (~75 ms, then ~2 µs a match:
 * `marmarorpla` + `person1` 77 -> 8 ms, `ramineti`, in 3,007 passages, 86 -> 36; even at ~12,000: `logrepovi`, in
 * 10,026, 100 -> 86, `viorande`, in 14,026, 108 -> 117).
 */
const PROBED_MATCHES = 12_000;

/**
 * What a search pays (µs, at 100k meetings) for a meeting a participant fragment fails, left out (gramExceptions: its
 * number's meeting looked up, its passages read and tested against the words' bits: `person1`'s 6,985, ~95 ms), and for
 * a match checked on its meeting's participants, probed (`elra`'s 9,822, ~190 ms) or joined past PROBED_MATCHES (`the`'s
 * 346,673, ~1,300 ms). The meetings it fails are read when they cost less than the matches expected checked.
 */
const FAILED_US = { exception: 14, probed: 19, joined: 3.8 };

/**
 * A participant fragment read from its gram's passages' bits (migration 0027) walks at most this many matches expected,
 * each tested in its block's bits (~2 µs): more are counted from the bitmaps, when the words' are kept (else the
 * meetings it fails are read).
 */
const GRAM_WALKED = 12_000;

/**
 * A participant fragment read from its gram's passage bits: the matches beyond them (the blocks not built, the newest
 * partial one first, and the stale ones) are tested against the set of those blocks' passages whose meeting holds the
 * gram (read once: the blocks' passages by meeting, each meeting's bit) when the words and other filters are expected
 * in at least this share of the passages, rather than each match's passage, meeting and bits looked up (~5 µs a match,
 * against ~1-2 µs a passage of those blocks for the set). At 100k meetings with the newest 4,617 passages not built,
 * `the` + `Ines Kowalski`'s statement 23.2 -> 13.0 ms; with the bench file's 521, 5.7 -> 5.0. Those blocks are few: the
 * gram's bits are read only when built but for SETTLED_BLOCKS, as many stale at most (peopleGram's `kept`).
 */
const GRAM_SET_SHARE = 1 / 3;

/**
 * A page past the window (RANK_WINDOW) that ends within this many matches is read as the window's rows, in passage order,
 * rather than walked back from the window's end by another statement: `we the elra` at offset 4,000 walked two common
 * words' postings over 100,000 passage ids, merged (6 ms), where the bits' positions name its matches.
 */
const PAST_WINDOW = 10_000;

/**
 * Words alone, the rarest said in this many times fewer passages than each other or fewer: each other word's posting is
 * looked up for each of its (~2 µs), rather than their key ranges merged (reading this many of theirs for each of its).
 */
const PROBED_WORD_RATIO = 32;

/**
 * A phrase's pairs' bits (migration 0032) are read for the window's passages past the best ranked (ea: read only when
 * fewer than the page's end of those held the phrase) when they cost less than the passages they spare (µs, EXPLAIN
 * ANALYZE and the function timed at 100k meetings): each block those passages span and bucket ~7, and ~150 whatever
 * their number, against ~2 a passage read. Not for the best ranked (ex): that it stops as soon as the page is full is
 * all a common phrase needs, and the share of the phrase among its first passages foretold the rest badly (`ansune to`:
 * 1 of the first 40, 10 of the first 133; its bits, 96 blocks' worth, were read for nothing, 1.2x the time).
 */
const PAIR_US = { block: 7, passage: 2, fixed: 150 };

/**
 * A window read from the bits takes its matches in the built blocks from the rarest word's postings there, each tested in
 * the blocks' bits laid end to end (~0.2 µs a posting), when that word says at most this many passages a block on
 * average, rather than from the positions of the bits set (a block's bits split as text, ~60 µs a block and 0.3 µs a
 * set bit; 4,096 bits tested when dense, ~200 µs). At 100k meetings (a block holds ~100 passages of a word in 1 of 40):
 * `we the elra`'s window over 25 blocks, its statement 7.4 -> 6.6 ms; `the elra` 4.0 -> 3.2; `elra and` 4.2 -> 3.4. Of a
 * word said ~1,400 times a block (`and`), 4.2 -> 9.4.
 */
const DRIVEN_BLOCK_POSTINGS = 256;

/** At most this many distinct words are intersected in the postings (one join each); more go to the GIN bitmap. */
const MAX_POSTING_WORDS = 8;

/**
 * Unfiltered search from search_postings (migration 0004): the total counted and the newest
 * RANK_WINDOW matches taken from its primary key (index-only scans, several words merge-joined),
 * never visiting a passage's heap page for a match; only the window's passages are read, to rank
 * them. The lexemes are the query's own tsvector's (the same parser and folding as plainto_tsquery).
 * Undefined when the query has too many distinct words (the bitmap then answers).
 */
async function fromPostings(
  q: Queryable,
  statsOf: Queryable,
  words: string,
  termCount: number,
  page: Page,
  options: SearchOptions,
  tags?: TagFilter,
): Promise<Matches | undefined> {
  // Each lexeme, and how many passages say it as kept (migration 0010: its base rows and its bucket's pending deltas).
  // The counts decide how a participant fragment's or a date range's tags are matched (byMeeting), and whether the
  // matches are walked or counted from the bitmaps. The lexemes of ASCII words are known without the round trip (~0.3-0.5
  // ms) when the statistics list every one among their most common, their counts then the statistics' (three words or
  // more too: `the we to` 12.3-16.5 -> 11.5-15.2 ms at 100k meetings, calls alternated; with a participant or dates too:
  // `the` + `kowalski` 5.9 -> 5.5 ms, + six months 9.0 -> 7.8), or when one word is searched alone (nothing to decide).
  // Otherwise the statistics give a word their average, ~2,400 passages, whatever it holds: `elra to` (`elra` in 9,822)
  // was expected to hold 1,700 matches, fewer than a window, and `elra`'s postings were merged with all 270,604 of `to`
  // (22.9 ms) rather than their bitmaps counted; `to the elra` walked 17,549 probes (26 ms).
  const sizes = await listSizes(q, statsOf);
  const ascii = asciiLexemes(words);
  const oneWord = tags === undefined && ascii?.length === 1;
  const common = ascii?.every((l) => sizes.common('search_postings', l)) === true;
  // Or every word among the statistics' most common or kept as bits (the Store's view of the kept terms holds their
  // counts, read with them: `we the elra`, `elra` in 9,822 passages, read its words' counts in a round trip of 0.3-0.9
  // ms at 100k meetings). The view may be a few seconds old: a count then weighs a choice, never an answer.
  const store = storePool(statsOf);
  const view = ascii !== undefined && !oneWord && !common && store ? await keptView(store) : undefined;
  /** Lexeme `l`'s count as the statistics or the view hold it. */
  const countOfLexeme = (l: string) => (sizes.common('search_postings', l) ? sizes('search_postings', l) : view?.words.get(l));
  const kept = view !== undefined && ascii!.every((l) => countOfLexeme(l) !== undefined);
  const known = oneWord || common || kept ? ascii : undefined;
  const said = known?.map((l) => ({ l, n: common || kept ? countOfLexeme(l)! : NaN })) ?? (await rows<{ l: string; n: number }>(statsOf, lexemeCounts('$1'), [words]));
  const lexemes = said.map((w) => w.l);
  // No lexeme (e.g. only words longer than PostgreSQL indexes): plainto_tsquery matches nothing either.
  if (lexemes.length === 0) return { ids: [], total: 0 };
  if (lexemes.length > MAX_POSTING_WORDS) return undefined;
  const dates = tags && (await dateTerm(statsOf, tags.range));
  if (dates === null) return undefined;
  // Statements on the postings alone take the lexemes as $1..$k, then the filters' values (every parameter must be used).
  const k = lexemes.length;
  const filterParams: unknown[] = [];
  const f = (value: unknown) => `$${k + filterParams.push(value)}`;
  // The key ranges to intersect on passage id: each word's postings, each single tag; a group (participant words,
  // the dates' tokens) is a set of passages. The words take $1..$k; the filters' values follow.
  const lists: PassageList[] = lexemes.map((l, j) => ({ table: 'search_postings', alias: `s${j}`, cond: (a) => `${a}.lexeme = $${j + 1}`, size: 0, key: ['search_postings', l] }));
  // A date range's tokens as shares of the data's days (the statistics guess ~800 passages for any tag outside their
  // most common: a month's ~6,500 and a day's ~220 alike at 100k meetings; `the` + October, taken for 22,000 matches
  // in 25,000 tag rows rather than 6,011 in 6,500, walked 117,589 of `the`'s postings instead of reading the bits: 10.1
  // against 7.5 ms).
  // (A year, month or day token is a letter and digits: no other tag is.)
  const perDay = dates?.days === undefined ? undefined : sizes.passages / dates.days;
  // A tag whose meetings are known (a folder's: TagFilter.meetings) as its share of the meetings' passages: `for` + a leaf
  // folder's 7,597 passages (guessed 795) + a year had its 2,756 matches' meetings checked for the dates, 20 ms.
  const perMeeting = sizes.passages / sizes.meetings;
  const tagSize = (tag: string) => {
    const held = tags?.meetings?.get(tag);
    if (held !== undefined && Number.isFinite(perMeeting)) return held * perMeeting;
    return perDay === undefined || !/^[ymd]\d/.test(tag) ? sizes('search_tags', tag) : perDay * (tag[0] === 'y' ? 365 : tag[0] === 'm' ? 30.4 : 1);
  };
  const groupSize = (group: string[]) => group.reduce((n, tag) => n + tagSize(tag), 0);
  /** The passages expected to hold every one of these key ranges' lengths (filters taken as independent). */
  const expectedOf = (lengths: number[]) => sizes.passages * lengths.reduce((share, n) => share * Math.min(1, n / sizes.passages), 1);
  // A date range over many days, or a participant fragment in several words or names, when the other terms leave few
  // passages: each of those passages' meeting is checked against it, rather than its tags read whole (`marmarorpla`, 452
  // passages, + six months: 39,802 tag rows read, deduplicated and sorted, 35 ms of 40 in EXPLAIN ANALYZE; the 452
  // meetings checked: 4-8 ms).
  const range = tags?.range ?? {};
  /**
   * Whether walking key ranges of these lengths reads long ones (LONG_WALK): the two shortest merged, each read whole, or
   * the shortest's passages probed into the other, whichever costs less.
   */
  const walksLong = (lengths: number[]): boolean => {
    if (lengths.length < 2 || !Number.isFinite(sizes.passages)) return false;
    const [shortest, second] = [...lengths].sort((a, b) => a - b) as [number, number];
    return Math.min(shortest + second, shortest * LONG_WALK.probeRows) >= 2 * Math.max(sizes.passages * LONG_WALK.share, LONG_WALK.least);
  };
  /** Whether `group` is checked on the meetings, the terms but those of `besides` read first. */
  const byMeeting = (group: string[] | undefined, check: number, besides?: string[]): boolean => {
    if (group === undefined) return false;
    if (options.filters !== undefined) return options.filters === 'meetings';
    // The words' own counts: the statistics guess 2,369 passages for any word outside their 100 most common (`elra`:
    // 9,822; its meetings checked, with six months, took 2.4 times the tags' read).
    // The date range's too, for the participant (decided first, the range then read from its tags unless it is checked
    // on the meetings as well): `so netipoba` + ` Ngu` on one day, 16 matches, read the 250 names' 195,000 tag rows (65 ms).
    const others = [...tags!.groups.filter((g) => g !== group && g !== besides), ...(dates && group !== dates.tokens ? [dates.tokens] : [])];
    const rest = expectedOf([...said.map((w) => w.n), ...others.map(groupSize)]);
    // A range read as the bitmaps read it when every word and other tag is dense (kept from 1/64 of the passages, as
    // far as the counts and statistics tell): its years and months from their bits, most of a month's days as the month
    // less the others, the rest day by day. `desuusmar usan` up to 8 April 2026 had its 9,837 matches' meetings checked,
    // 40 ms, where the bits count them in ~8. (A series is not dense: `the` + a series + six months, taken for dense,
    // went 2.2 -> 12.4 ms, the range's tags read.) The words' counts are read here, or the statistics' where theirs.
    const dense = (n: number) => n * 64 > sizes.passages;
    const bits = dates && group === dates.tokens && said.every((w) => dense(w.n)) && others.every((g) => g.every((t) => dense(tagSize(t))));
    // Checked on the meetings, the other ranges are walked (the bitmaps count nothing then): not when that walk is long,
    // the range then read as the bitmaps read it. `so this desuusmar` + Finance + four months merged the folder's 33,890
    // passages with the 50,364 of `desuusmar` and probed `so` and `this` for the 4,358 left: 40 ms of a 46 ms search, for
    // 552 meetings checked.
    if (bits && walksLong([...said.map((w) => w.n), ...others.map(groupSize)])) return false;
    const days = bits ? monthsLessDays(group, () => true) : undefined;
    const read = days ? groupSize([...days.tokens.filter((t) => !/^[my]\d/.test(t)), ...days.less]) * COST_US.tagRow + COST_US.bits : groupSize(group) * COST_US.tagRow;
    return rest * check < Math.min(read, rest * group.length * COST_US.tagLookup);
  };
  // The participant first (the dates are then the last check of both).
  const probeParticipant = byMeeting(tags?.participant?.group, COST_US.participantCheck);
  const probeDates = byMeeting(dates?.tokens, COST_US.dateCheck, probeParticipant ? tags!.participant!.group : undefined);
  const probed = probeDates || probeParticipant;
  const groups: string[][] = [];
  const tagGroups = (tags?.groups ?? []).filter((g) => !(probeParticipant && g === tags!.participant!.group));
  for (const group of [...tagGroups, ...(dates && !probeDates ? [dates.tokens] : [])]) {
    if (group.length === 1) {
      const tag = f(group[0]);
      lists.push({ table: 'search_tags', alias: `g${lists.length}`, cond: (a) => `${a}.tag = ${tag}`, size: 0, key: ['search_tags', group[0]!] });
    } else groups.push(group);
  }
  // A word's own count where it was read (its statistics' guess is ~2,400 for any word outside the most common).
  for (const [j, list] of lists.entries())
    list.size = j < k && Number.isFinite(said[j]!.n) ? said[j]!.n : list.table === 'search_tags' ? tagSize(list.key[1]) : sizes(list.key[0], list.key[1]);
  // The two smallest ranges are joined (merged, or one probed into the other, as the planner finds cheaper);
  // each other range is probed for every passage they leave (a key lookup each, forced by LATERAL ... OFFSET 0):
  // `the` AND a folder AND six months AND a participant, merged all at once, read the participant's 166,000 tags
  // (85 ms); the folder's and the dates' 3,651 passages probed into the participant and the word: 21 ms.
  // A group smaller than the second range takes its place (its passages sorted and merged with the first).
  // A word said in PROBED_WORD_RATIO times fewer passages than the next range or fewer drives: its postings read, and each
  // other range probed for each of its passages. Words alone (no key range of a filter: a participant's gram, the
  // meetings it fails, or a filter checked on each match's meeting are checked after; `marmarorpla`, 452, and `the`,
  // 346,673) as the planner chose for those values, a plan whatever the words, made once (rareFirst: see `generic`,
  // below). With filters, when its count is known (not the statistics' guess): joined, the planner took `angreel` (664
  // passages) for the 2,400 the statistics guess and merged it with all 137,433 postings of `for` (13 of a 22 ms
  // statement), a name's tag probed; `anelelan` (645) with the 135,413 passages of the name `alex` (15 of 18 ms).
  const wordsAlone = lists.length === k && groups.length === 0;
  const bySize = [...lists].sort((a, b) => a.size - b.size);
  const rareDrives =
    bySize[1] !== undefined &&
    bySize[1].size > 0 &&
    bySize[0]!.table === 'search_postings' &&
    (wordsAlone || Number.isFinite(said[lists.indexOf(bySize[0]!)]?.n)) &&
    bySize[0]!.size * PROBED_WORD_RATIO <= bySize[1].size;
  const rareFirst = wordsAlone && rareDrives;
  const order = rareDrives || (tags && lists.length + groups.length >= 3) ? bySize : lists;
  const groupFirst = order !== lists && groups.length > 0 && Math.min(...groups.map(groupSize)) < (order[1]?.size ?? Infinity);
  // A filter whose words and tags are all kept as bitmaps (migration 0013): the total is their blocks' bits ANDed and
  // counted, and the rest counted from the key ranges; the window alone walks the matches, newest first.
  // The bitmaps count a total without walking its matches; they pay when the window's walk stops early, so not when the
  // statistics expect the window to hold every match (filters taken as independent): `the` + one day (223 matches) was
  // 1.2x slower with them, `the` + six months (35,397) 3.3x faster. (But see datesRead.)
  const rangeSizes = [...lists.map((l) => l.size), ...groups.map(groupSize)];
  const expected = expectedOf(rangeSizes);
  const ranges = rangeSizes.reduce((a, b) => a + b, 0);
  // The bitmaps count too when the window is expected to hold every match but a date range's months or years would be
  // read from their tags and sorted (thousands of passages each at 100k meetings): their kept bits read instead (`the` +
  // the biggest folder, six months and a common participant: 60 -> 29 ms; `elra` + six months: 28 -> 17 ms). Days alone
  // are read from their tags (`elra` + October's 33 days, no month in the cover: 6.7 -> 12 ms by the bitmaps).
  const datesRead = dates !== undefined && !probeDates && dates.tokens.some((t) => /^[my]\d/.test(t));
  const groupParams = groups.map((group) => f(group));
  // Words and one tag much rarer (a small folder, a name, a day): the tag's passages looked up in each word's kept counts
  // when that costs less than probing each into its postings (TAG_IN_COUNTS_US; only a word in 1/64 of the passages or
  // more has counts), its count read with it (`the` + the smallest leaf folder at 100k meetings: the statement 8.9 -> 4.2
  // ms). Not when the bitmaps count the matches (the rows they read, of the blocks not built or stale, are a few hundred
  // of a tag's at most: joined as before).
  // So are a date range's days, the only filter, as one tag: a meeting has one day, so a passage is in one of them (`the`
  // + a week, 1,373 passages of 8 tags, each probed into the postings of `the`: 4.6 ms, statement alone).
  const wordLists = lists.slice(0, k);
  const days = lists.length === k && groups.length === 1 && groups[0] === dates?.tokens ? groups[0] : undefined;
  const tag: PassageList | undefined =
    lists.length === k + 1 && groups.length === 0 && lists[k]!.table === 'search_tags'
      ? lists[k]
      : days && { table: 'search_tags', alias: `g${k}`, cond: (a) => `${a}.tag = ANY(${groupParams[0]}::text[])`, size: groupSize(days), key: ['search_tags', ''], tags: groupParams[0] };
  const tagInCountsFits =
    tag !== undefined &&
    (options.tagInCounts ??
      (tag.size * (TAG_IN_COUNTS_US.probe - TAG_IN_COUNTS_US.row) > (sizes.passages / 4096) * TAG_IN_COUNTS_US.block &&
        wordLists.every((word) => word.size * 64 > sizes.passages && word.size >= TAG_IN_COUNTS_RATIO * tag.size)));
  // And when the walk would read two long ranges to find few matches: merged, each read whole; or the shorter's
  // passages probed into the other's, LONG_WALK.probeRows rows' worth each, whichever costs less (`raneti so` + People at
  // 100k meetings: its 34,171 passages merged with `raneti`'s 57,556, then `so` probed for each of the 5,000 left, 17 ms
  // for 1,357 matches). The shortest alone long was the rule before: `viba elbato` + six weeks (the days' ~11,000
  // passages merged with `elbato`'s 62,102) was walked, 12.7 ms a search; counted from the bits, 7.9. Not when a tag's
  // passages are looked up in the words' counts instead (tagInCountsFits). (None without statistics: every size is 0 then.)
  const longWalk = !tagInCountsFits && walksLong(rangeSizes);
  // (A tag whose passages the words' counts answer, TAG_IN_COUNTS_ROWS or fewer, is read so for the count too, whatever
  // the matches expected: `the` + the smallest leaf folder, 2,297 passages by its meetings, 2,038 matches expected and
  // 1,924 found, was counted from the bits, 5.0 -> 8.5 ms.)
  const countedByBits =
    !probed &&
    (tags !== undefined || k > 1) &&
    (!(expected <= RANK_WINDOW) || datesRead || longWalk) &&
    !(tagInCountsFits && !datesRead && !longWalk && tag!.size <= TAG_IN_COUNTS_ROWS);
  const tagInCounts = !countedByBits && tagInCountsFits;
  const probe = (l: PassageList, at: string) =>
    `CROSS JOIN LATERAL (SELECT ${l.table === 'search_postings' ? 'x.n' : '1'} FROM ${l.table} x WHERE ${l.cond('x')} AND x.passage_id = ${at} OFFSET 0) ${l.alias}`;
  const edgeParams = dates?.outside && !probeDates ? { edges: f(dates.outside.edges), range: dates.outside.range(f) } : undefined;
  // The meetings a participant fragment in most names fails, left out: each match's meeting looked up in them (hashed).
  // (Their passages hashed instead, those of `person1`'s 6,985 were read twice, ~30 ms each.)
  const except = tags?.except?.length ? f(tags.except) : undefined;
  // Their passages, when few (MAX_PARTICIPANT_EXCEPTIONS): a word's kept count less those saying it is its total.
  const excepted = except && tags!.except!.length <= MAX_PARTICIPANT_EXCEPTIONS && `SELECT p.id FROM search_passages p WHERE p.meeting_id = ANY(${except}::text[])`;
  // The checks of a passage's meeting (`dp.meeting_id`; `d` its row, joined for a date range).
  const onMeeting = [
    ...(probeDates ? startedWithin(range, f, 'd.started_at COLLATE "C"') : []),
    ...(probeParticipant ? [probedFor(tags!.participant!.patterns, f, 'dp.meeting_id')] : []),
  ];
  // A participant fragment read from its gram's passages' bits (migration 0027): a match walked (and those of the blocks
  // the bitmaps count from their rows) tested in the gram's bits of its block when that block is built and not stale,
  // else its meeting's bit in the gram's meetings' bits (migration 0023; the gram's meetings are exactly the
  // fragment's), three keys looked up, not its participants read and matched (~15 µs a match: `marmarorpla` + `person1`
  // at 100k meetings, 422 matches, the probes ~9 ms of a 15 ms search; `the` + `Ines Kowalski`, the newest block's 453
  // matches, ~7 of ~15).
  const gram = tags?.passageGram;
  /**
   * The passages the gram's bits do not answer for (from their keptUpto on, and the stale blocks below it) whose meeting holds
   * the gram, as an array (GRAM_SET_SHARE). Every passage when the gram is no longer kept (a repair cleared it between
   * the statements).
   */
  const gramPassages = (tag: string) => {
    const from = `coalesce(${keptUpto('g', tag)}, 0)`;
    const beyond = `SELECT p.id, p.meeting_id FROM search_passages p WHERE p.id >= ${from}
                    UNION ALL SELECT p.id, p.meeting_id FROM search_bitmap_stale s JOIN search_passages p ON p.id >= s.block::bigint * 4096 AND p.id < (s.block + 1)::bigint * 4096 WHERE s.block < ${from} >> 12`;
    return `(SELECT array_agg(i.id) FROM (SELECT r.meeting_id, array_agg(r.id) AS ids FROM (${beyond}) r GROUP BY r.meeting_id) m
              JOIN meeting_numbers gn ON gn.meeting_id = m.meeting_id JOIN ${tagBlocks(`b.tag = ${tag}`)} gb ON gb.block = gn.n >> 12
              CROSS JOIN LATERAL unnest(m.ids) i(id) WHERE get_bit(gb.bits, gn.n & 4095) = 1)`;
  };
  // The set hashed once (an IN over the array's elements; an IN over the statement itself was searched row by row).
  const gramSet = options.gramSet ?? expected >= sizes.passages * GRAM_SET_SHARE;
  /** Whether match `at` (SQL) holds the gram (`tag`, its parameter): in its block's passage bits, else its meeting's bit. */
  const gramHolds = (at: string, tag: string) =>
    `CASE WHEN ${at} < ${keptUpto('g', tag)}
               AND (${at} >> 12)::int NOT IN (SELECT s.block FROM search_bitmap_stale s)
          THEN coalesce((SELECT get_bit(b.bits, (${at} & 4095)::int) = 1 FROM search_bitmaps b WHERE b.kind = 'g' AND b.term = ${tag} AND b.block = (${at} >> 12)::int), false)
          ELSE ${
            gramSet
              ? `${at} IN (SELECT unnest(${gramPassages(tag)}))`
              : `(SELECT get_bit(gb.bits, gn.n & 4095) = 1 FROM search_passages dp JOIN meeting_numbers gn ON gn.meeting_id = dp.meeting_id
                CROSS JOIN LATERAL (SELECT bit_xor(b.bits) AS bits FROM meeting_tag_bits b WHERE b.tag = ${tag} AND b.block = gn.n >> 12) gb
                WHERE dp.id = ${at}) IS TRUE`
          } END`;
  const gramTag = gram && f(gram.tag);
  /** Matches `sql` (their ids `id`) less those the checks below leave out. */
  const withAfter = (sql: string, id: string, fenced: boolean): { sql: string; id: string } => {
    // Left out last, from the passages the joins leave (OFFSET 0): the first and last days' meetings outside the range
    // (by time of day), the few meetings a participant fragment fails, and the meetings checked. As a condition of the
    // joins, a NOT IN's hashed subplan was costed again for each probe, so the planner merged every posting of the word
    // instead (`to` + a day ending at 21:54: all 268,140 postings of `to` read, 21.3 ms; fenced, the day's 256 tag rows
    // probed, 1.2 ms). And a condition on the first range's id alone was checked as it was read, on all 9,822 passages
    // of `elra` before the folder's 842 were kept.
    // (Not fenced, `fenced: false`, for a page past the window: its bound then reaches the key ranges, where the walk back
    // from the window's end stops at the page; fenced, every match below it was found first: `to` + a range to 01:13 at
    // offset 2,278, 264,556 matches, 248 -> 20 ms.)
    const after = (at: string) => [
      ...(edgeParams
        ? [`${at} NOT IN (SELECT p.id FROM meeting_tags t JOIN search_passages p ON p.meeting_id = t.meeting_id WHERE t.tag = ANY(${edgeParams.edges}::text[]) AND NOT (${edgeParams.range.join(' AND ')}))`]
        : []),
      ...(except ? [`(SELECT ep.meeting_id FROM search_passages ep WHERE ep.id = ${at}) NOT IN (SELECT unnest(${except}::text[]))`] : []),
      ...(gramTag ? [gramHolds(at, gramTag)] : []),
      ...(onMeeting.length
        ? [`(SELECT true FROM ${probeDates ? 'search_passages dp JOIN meetings d ON d.id = dp.meeting_id' : 'search_passages dp'} WHERE dp.id = ${at} AND ${onMeeting.join(' AND ')}) IS TRUE`]
        : []),
    ];
    if (after(id).length === 0) return { sql, id };
    if (!fenced) return { sql: `${sql} AND ${after(id).join(' AND ')}`, id };
    return { sql: `SELECT x.* FROM (${sql} OFFSET 0) x WHERE ${after('x.id').join(' AND ')}`, id };
  };
  /**
   * The matches (their passage ids as `id`), or those of a range of passage ids (SQL expressions: `lo` <= id < `hi`), each
   * key range read from `lo`; `wordCount(j)`, the column of word `j`'s count in each (the same for any range).
   */
  const matchesIn = (lo?: string, hi?: string, fenced = true): { sql: string; id: string; wordCount: (j: number) => string } => {
    const within = (column: string) => `${lo === undefined ? '' : ` AND ${column} >= ${lo}`}${hi === undefined ? '' : ` AND ${column} < ${hi}`}`;
    if (tagInCounts && tag !== undefined) {
      // The tag's passages, each with each word's count in it (`s0.n0`, `s0.n1`...: as the postings' rows would give them;
      // 0: not said), those saying every word.
      const at = `${tag.alias}.passage_id`;
      const notStale = (block: string) => `${block} NOT IN (SELECT s.block FROM search_bitmap_stale s)`;
      // (A group's ends, each tag's read from its key: over the group's rows, min and max read all of them.)
      const edge = (end: 'min' | 'max') =>
        tag.tags === undefined
          ? `(SELECT (${end}(t.passage_id) >> 12)::int FROM search_tags t WHERE ${tag.cond('t')})`
          : `(SELECT (${end}(e.id) >> 12)::int FROM unnest(${tag.tags}::text[]) u(tag) CROSS JOIN LATERAL (SELECT ${end}(t.passage_id) AS id FROM search_tags t WHERE t.tag = u.tag) e)`;
      // A group's read once (te, below): inline, each of their ~9 uses was read again (~0.08 ms each for a week's 8 tags).
      // A tag's inline (one key's end each: as te, `the` + a name's statement took ~0.25 ms more).
      const [first, last] = tag.tags === undefined ? [edge('min'), edge('max')] : ['(SELECT te.first FROM te)', '(SELECT te.last FROM te)'];
      // Read only when the tag's rows are enough for its blocks (TAG_IN_COUNTS_US; its rows counted up to that many, once
      // for all the words: `e.enough`, a row of its own): a series' 377 passages over 59 blocks are probed (the counts
      // below are lazily made: an InitPlan of the first row that needs them).
      const perBlock = Math.ceil(TAG_IN_COUNTS_US.block / (TAG_IN_COUNTS_US.probe - TAG_IN_COUNTS_US.row));
      const enough = `(SELECT count(*) FROM (SELECT FROM search_tags t WHERE ${tag.cond('t')} LIMIT (${last} - ${first} + 1) * ${perBlock}) e) >= (${last} - ${first} + 1) * ${perBlock}`;
      /** Word `word`'s (its parameter) count in the tag's passage. */
      const countOfWord = (word: string) => {
        const built = `(SELECT k.built FROM search_bitmap_terms k WHERE k.kind = 'w' AND k.term = ${word})`;
        // The word's counts of the blocks from the tag's first passage's to its last's, as one value made once (zeros for
        // a block without a row, and after the last row to the last block's end): a join to the blocks' rows is not
        // hashed where the searches plan merges (withMergePlans), and each row's bytes were then decompressed for each
        // tag row (14 of a 16 ms statement).
        const counts = `(SELECT string_agg(decode(repeat('00', 4096 * g.gap), 'hex') || g.counts, ''::bytea ORDER BY g.block)
            FROM (SELECT c.block, c.counts, c.block - coalesce(lag(c.block) OVER (ORDER BY c.block) + 1, ${first}) AS gap
                  FROM (SELECT c.block, c.counts FROM search_counts c
                        WHERE c.term = ${word} AND c.block BETWEEN ${first} AND ${last} AND c.block < ${built} AND ${notStale('c.block')}
                        UNION ALL SELECT ${last} + 1, ''::bytea) c) g)`;
        // A built block not stale has the word's counts (0 where it is not said); a count of 255 or more, a block not
        // built (the newest) or stale, or a tag with too few rows: the posting looked up (a correlated subquery: as a
        // join's probe, skipped where the counts answer, it was probed for every row, the condition made the join's filter).
        const lookup = `(SELECT x.n FROM search_postings x WHERE x.lexeme = ${word} AND x.passage_id = ${at})`;
        return `CASE WHEN e.enough AND (${at} >> 12) < ${built} AND ${notStale(`(${at} >> 12)::int`)}
                     THEN coalesce(nullif(get_byte(${counts}, (${at} - ${first}::bigint * 4096)::int), 255), ${lookup})
                     ELSE ${lookup} END`;
      };
      const counted = `${tag.tags === undefined ? '' : `WITH te AS MATERIALIZED (SELECT ${edge('min')} AS first, ${edge('max')} AS last) `}SELECT ${at} AS id, ${lexemes.map((_, j) => `${countOfWord(`$${j + 1}`)} AS n${j}`).join(', ')}
        FROM search_tags ${tag.alias} CROSS JOIN (SELECT ${enough} AS enough OFFSET 0) e WHERE ${tag.cond(tag.alias)}${within(at)} OFFSET 0`;
      return { ...withAfter(`SELECT s0.id AS id FROM (${counted}) s0 WHERE ${lexemes.map((_, j) => `s0.n${j} > 0`).join(' AND ')}`, 's0.id', fenced), wordCount: (j) => `s0.n${j}` };
    }
    const [base, ...rest] = order as [PassageList, ...PassageList[]];
    const id = `${base.alias}.passage_id`;
    const joins = rest.map((l, i) =>
      !rareDrives && (order === lists || (i === 0 && !groupFirst)) ? `JOIN ${l.table} ${l.alias} ON ${l.cond(l.alias)} AND ${l.alias}.passage_id = ${id}${within(`${l.alias}.passage_id`)}` : probe(l, id),
    );
    const from = `${base.table} ${base.alias} ${joins.join(' ')}`;
    const conditions = [`${base.cond(base.alias)}${within(`${base.alias}.passage_id`)}`];
    // Read from a floor (an InitPlan's value), a group's rows are estimated whole: the planner, expecting the word's
    // 125k rows and the group's 96k, probed each of the word's rows into the group's tags (`the` + `ar`, two words'
    // tags: 3,931 probes of both, 8.3 ms) where its rows above the floor, 2,250, sorted and merged take ~1 (statement
    // 9.8 -> 2.4 ms). Kept from being probed (OFFSET 0) when its rows are fewer than the probes of its tags it saves.
    groups.forEach((group, i) => {
      const fence = lo !== undefined && groupSize(group) < Math.min(...order.map((l) => l.size)) * group.length ? ' OFFSET 0' : '';
      conditions.push(`${id} IN (SELECT g.passage_id FROM search_tags g WHERE g.tag = ANY(${groupParams[i]}::text[])${within('g.passage_id')}${fence})`);
    });
    const sql = `SELECT ${id} AS id FROM ${from} ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''}`;
    return { ...withAfter(sql, id, fenced), wordCount: (j) => `s${j}.n` };
  };
  const { sql: matches, id, wordCount } = matchesIn();
  /** Matches (matchesIn's) with how often each says each word, in column `name(j)` for word `j`: read with its key. */
  const counted = (sql: string, name: (j: number) => string) =>
    sql.replace(`SELECT ${id} AS id`, `SELECT ${id} AS id, ${lexemes.map((_, j) => `${wordCount(j)} AS ${name(j)}`).join(', ')}`);
  /**
   * The same for the bitmaps' rows of the blocks not built or stale (each word's count as `c0`, `c1`...). Three words or
   * more alone are joined two at a time, each join fenced (ORDER BY and OFFSET 0: its rows come in passage order, as the
   * next merge wants them), so that the planner has no order of joins to choose: five common words' statement, which
   * joins them twice (the blocks not built, the stale ones), was planned in 3.9 ms, 1.8 fenced (executed in 6.4 and 6.2).
   */
  const countedIn = (lo: string, hi?: string): string => {
    if (tags !== undefined || k < 3) return counted(matchesIn(lo, hi).sql, (j) => `c${j}`);
    const within = (a: string) => ` AND ${a}.passage_id >= ${lo}${hi === undefined ? '' : ` AND ${a}.passage_id < ${hi}`}`;
    let sql = `SELECT s0.passage_id AS id, s0.n AS c0 FROM search_postings s0 WHERE s0.lexeme = $1${within('s0')}`;
    for (let j = 1; j < k; j++)
      sql = `SELECT x.*, s${j}.n AS c${j} FROM (${sql} ORDER BY 1 OFFSET 0) x JOIN search_postings s${j} ON s${j}.lexeme = $${j + 1} AND s${j}.passage_id = x.id${within(`s${j}`)}`;
    return sql;
  };
  const m = filterParams.length;
  // Planned for its values at each call (see rowsPlanned) when the join of the key ranges depends on their lengths: with
  // filters, or with two words or more. A prepared statement's generic plan merged `marmarorpla` (452 postings) with
  // all 346,673 of `the`, twice (the count and the window): 48 ms a search through the Store against 7-9.
  const read = m > 0 || k > 1 ? rowsPlanned : rows;
  // The rarest word, whose postings give a window read from the bits its matches when it says few passages a block.
  const rarest = wordLists.reduce((best, word, j) => (word.size < wordLists[best]!.size ? j : best), 0);
  const driver = (options.driven ?? wordLists[rarest]!.size <= (DRIVEN_BLOCK_POSTINGS * sizes.passages) / 4096) ? rarest : undefined;
  const bitmaps = countedByBits
    ? await bitmapTotal(
        q,
        lexemes,
        tags?.groups ?? [],
        (lo, hi) => ({ sql: countedIn(lo, hi) }),
        sizes,
        { dates, except: except ? { ids: tags!.except!, range } : undefined, grams: gram && [gram.tag], store, driver },
      )
    : undefined;
  // A participant's gram with more matches than GRAM_WALKED expected counts from the bitmaps, or not at all: the caller
  // then reads the meetings the fragment fails (its gram's bits not kept, or not built as far as the words').
  if (gram && !bitmaps && !(expected <= GRAM_WALKED)) return undefined;
  // Probed from a small range, the matches are read once for both the count and the window (the window's
  // newest-first walk cannot stop early through the probes and the sorted dates), and so are they when the window is
  // expected to hold them all (`the` + the smallest leaf folder: 1,924 matches, each probed twice before); merged, the
  // window walks back from the newest and stops, so it is read apart from the count.
  // So are a participant's gram's walked matches (each tested in its block's bits or probed: `ramineti` + `person1`, 2,789
  // matches, tested twice 12.5 ms of a 14.6 ms statement).
  // So are a tag's passages looked up in the words' counts (tagInCounts: read whole either way).
  const cte = (order !== lists || expected <= RANK_WINDOW || probed || gram || tagInCounts) && !bitmaps ? 'MATERIALIZED' : 'NOT MATERIALIZED';
  // One word: ranked by the postings' `n` (BM25 of one word is in the order of its count), read with the key (no
  // passage read at all). Several: by each word's count (see `share`), the passages read only to find the phrase.
  const alone = termCount === 1 && k === 1;
  // A page past the window (at RANK_WINDOW or deeper, whatever the matches) takes nothing of its ranking: the statement
  // counts, finds the window's end and the page's reach, and looks for no phrase (`the and` at offset 3,000 looked for it
  // in all 2,000 passages: 6.9 ms a statement).
  const past = page.offset >= RANK_WINDOW;
  /** The window in passage order: one word (ranked by its count), or a page past it. */
  const unranked = alone || past;
  // With the bitmaps, a page past the window ending within PAST_WINDOW matches is read with it: the window is then the
  // matches down to the page's end, newest first (the bitmaps' floor where they reach it), in one statement. (Without,
  // the page is walked from the window's end, in order: `elra` at offset 9,000, its postings' 7,000 rows skipped, 1.5 ms
  // against 2.2 for 9,010 rows materialized and sorted.)
  const windowEnd = bitmaps && past && page.offset + page.limit <= PAST_WINDOW ? page.offset + page.limit : RANK_WINDOW;
  // The query's words are a parameter only when there is a phrase to look for (several words).
  const phrased = termCount > 1 && !past;
  // One word said several times (`the the`): ranked by `n` too, the exact phrase checked only in the passages saying the
  // word as often as the query does (ts_rank_cd read 2,000 passages' words: `the the` 9.7 ms a search). When a word of
  // the query is not the lexeme (dropped by the parser), every one.
  const repeated = termCount > 1 && k === 1;
  /** The window's column of lexeme `j`'s count in each passage. */
  const countOf = (j: number) => (k === 1 ? 'n' : `n${j}`);
  const saidAtLeast = repeated && words.split(' ').every((t) => fold(t) === lexemes[0]) ? termCount : 1;
  // One lexeme without filters: the matches are its postings, counted by its kept count instead of walked (`the`:
  // 346,673 postings, ~20 ms): its base rows (migration 0010) plus its entries in its bucket's pending deltas (0011,
  // tens of small rows). Common words with common filters: from the kept bitmaps (0013). In the same statement: one snapshot.
  const last = k + m + (phrased ? 2 : 1);
  /** The window's size (RANK_WINDOW, or windowEnd), after the phrase's words. */
  const windowSize = `$${last}`;
  const total = bitmaps
    ? bitmaps.total
    : (tags === undefined || (excepted && tags.groups.length === 0 && !dates)) && k === 1
      ? `(${keptCount('$1')}${excepted ? ` - (SELECT count(*) FROM search_postings x WHERE x.lexeme = $1 AND x.passage_id IN (${excepted}))` : ''})::int`
      : '(SELECT count(*) FROM m)::int';
  // With the bitmaps, the window reads the matches from their floor on (those above it fill the window): walking the key
  // ranges from there, or, when the ranges hold many more rows than matches, from the bits (positions and rows read).
  // From the bits always when that window is planned once for any words (planOnce, below): then it cost 0.71-1.04x the
  // walk where the walk was chosen (`the` + the biggest folder 0.71, `the and` 0.85, `the we to` 0.89, `the` + six
  // months 0.82, `the` + "Ines Kowalski" 0.99; calls alternated at 100k meetings).
  const planOnce = bitmaps?.settled === true ? genericPoolOf(statsOf) : undefined;
  const fromBits = bitmaps !== undefined && (options.window === undefined ? planOnce !== undefined || ranges > WALKED_RATIO * expected : options.window === 'bits');
  const walked = fromBits ? undefined : bitmaps ? matchesIn(bitmaps.floor).sql : matches;
  // The window's matches (`id`) and how often each says each word (`countOf`): a walk reads them with the words' keys; the
  // bits' positions read them from the words' kept counts (migration 0020), and look up a posting where it is not kept
  // (`the` + one month at 100k meetings, 2,015 positions: 6.9 ms a statement looking up each, 4.6 reading the counts);
  // the rows of the blocks not built or stale come with them (`c0`...: five words' 146 rows, 730 lookups, ~1 ms).
  const scored =
    (walked && counted(walked, countOf)) ??
    `SELECT b.id, ${lexemes
      .map((_, j) => `coalesce(${bitmaps!.said('b.id', j)}, b.c${j}, (SELECT x.n FROM search_postings x WHERE x.lexeme = $${j + 1} AND x.passage_id = b.id)) AS ${countOf(j)}`)
      .join(', ')} FROM (${bitmaps!.window}) b`;
  const values = [...lexemes, ...filterParams, ...(phrased ? [words] : []), windowEnd];
  values.push(...(bitmaps?.params ?? []));
  const [limit, offset] = [`$${values.push(page.limit)}`, `$${values.push(page.offset)}`];
  const pageEnd = `${limit}::bigint + ${offset}::bigint`;
  // The page's reach only for a page the window's rows do not hold (past its end, and not read with it).
  const walksPast = windowEnd === RANK_WINDOW && page.offset + page.limit > RANK_WINDOW;
  const withs = bitmaps ? `${bitmaps.ctes(last, fromBits, walksPast ? pageEnd : undefined)},` : '';
  /** The phrase's words (a parameter when `phrased`). */
  const query = `$${k + m + 1}`;
  // The window: the newest RANK_WINDOW matches, with each word's count in each.
  const newest = `SELECT id, ${lexemes.map((_, j) => countOf(j)).join(', ')} FROM m ORDER BY id DESC LIMIT ${windowSize}`;
  /** Whether passage `id` (SQL) holds the query's words as a phrase. */
  const holdsPhrase = (id: string) => `(SELECT p.words @@ ${phraseQuery(query)} FROM search_passages p WHERE p.id = ${id})`;
  // A window read from the bits, when the blocks counted from their rows are few (settled), is planned once for any
  // words and filters of its shape (a generic plan, on the Store's connections for them). Beyond the built blocks' bits
  // it reads the rows of those few blocks (and a group's or the days' tag rows, whole either way), so a plan made without
  // the values holds. Planning and parsing it cost 1.5-3 ms a call at 100k meetings (`the and` + the biggest folder: 5.6
  // -> 3.4 ms a statement). A window walked, or one counting many blocks from their rows (a worker behind), is planned
  // for its values at each call: a plan for any words merged `marmarorpla`'s 452 postings with all 346,673 of `the`.
  // So is a tag's passages' walk through the word's counts (tagInCounts), which has one plan whatever the values (its
  // statement planned 0.55 ms a call, against 0.15 for the join it replaces).
  // So are a rare word's postings walked, the others' probed for each (rareFirst), and one word's walked, its checks
  // after: their plans have nothing to choose (not with the bitmaps' rows, read for their values). `the marmarorpla` was
  // planned in 0.63 ms a call, of a 4.5 ms search at 100k meetings; a rare word with a participant across words or six
  // months, 0.25-0.41. And two words alone neither much rarer, merged: the plan made once for any two words merges them,
  // as the planner chose for their values (a probe, its other choice, is rareFirst's). `elra orto` (9,822 and 11,015
  // passages) was planned in 0.47 ms a call, and with a participant across words 0.69, of a 5.5 ms search.
  const generic = fromBits ? planOnce : tagInCounts || ((rareFirst || (wordsAlone && k <= 2)) && !bitmaps) ? genericPoolOf(statsOf) : undefined;
  // The pairs' bits (migration 0032) when each word of the query is one lexeme (ASCII letters or digits): a passage
  // whose block's bits of a pair's bucket lack it holds no phrase, and is not read. Read only for the passages past the
  // best ranked, when they cost less than the passages they spare (PAIR_US: decided in the statement, by
  // syntheo_phrase_candidates; a phrase the best ranked hold enough of never reads them). The same text whatever the
  // matches expected: a Store's connections keep 32 statements planned (COMPANION_STATEMENTS), and a text for each way
  // would take more of them. Only in a statement planned once (`generic`): the others are
  // planned at each call, and the smaller windows (read by the function in every window, 300 random searches at 100k
  // meetings went p50 2.82 -> 2.99 ms, over 5 ms 71 -> 79; their bits read in the statement itself, a window took
  // 2.9 -> 3.8 ms to prepare).
  const paired = phrased && ascii !== undefined && generic !== undefined;
  /**
   * The window's passages past the best ranked that may hold the phrase (pc: syntheo_phrase_candidates, migration 0032),
   * null to read them all (their bits would cost more than they spare: PAIR_US). Read only when used. The buckets are
   * built together: bucket 0's `upto` is every one's.
   */
  const pairCtes = `pc AS MATERIALIZED (SELECT syntheo_phrase_candidates(${query}, (SELECT array_agg(w.id) FROM w WHERE w.id NOT IN (SELECT id FROM bt)),
                                                               coalesce(${keptUpto('p', "'0'")}, 0), ${PAIR_US.passage}, ${PAIR_US.block}, ${PAIR_US.fixed}) AS ids),`;
  /** Whether passage `id` (SQL) holds the phrase: read only when it may (pc). */
  const phraseHeld = (id: string) =>
    paired ? `CASE WHEN (SELECT ids FROM pc) IS NULL OR ${id} IN (SELECT unnest(pc.ids) FROM pc) THEN ${holdsPhrase(id)} ELSE false END` : holdsPhrase(id);
  /** Common table expressions before the window's ranking (each ending with a comma), and that ranking (see pagedWindow). */
  const rank: { ctes: string; ranked: string } = unranked
    ? { ctes: '', ranked: `SELECT m.id, ${past ? '0' : 'm.n'} AS score, false AS exact FROM m ORDER BY m.id DESC LIMIT ${windowSize}` }
    : repeated
      ? // A word said several times: the window's passages (w), and the phrase looked for in rank order (the most said
        // first, then the newest) until the page's end is reached (ex): the rows past it, marked apart from the phrase
        // whether they hold it or not, rank after the page. Only when fewer hold it is every one looked at (`the the`: 10
        // of the 491 in the 2,000 newest passages, where 1,645 say `the` twice or more).
        {
          ctes: `w AS MATERIALIZED (${newest}),
                 ex AS (SELECT x.id FROM (SELECT id, n FROM w WHERE n >= ${saidAtLeast} ORDER BY n DESC, id DESC) x
                        WHERE ${holdsPhrase('x.id')} LIMIT ${pageEnd}),`,
          ranked: 'SELECT w.id, w.n AS score, w.id IN (SELECT id FROM ex) AS exact FROM w',
        }
      : // Several lexemes: the window's rows scored from their counts (w; the lexemes' IDFs in wi), then the phrase looked
        // for in the best ranked (bt), in rank order, until the page's end is reached (ex), as above. When fewer of them
        // hold it, in the others too, in the window's order (ea): read in rank order, from all over the table, the 1,872
        // passages `we the elra` read to find its 10 took 4.5 ms (EXPLAIN ANALYZE at 100k meetings), 1,800 in the window's
        // order 2.4; now only those holding its pairs' bits, where they pay (phraseHeld). None is exact
        // for one word of the query that is several lexemes (`9E5x11`).
        {
          ctes: `wi AS MATERIALIZED (SELECT ${lexemes.map((_, j) => `${idfOf(`c.c${j}`)} AS i${j}`).join(', ')}
                                 FROM (SELECT ${lexemes.map((_, j) => `${keptCount(`$${j + 1}`)}::float8 AS c${j}`).join(', ')}) c, ${TOP}),
                 w AS MATERIALIZED (SELECT v.id, ${lexemes.map((_, j) => share(`i.i${j}`, `v.${countOf(j)}`)).join(' + ')} AS score FROM (${newest}) v, wi i),
                 ${
                   phrased
                     ? `bt AS MATERIALIZED (SELECT id, score FROM w ORDER BY score DESC, id DESC LIMIT least(${PHRASE_LOOKS} * (${pageEnd}) + ${PHRASE_LOOKS_MIN}, ${PHRASE_LOOKS_MAX})),
                        ex AS (SELECT x.id FROM (SELECT id FROM bt ORDER BY score DESC, id DESC) x WHERE ${holdsPhrase('x.id')} LIMIT ${pageEnd}), ${paired ? pairCtes : ''}
                        ea AS (SELECT w.id FROM w WHERE (SELECT count(*) FROM ex) < ${pageEnd} AND w.id NOT IN (SELECT id FROM bt) AND ${phraseHeld('w.id')}),`
                     : ''
                 }`,
          ranked: `SELECT w.id, w.score, ${phrased ? '(w.id IN (SELECT id FROM ex) OR w.id IN (SELECT id FROM ea))' : 'false'} AS exact FROM w`,
        };
  // The page's hits read with it when its plan is made once (hitColumns). Planned at each call (a plan cached by
  // PostgreSQL too: it keeps planning such statements for their values), the join made `marmarorpla` + `Ines
  // Kowalski`'s statement 1.7-1.9 -> 3.3-4.1 ms (2.8-3.0 without the start times), more than the two statements it saves.
  const text = pagedWindow(`${withs} m AS ${cte} (${scored}), ${rank.ctes}`, rank.ranked, total, limit, offset, bitmaps?.reach, generic !== undefined);
  const window = generic ? await rowsGeneric<PagedRow>(generic, text, values) : await read<PagedRow>(q, text, values);
  // Past the window, the matches below its lowest id (and from the page's reach), the bounds in every key range.
  return pageOf(window, page, (boundary, limit, offset, reach) =>
    read<{ id: number }>(
      q,
      `SELECT id FROM (${matchesIn(reach === undefined ? undefined : `$${k + m + 4}`, `$${k + m + 1}`, false).sql}) m ORDER BY id DESC LIMIT $${k + m + 2} OFFSET $${k + m + 3}`,
      [...lexemes, ...filterParams, boundary, limit, offset, ...(reach === undefined ? [] : [reach])],
    ),
  );
}

/**
 * The lexemes PostgreSQL makes of a query's words (queryTerms' runs, joined by spaces) when each word is ASCII letters
 * alone or digits alone, at most 100 of them: its parser reads such a run as one token (a word, a number) and 'simple'
 * lower-cases it (syntheo_fold leaves ASCII as it is); undefined otherwise. (Letters and digits mixed are not always one
 * token: `9E5x11` is `9e5` and `x11`.)
 */
export function asciiLexemes(words: string): string[] | undefined {
  const terms = words.split(' ');
  return terms.every((t) => /^(?:[A-Za-z]{1,100}|[0-9]{1,100})$/.test(t)) ? [...new Set(terms.map((t) => t.toLowerCase()))] : undefined;
}

/** A key range of passage ids: a word's postings or a tag's passages, with its estimated length. */
interface PassageList {
  table: 'search_postings' | 'search_tags';
  alias: string;
  cond: (alias: string) => string;
  size: number;
  key: [table: string, value: string];
  /** A group of tags taken as one (their passages distinct): the parameter of its tags. */
  tags?: string;
}

/**
 * Statistics read again when this old (ANALYZE changes them rarely; 5-8 ms to read, 15 on a connection's first read).
 * Past it, a Store's pool answers from those it has while it reads them again, apart (a client reads them first).
 */
const STATS_TTL_MS = 60_000;
/** A key range's estimated length; `passages`: the estimated number of passages (NaN without statistics). */
type Sizes = ((table: string, value: string) => number) & {
  passages: number;
  /** The meetings (NaN before the first ANALYZE or VACUUM). */
  meetings: number;
  /** Whether the statistics list `value` among their most common (its size theirs), rather than give it their average for the rest. */
  common(table: string, value: string): boolean;
};
/** The statistics read, by the pool (or client) the search was given (`key`): one database's are not another's. */
const statsCache = new WeakMap<Queryable, { at: number; of: Sizes }>();
/** The statistics being read, by the same keys: a second caller waits for them. */
const statsReading = new WeakMap<Queryable, Promise<Sizes>>();

/**
 * The planner's own estimate of a key range's length (pg_stats: the most common values' frequencies, an
 * average for the rest), computed here without planning a statement. Without statistics, every range is 0.
 */
export async function listSizes(q: Queryable, key = q): Promise<Sizes> {
  const cached = statsCache.get(key);
  if (cached && Date.now() - cached.at < STATS_TTL_MS) return cached.of;
  const pending = statsReading.get(key);
  if (pending) return cached?.of ?? pending;
  // Read on the connection at hand the first time; a pool's again apart, on the pool (`q` may be a connection its caller
  // is about to release), its callers answered from those it has meanwhile.
  const again = cached !== undefined && 'totalCount' in key;
  if (cached && !again) return readSizes(q, key);
  const read = readSizes(again ? key : q, key).finally(() => statsReading.delete(key));
  statsReading.set(key, read);
  if (!again) return read;
  read.catch(() => {});
  return cached.of;
}

/** The statistics listSizes reads, kept for `key`. */
async function readSizes(q: Queryable, key: Queryable): Promise<Sizes> {
  const found = await rows<{ t: string; vals: string[] | null; freqs: number[] | null; n_distinct: number; tuples: number }>(
    q,
    `SELECT s.tablename AS t, s.most_common_vals::text::text[] AS vals, s.most_common_freqs::float8[] AS freqs, s.n_distinct::float8 AS n_distinct, c.reltuples::float8 AS tuples
     FROM pg_stats s JOIN pg_class c ON c.relname = s.tablename AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = s.schemaname)
     WHERE s.schemaname = current_schema() AND ((s.tablename = 'search_tags' AND s.attname = 'tag') OR (s.tablename = 'search_postings' AND s.attname = 'lexeme'))
     UNION ALL
     SELECT relname::text, NULL, NULL, 0, reltuples::float8 FROM pg_class WHERE relname IN ('search_passages', 'meetings') AND relnamespace = current_schema()::regnamespace`,
  );
  const byTable = new Map(
    found.map((r) => {
      const common = new Map((r.vals ?? []).map((v, i) => [v, (r.freqs?.[i] ?? 0) * r.tuples]));
      const distinct = r.n_distinct < 0 ? -r.n_distinct * r.tuples : r.n_distinct;
      const commonShare = (r.freqs ?? []).reduce((a, b) => a + b, 0);
      const other = Math.max(1, ((1 - commonShare) * r.tuples) / Math.max(1, distinct - common.size));
      return [r.t, { size: (value: string) => common.get(value) ?? other, common: (value: string) => common.has(value) }] as const;
    }),
  );
  // reltuples: -1 before the first ANALYZE or VACUUM.
  const passages = found.find((r) => r.t === 'search_passages')?.tuples ?? -1;
  const meetings = found.find((r) => r.t === 'meetings')?.tuples ?? -1;
  const of = Object.assign((table: string, value: string) => byTable.get(table)?.size(value) ?? 0, {
    passages: passages > 0 ? passages : NaN,
    meetings: meetings > 0 ? meetings : NaN,
    common: (table: string, value: string) => byTable.get(table)?.common(value) ?? false,
  });
  statsCache.set(key, { at: Date.now(), of });
  return of;
}

/**
 * A Store's companions' connections, the statistics searches read and its view of the kept terms (keptView), made and
 * read ahead of use (warmCompanions), without waiting: a server answering questions (`syntheo mcp`, the app) on its first
 * call, and on its first after its connections closed, idle. Nothing when they are there.
 */
export function warmSearch(pool: Pool): void {
  warmCompanions(pool);
  void listSizes(pool).catch(() => {});
  void keptView(pool).catch(() => {});
}

/**
 * Search through the GIN index of search_passages.words (a bitmap of every match), joined to the meetings a filter keeps.
 * `fenced` (a participant fragment in too many names, the only filter): the matches are read first (OFFSET 0), then
 * joined to the meetings. Planned freely, the meetings holding the fragment (95,843 for `1`) were walked each into its
 * passages, every passage's words tested (`elra` + `person1`, 9,118 matches, 549 ms against ~170; `are` + `i ` 495
 * against ~250), on some connections and not others. Not with a series, folder or dates, whose few meetings may drive
 * (`storamar storamar` + `2` + a series: 3.8 ms, 34 fenced).
 */
async function fromBitmap(q: Queryable, words: string, termCount: number, where: string, params: unknown[], page: Page, fenced: boolean): Promise<Matches> {
  const match = `p.words @@ plainto_tsquery('simple', syntheo_fold($1))`;
  const passages = fenced ? `(SELECT p.id, p.meeting_id FROM search_passages p WHERE ${match} OFFSET 0) p` : 'search_passages p';
  const from = where ? `FROM ${passages} JOIN meetings m ON m.id = p.meeting_id WHERE ${fenced ? '' : `${match} AND `}${where.replace(/^WHERE /, '')}` : `FROM search_passages p WHERE ${match}`;
  const args = [words, ...params];
  const n = args.length;

  // The newest RANK_WINDOW matches and the count of all of them from one scan of the matches; ranked
  // (each lexeme's count read in a passage's words) for the window's rows only. `p.id + 0`: the count needs every
  // match, so the matches come from the GIN index (bitmap); ordered by the bare id, the planner walked the
  // primary key backwards instead, testing all 390k passages for a word in 2% of them (900 ms vs 14 ms).
  const ranked = `SELECT w.id, w.total AS matches, ${rankOf('$1', termCount)}
     FROM (SELECT p.id, count(*) OVER () AS total ${from} ORDER BY p.id + 0 DESC LIMIT $${n + 1}) w JOIN search_passages p ON p.id = w.id`;
  const window = await rows<PagedRow>(q, pagedWindow(lexemesOf('$1'), ranked, '(SELECT max(matches) FROM r)', `$${n + 2}`, `$${n + 3}`), [...args, RANK_WINDOW, page.limit, page.offset]);
  return pageOf(window, page, (boundary, limit, offset) =>
    rows<{ id: number }>(q, `SELECT p.id ${from} AND p.id < $${n + 1} ORDER BY p.id DESC LIMIT $${n + 2} OFFSET $${n + 3}`, [...args, boundary, limit, offset]),
  );
}

/**
 * The start time of each transcript hit's first matched word (its index `at`; null: not a transcript's): from its
 * passage's start times read with it (HIT_COLUMNS), else (a word past a passage's most) looked up, in one statement.
 */
async function startTimes(q: Queryable, hits: HitRow[], at: (number | null)[]): Promise<(number | null)[]> {
  const starts = hits.map((r, i) => {
    if (at[i] === null) return null;
    const k = at[i]! - r.word_offset!;
    // A word not among those read (a passage's most, from its first) has no row: no start time.
    return r.starts == null || k >= PASSAGE_MAX_WORDS ? undefined : startIn(r.starts, k);
  });
  const asked = hits.flatMap((r, i) => (starts[i] === undefined ? [{ ref: r.ref_id, idx: at[i]! }] : []));
  if (asked.length === 0) return starts as (number | null)[];
  const found = await rows<{ ref: string; idx: number; start_ms: number | null }>(
    q,
    'SELECT w.transcript_id AS ref, w.idx, w.start_ms FROM unnest($1::text[], $2::int[]) AS h(ref, idx) JOIN transcript_words w ON w.transcript_id = h.ref AND w.idx = h.idx',
    [asked.map((a) => a.ref), asked.map((a) => a.idx)],
  );
  const byKey = new Map(found.map((w) => [`${w.ref} ${w.idx}`, w.start_ms]));
  return starts.map((t, i) => (t === undefined ? (byKey.get(`${hits[i]!.ref_id} ${at[i]}`) ?? null) : t));
}
