import type { BitmapUpkeep } from '../store.js';
import { monthsLessDays } from '../model/calendar.js';
import { startedWithin, type DateTerm } from './calendar.js';
import { setBits } from './bit-positions.js';
import type { Pool } from 'pg';
import { rows, type Queryable } from './sql.js';

// Kept bitmaps of the dense words and tags (migration 0013): search_transcripts' exact total of a common word with a
// broad filter, and the worker's rounds that keep them.

/**
 * A window with fewer matches than this many a block it spans (from the floor's block to the last read from bits) has
 * each match's count of each word looked up in the postings (~3 µs), rather than the words' counts of those blocks laid
 * end to end (~25 µs a block and word, mostly decompressing its 4 KB): `so this desuusmar` + Finance + four months at
 * 100k meetings, 35 matches over 96 blocks, three words' counts laid out in ~7 of a ~12 ms statement.
 */
const SPARSE_WINDOW = 8;

/** The worker's round: about this much work (ms) in one short transaction. */
export const BITMAP_ROUND_MS = 20;
/** Rounds a sweep runs at most (one after another, each its own transaction), ~10 x 20 ms. */
const ROUNDS_A_SWEEP = 10;
/** A kept term whose built blocks lag the others' by more than this is not read yet (its rest would be counted from its rows). */
const LAG_BLOCKS = 2;

export interface BitmapTotal {
  /** The values of the statement's parameters from `last + 1` on. */
  params: unknown[];
  /**
   * Common table expressions for the caller's WITH (kb, blk, arr, bc: the matches' count by block, fl; with `window`,
   * bm and the rows it shares with the count), reading the parameters after `$last`; `pageEnd`, an SQL expression, the
   * number of matches a page past the window ends at (see reach; undefined for a page within the window). `$last` is the
   * window's size (RANK_WINDOW, or the end of a page read with it).
   */
  ctes: (last: number, window: boolean, pageEnd?: string) => string;
  /** The total, a scalar SQL expression over the CTEs. */
  total: string;
  /**
   * The lowest passage id the window reaches (a scalar SQL expression over the CTEs): the start of the newest block whose
   * matches and those of the blocks above it are the window's size or more (0: fewer in all). A walk of the key ranges reads
   * each from there only, so a filter of many tags (a date range's months and days) need not be read and sorted whole.
   */
  floor: string;
  /**
   * The lowest passage id a page past the window reaches (a scalar SQL expression over the CTEs): the start of the newest
   * block whose matches and those of the blocks above it are the page's end or more (0: fewer in all). The walk back from
   * the window's end for that page reads each key range from there only: a date range's tags were read whole and sorted
   * to be merged with the word's postings from the window's end (`the` + six months to 12:00 at offset 2,500: 37,504 tag
   * rows for 510 matches). Null without a `pageEnd`.
   */
  reach: string;
  /**
   * The matches from the floor on (their passage ids as `id`, a statement over the CTEs), without walking the key ranges:
   * in the built blocks not marked stale, the positions of the bits counted and the passages read; in the others, the
   * rows counted, with how often each says each word as `c0`, `c1`... (`matchesIn`'s; null for the others). (The walk
   * reads the ranges' rows above the floor, many more than the matches when the filters are independent and narrow
   * together: `the` + a folder, six months and a participant, 34,090 folder passages merged with the range's 39,802, then
   * probed, for 1,523 matches.)
   */
  window: string;
  /**
   * With the window read from the bits: how often passage `id` (an SQL expression, a passage of the window) says the
   * query's word `j` (in `lexemes`' order), as kept (search_counts, migration 0020), or null where it is not kept (the
   * caller then takes the row's own `c<j>`, or looks up its posting): a passage of a block not built or marked stale, or
   * one saying it 255 times or more.
   */
  said: (id: string, j: number) => string;
  /**
   * Whether the blocks the statement counts from rows are few (SETTLED_BLOCKS at most from the fewest built of its terms
   * to the highest passage id's, as many stale at most), as the kept terms were read just before: beyond the built
   * blocks' bits it then reads those blocks' rows (and a group's or the days' tag rows, whole), whatever the words. (A
   * repair clearing the bitmaps in between has it count every block from rows: slower, still right.)
   */
  settled: boolean;
}

/**
 * Whether the newest block's bits (`t`, a row of search_bitmap_tail, migration 0031) are read below its `upto`: none of
 * its passages there changed since they were built, and the block is not marked stale (a round that failed after it
 * raised search_bitmap_boundary past the block).
 */
export const TAIL_READ = 'NOT EXISTS (SELECT 1 FROM search_bitmap_tail_stale s WHERE s.passage_id < t.upto) AND t.block NOT IN (SELECT block FROM search_bitmap_stale)';

/**
 * Blocks counted from their rows (not built yet, or stale) a settled statement reads at most: the newest, partial one and
 * those a worker keeping up has not built yet.
 */
export const SETTLED_BLOCKS = 3;

/**
 * Passages of tags not kept as bitmaps (a date range's days, the names holding a participant fragment) read one by one,
 * each tested against its block's bits, at most this many (estimated): beyond, the search counts all matches (a range
 * over months that are not dense, a fragment in many names). The estimate is the statistics' average for a tag outside
 * their most common (794 passages at 100k meetings, where a name's tag holds ~340 and a day's ~220): `29`'s 80 names
 * were estimated at 63,500 passages; read with `the` (27,332 matches), 47 ms, against 233 for all its matches counted.
 * Counted all, a group's rows are read and sorted too, with the words' (merged): a fragment across words in 215 names
 * (`Noor `, estimated 170,000, 124,745 matches with `the`) was 134 ms counted all and 50 read (`the and` + it: 237 and
 * 52; 111 e-mails, `person12`: 77 and 28). Past this bound the sort of the rows read would no longer fit in work_mem.
 */
const MAX_READ_PASSAGES = 250_000;

/** How many passages say lexeme `param` (an SQL expression), as kept: its base rows (migration 0010) and its bucket's pending deltas (0011). */
export const keptCount = (param: string) =>
  `((SELECT coalesce(sum(c.n), 0) FROM search_word_counts c WHERE c.lexeme = ${param})
    + (SELECT coalesce(sum((d.counts ->> ${param})::bigint), 0) FROM search_word_deltas d WHERE d.bucket = syntheo_word_bucket(${param})))`;

/** search_bitmap_terms as read (keptTerms): each term's built blocks by kind and term (`w the`), the most built, the block of the highest passage id, the stale blocks' number. */
interface KeptView {
  at: number;
  /** keptGeneration when read: an older one is read again first (forgetKeptViews). */
  generation: number;
  built: Map<string, number>;
  /** The kept words' counts (keptCount), by lexeme: a search's choices weigh them. */
  words: Map<string, number>;
  most: number;
  top: number;
  stale: number;
}

/** A Store's view of the kept terms (keptView) is read again after a search once this old. */
const KEPT_VIEW_MS = 2_000;
/** Each Store's view (by its pool), and the one being read. */
const keptViews = new WeakMap<Pool, KeptView>();
const keptReading = new WeakMap<Pool, Promise<KeptView>>();
let keptGeneration = 0;

/** Every Store's view of the kept terms read again before its next search: this process changed them (a repair, a worker's rounds). */
export function forgetKeptViews(): void {
  keptGeneration++;
}

/**
 * Which terms are kept as bitmaps and how far built, the highest passage id's block and the stale blocks, as the Store
 * of pool `store` last read them: they shape a search's statement (which filters are read from bits, whether it is
 * planned once), and reading them took a round trip before each search's window (0.45-0.8 ms at 100k meetings, calls
 * alternated). The statement reads them again in its own snapshot (kb: the terms built, and from where the rows are
 * counted), so a view gone stale (a term added, a block built, a repair by another process) makes a search slower,
 * never wrong: a term no longer kept has it count every block from its rows. Read when the Store has none (its first
 * search, unless warmSearch read it ahead), else after a search once KEPT_VIEW_MS old (renewKeptView): a search uses
 * the view read after the one before it. search_bitmap_terms holds the terms in 1/64 of the passages or more: ~900 at
 * 100k meetings.
 */
export function keptView(store: Pool): Promise<KeptView> {
  const view = keptViews.get(store);
  return view?.generation === keptGeneration ? Promise.resolve(view) : readKeptView(store);
}

/** After a search: the Store's view of the kept terms read again, apart, when KEPT_VIEW_MS old (and it has one). */
export function renewKeptView(store: Pool): void {
  const view = keptViews.get(store);
  if (view !== undefined && (view.generation !== keptGeneration || Date.now() - view.at >= KEPT_VIEW_MS)) readKeptView(store).catch(() => {});
}

/**
 * The view read (once at a time), on the Store's own pool: on a generic connection (rowsGeneric) it would take the
 * place of a window among the statements kept prepared there, and wait for a connection a search needs.
 */
function readKeptView(store: Pool): Promise<KeptView> {
  let reading = keptReading.get(store);
  if (reading) return reading;
  reading = keptTerms(store)
    .then((view) => {
      keptViews.set(store, view);
      return view;
    })
    .finally(() => keptReading.delete(store));
  keptReading.set(store, reading);
  return reading;
}

/** search_bitmap_terms whole (the terms built at all), with the block of the highest passage id and the stale blocks' number, read on `q`. */
async function keptTerms(q: Queryable): Promise<KeptView> {
  const [at, generation] = [Date.now(), keptGeneration];
  const [r] = await rows<{ kinds: string[]; terms: string[]; built: number[]; counts: (string | null)[]; most: number | null; top: number; stale: number }>(
    q,
    `SELECT coalesce(array_agg(k.kind), '{}') AS kinds, coalesce(array_agg(k.term), '{}') AS terms, coalesce(array_agg(k.built), '{}') AS built,
            coalesce(array_agg(CASE WHEN k.kind = 'w' THEN ${keptCount('k.term')} END), '{}') AS counts,
            (SELECT max(built) FROM search_bitmap_terms) AS most, (SELECT coalesce(max(id), 0) >> 12 FROM search_passages)::int AS top,
            (SELECT count(*) FROM search_bitmap_stale)::int AS stale
     FROM search_bitmap_terms k WHERE k.built > 0 AND k.kind <> 'p'`,
  );
  const words = new Map(r!.terms.flatMap((term, i) => (r!.counts[i] == null ? [] : [[term, Number(r!.counts[i])] as const])));
  return { at, generation, built: new Map(r!.terms.map((term, i) => [`${r!.kinds[i]} ${term}`, r!.built[i]!])), words, most: r!.most ?? 0, top: r!.top, stale: r!.stale };
}

/** The words, tags and grams asked that `view` holds kept: built, and not behind the most built by more than LAG_BLOCKS. */
function keptIn(view: KeptView, words: string[], tags: string[], grams: string[]): { kind: string; term: string; built: number }[] {
  const asked = [...words.map((t): [string, string] => ['w', t]), ...tags.map((t): [string, string] => ['t', t]), ...grams.map((t): [string, string] => ['g', t])];
  return asked.flatMap(([kind, term]) => {
    const built = view.built.get(`${kind} ${term}`);
    return built !== undefined && built >= view.most - LAG_BLOCKS ? [{ kind, term, built }] : [];
  });
}

/**
 * The total of the matches of `lexemes` (all of them) and `groups` (each: any of its tags) from the kept bitmaps: per
 * block of 4,096 passage ids below the smallest `built` of the query's terms and not marked stale, the bits of the
 * words and of each group ORed ANDed and counted; the other passage ids (the blocks not built yet, the stale ones)
 * counted from the key ranges by `matchesIn` (the search's own statement, each key range read from `lo` only; with each
 * word's count in a passage as `c0`, `c1`...).
 * A date range (`dates`) is read as SQLite reads it (monthsLessDays): the kept months and years of its cover ANDed as a
 * group, less the days of those months it leaves out; its days that are not kept (the partial months', the first and
 * last) are read from their tag rows, each passage's bit tested in its block's bits of the words and other groups, and
 * so are the first and last days' meetings outside the range, subtracted.
 * One group of tags not kept (the names and e-mails holding a participant fragment across words, migration 0015), without
 * dates, is read as the date's days are: its passages (each once) tested in their blocks' bits of the words and the other
 * groups (`the` + `Ines Kowalski` at 100k meetings: 30,000 tag rows of 38 names read and tested, 18 ms; made distinct and
 * summed by block, 15-20 ms more).
 * Each of `grams` (participants' grams, kind `g`, migration 0027) is a group of its own, read from its bits as a kept
 * tag's; only when settled (the blocks counted from their rows, whose matches the caller checks on their meetings, few).
 * Undefined when another term is not kept, or kept but not built as far as the others (the search then counts all matches).
 * With `driver` (a word's index in `lexemes`), the window's matches in the built blocks are that word's postings there
 * whose bit is set, rather than the bits' positions (see DRIVEN_BLOCK_POSTINGS in search.ts).
 * Common table expressions of the caller's statement (the count by block, the total and the window's floor from it):
 * bitmaps, stale marks and rows read in one snapshot. Shaped by the terms kept as the Store of pool `store` last read
 * them (keptView), or as read now without one.
 */
export async function bitmapTotal(
  q: Queryable,
  lexemes: string[],
  groups: string[][],
  matchesIn: (lo: string, hi?: string) => { sql: string },
  sizes: (table: string, value: string) => number,
  { dates, except, grams = [], store, driver }: { dates?: DateTerm; except?: { ids: string[]; range: { from?: string; to?: string } }; grams?: string[]; store?: Pool; driver?: number } = {},
): Promise<BitmapTotal | undefined> {
  // One word alone: its count is kept (search_word_counts).
  if (lexemes.length === 0 || (lexemes.length === 1 && groups.length === 0 && dates === undefined && except === undefined && grams.length === 0)) return undefined;
  // The months of the cover's days may stand for them (most of a month's days covered).
  const months = (dates?.tokens ?? []).filter((t) => /^d\d{8}$/.test(t)).map((t) => `m${t.slice(1, 7)}`);
  const asked = [...new Set([...groups.flat(), ...(dates?.tokens ?? []), ...months])];
  // Each term's built blocks, the block of the highest passage id and the stale blocks (see `settled`): from the Store's
  // view of them (keptView), else read now.
  const view = store ? await keptView(store) : await keptTerms(q);
  const kept = keptIn(view, lexemes, asked, grams);
  const keptTags = new Set(kept.filter((k) => k.kind === 't').map((k) => k.term));
  if (kept.filter((k) => k.kind === 'w').length < lexemes.length || kept.filter((k) => k.kind === 'g').length < grams.length) return undefined;
  const unkept = groups.filter((g) => !g.every((t) => keptTags.has(t)));
  const read = unkept.length === 1 && dates === undefined && unkept[0]!.reduce((n, t) => n + sizes('search_tags', t), 0) <= MAX_READ_PASSAGES ? unkept[0] : undefined;
  if (unkept.length > (read ? 1 : 0)) return undefined;
  // A participant fragment's exceptions are not taken away from a group read (a tag not kept holding more matches than a
  // window: at 100k meetings, none of the matrix's rows; the postings count them instead).
  if (except && read) return undefined;
  const bitGroups = groups.filter((g) => g !== read);
  let date: { kept: string[]; read: string[]; less: string[] } | undefined;
  if (dates) {
    const { tokens, less } = monthsLessDays(dates.tokens, (month) => keptTags.has(month));
    date = { kept: tokens.filter((t) => keptTags.has(t)), read: tokens.filter((t) => !keptTags.has(t)), less };
    if ([...date.read, ...less].reduce((n, t) => n + sizes('search_tags', t), 0) > MAX_READ_PASSAGES) return undefined;
  }
  const tags = [...new Set([...bitGroups.flat(), ...(date?.kept ?? [])])];
  // The blocks the statement counts from rows: from the fewest built of its terms to the highest passage id's, and the stale ones.
  const built = Math.min(...kept.filter((k) => (k.kind === 'w' ? lexemes : k.kind === 'g' ? grams : tags).includes(k.term)).map((k) => k.built));
  const settled = view.top + 1 - built <= SETTLED_BLOCKS && view.stale <= SETTLED_BLOCKS;
  // A participant's gram only when settled: the blocks counted from rows check each match's meeting's participants.
  if (grams.length > 0 && !settled) return undefined;
  // Each group's tags (kind `t`), then the grams (kind `g`, a group each), then the date's kept tags (`t`).
  const sets = [...bitGroups, ...grams.map((g) => [g]), ...(date && date.kept.length > 0 ? [date.kept] : [])];
  const kindOf = (i: number) => (i >= bitGroups.length && i < bitGroups.length + grams.length ? 'g' : 't');
  // The range's values, in the order its conditions take them.
  const bounds: unknown[] = [];
  dates?.outside?.range((value) => `$${bounds.push(value)}`);
  // The exceptions' meetings within the dates (compared on their start, as a search checks dates on the meetings).
  const exceptBounds: unknown[] = [];
  const within = (p: (value: unknown) => string) => (except && dates ? startedWithin(except.range, p, 'm.started_at COLLATE "C"') : []);
  within((value) => `$${exceptBounds.push(value)}`);
  const exceptParams = except ? [except.ids, ...exceptBounds] : [];
  // The columns of each word's count in a passage, in the rows matchesIn reads.
  const saidColumns = lexemes.map((_, j) => `c${j}`);
  const params = [lexemes, tags, lexemes.length + tags.length + grams.length, grams, ...sets, ...(date ? [date.read, date.less] : []), ...(read ? [read] : []), ...(dates?.outside ? [dates.outside.edges, ...bounds] : []), ...exceptParams];
  return {
    settled,
    params,
    ctes: (last, window, pageEnd) => {
      const [w, t, n, g] = [`$${last + 1}::text[]`, `$${last + 2}::text[]`, `$${last + 3}::int`, `$${last + 4}::text[]`];
      const at = (i: number) => `$${last + 5 + i}`;
      const built = '(SELECT b FROM kb)';
      // The blocks read from their bits: those below kb.b, and kb.b's own below kb.lo (the newest block's, migration 0031).
      const fresh = `block < (SELECT e FROM kb) AND block NOT IN (SELECT block FROM search_bitmap_stale)`;
      // The kept months' bits, ANDed with blk's in the count and the window only (blk.dbits).
      const months = date !== undefined && date.kept.length > 0;
      // Each block's bits of each word, and of each group (its tags' bits ORed), as `part`, `block`, `bits` (a part has
      // one row a block at most): the words and every group but the date's kept tags (parts 0 to P - 1), then those.
      const set = (i: number) => `SELECT block, bit_or(bits) FROM search_bitmaps WHERE kind = '${kindOf(i)}' AND term = ANY(${at(i)}::text[]) AND ${fresh} GROUP BY block`;
      const words = lexemes.map((_, j) => `SELECT block, bits FROM search_bitmaps WHERE kind = 'w' AND term = (${w})[${j + 1}] AND ${fresh}`);
      const inBlk = [...words, ...[...bitGroups, ...grams].map((_, i) => set(i))];
      const parts = [...inBlk, ...(months ? [set(bitGroups.length + grams.length)] : [])].map((sql, i) => `SELECT ${i}, b.* FROM (${sql}) b`).join(' UNION ALL ');
      // blk: the blocks where every part 0 to P - 1 has bits, those bits ANDed (bits), and with the months' (dbits: null
      // when the months have none). Grouped by block, not joined on it: expecting one row of each, the planner made the
      // joins nested loops (`the` + a folder, six months and a participant at 100k meetings: blk's rows joined to the
      // months', 95 x 95 rows, ~1 ms, twice: for the count and the window).
      const P = inBlk.length;
      const blkSql = `SELECT block, bit_and(bits) FILTER (WHERE part < ${P}) AS bits${months ? `, CASE WHEN count(*) = ${P + 1} THEN bit_and(bits) END AS dbits` : ''}
                      FROM (${parts}) x (part, block, bits) GROUP BY block HAVING count(*) FILTER (WHERE part < ${P}) = ${P}`;
      // One passage's bit in its block's bits of the words and the other groups (null for a block not counted here), from
      // the blocks' bits laid end to end as one bytea (arr): a join of thousands of passages to the blocks' rows was a
      // nested loop over both (merge plans: no hash join), 200 ms for 6,299 passages against 4 ms. An array of the
      // blocks' bits, as it was, is read from its start to each element asked (its elements are of variable length):
      // `the` + "Ines Kowalski"'s 28,991 passages tested in ~6.5 ms at 100k meetings, against ~0.5 (and 0.4 to lay
      // them out). A bit string's first bit is its first byte's highest, get_bit(bytea)'s its lowest: bit `id` of the
      // blocks is get_bit's `id # 7`. Past the last block with bits (bytes that are not there), no bit: CASE tests that
      // first.
      const hit = (id: string) => `CASE WHEN ${id} < octet_length(arr.a)::bigint * 8 THEN get_bit(arr.a, ${id} # 7) = 1 END`;
      // The passages read one by one and tested (rs: `id`, `sign`: counted, or taken away), each read once for the count
      // and the window: the group read (a passage may hold several of its tags, two of the names in its meeting: once
      // each), or the range's days not kept (added), the days of its kept months it leaves out and the first and last
      // days' meetings outside it (taken away). The group's passages made distinct by sorting them (DISTINCT ON): with the
      // test above, which the planner no longer takes for a filter of few rows, a DISTINCT was hashed, 1.13x the time of
      // the array's (`the` + "Ines Kowalski"); sorted, 0.82-0.85x.
      const tested: string[] = [];
      if (read) tested.push(`SELECT x.id, 1 FROM (SELECT DISTINCT ON (g.passage_id) g.passage_id AS id FROM search_tags g WHERE g.tag = ANY(${at(sets.length)}::text[])) x, arr WHERE ${hit('x.id')}`);
      if (date) {
        const ofTags = (param: string, sign: number) => `SELECT g.passage_id, ${sign} FROM search_tags g, arr WHERE g.tag = ANY(${param}::text[]) AND ${hit('g.passage_id')}`;
        tested.push(ofTags(at(sets.length), 1), ofTags(at(sets.length + 1), -1));
        if (dates?.outside) {
          let k = last + 5 + sets.length + 2;
          const edges = `$${k++}::text[]`;
          const range = dates.outside.range(() => `$${k++}`);
          tested.push(`SELECT p.id, -1 FROM meeting_tags t JOIN search_passages p ON p.meeting_id = t.meeting_id, arr WHERE t.tag = ANY(${edges}) AND NOT (${range.join(' AND ')}) AND ${hit('p.id')}`);
        }
      }
      // The passages of a participant fragment's exceptions, taken away where they are counted: their bit in the words'
      // and groups' bits, and their meeting within the dates (a passage of the range is counted once, whichever of its
      // months or days holds it). Their parameters come last.
      if (except) {
        let k = last + params.length - exceptParams.length + 1;
        const ids = `$${k++}::text[]`;
        // Each meeting looked up, then its passages (OFFSET 0: the bits' test, `id <` their end, was read as a range of
        // the primary key, 389,119 entries ANDed with the exceptions' 1,112 passages, 24 ms; the meetings of six months
        // were sorted to be merged with them, 10-16 ms).
        const dated = within(() => `$${k++}`);
        const passages = dates
          ? `SELECT p.id FROM (SELECT m.id FROM meetings m WHERE m.id = ANY(${ids}) AND ${dated.join(' AND ')} OFFSET 0) e
             CROSS JOIN LATERAL (SELECT p.id FROM search_passages p WHERE p.meeting_id = e.id OFFSET 0) p`
          : `SELECT p.id FROM search_passages p WHERE p.meeting_id = ANY(${ids}) OFFSET 0`;
        tested.push(`SELECT x.id, -1 FROM (${passages}) x, arr WHERE ${hit('x.id')}`);
      }
      // What the count and the window both read, by name: common table expressions when the window reads them too, else
      // inline in the count. rs: the passages tested; ub: the matches from the first block not built on, from their key
      // ranges; st: those of the stale blocks below it, by block.
      const shared = new Map<string, string>();
      if (tested.length > 0) shared.set('rs', `(SELECT x.id, x.sign FROM (${tested.join(' UNION ALL ')}) x (id, sign))`);
      shared.set('ub', `(${matchesIn('(SELECT lo FROM kb)').sql})`);
      // Each stale block's key ranges read apart (OFFSET 0: not flattened into the statement). Flattened, the planner
      // was free to merge the words' whole postings and filter them by block afterwards: a generic plan costed with
      // statistics taken while blocks were stale (85 expected, none there) merged all 226,722 of `the and`'s, 47 ms
      // against 3 (after an ANALYZE of search_passages changed the costs it weighed).
      shared.set('st', `(SELECT s.block, x.* FROM search_bitmap_stale s CROSS JOIN LATERAL (SELECT * FROM (${matchesIn('s.block::bigint * 4096', '(s.block + 1)::bigint * 4096').sql}) y OFFSET 0) x WHERE s.block < ${built})`);
      const from = (name: string) => (window ? name : `${shared.get(name)!} ${name}`);
      // The matches' count by block: `block`, `c` rows summed by block (the blocks from kb.b on: one row, at kb.b). The
      // passages tested are summed by block in their own branch, where a group's come sorted by id from their DISTINCT:
      // `the` + "Ines Kowalski" (25,829 of them at 100k meetings), summed after the union, was sorted again (0.85-0.89x).
      const counts = [
        ...(!date && !read ? ['SELECT block, bit_count(bits) FROM blk'] : []),
        ...(months ? ['SELECT block, bit_count(dbits) FROM blk WHERE dbits IS NOT NULL'] : []),
        ...(tested.length > 0 ? [`SELECT (id >> 12)::int, sum(sign) FROM ${from('rs')} GROUP BY 1`] : []),
        `SELECT ${built}, count(*) FROM ${from('ub')}`,
        `SELECT block, count(*) FROM ${from('st')} GROUP BY block`,
      ];
      // The window's matches from the floor on, as they are counted: in the built blocks not stale, the positions of the
      // counted bits and the passages read (less those taken away); in the others, the rows counted.
      const lo = '(SELECT lo FROM fl)';
      // Or, with a `driver`, where the positions are blk's own bits (no date range: its months' bits, dbits, are not laid
      // out in arr; no group read: rs holds its matches), the postings of that word from the floor to the last block read
      // from bits, each tested in its block's bits (arr): a set bit is a passage saying every word.
      const driven = window && driver !== undefined && !read && !date;
      const positions = driven
        ? `SELECT s.passage_id AS id FROM search_postings s, arr WHERE s.lexeme = (${w})[${driver + 1}] AND s.passage_id >= ${lo} AND s.passage_id < (SELECT e FROM kb)::bigint * 4096 AND ${hit('s.passage_id')}`
        : `SELECT blk.block::bigint * 4096 + z.pos AS id FROM blk ${setBits(months ? 'blk.dbits' : 'blk.bits')} WHERE blk.block >= ${lo} >> 12 AND z.pos < 4096`;
      const fromBits = read
        ? `SELECT id FROM rs WHERE id >= ${lo}`
        : !date
          ? except
            ? `SELECT e.id FROM (${positions} EXCEPT ALL SELECT id FROM rs WHERE sign = -1 AND id >= ${lo}) e`
            : positions
          : `SELECT e.id FROM ((${months ? `${positions} UNION ALL ` : ''}SELECT id FROM rs WHERE sign = 1 AND id >= ${lo}) EXCEPT ALL SELECT id FROM rs WHERE sign = -1 AND id >= ${lo}) e`;
      // arr: blk's bits laid end to end from block 0 (a bit string's binary form, varbit_send's, is its length in bits as 4
      // bytes, then its bytes), a block missing (stale, or no passage of it holds every word and group) as 512 zero bytes
      // before the next one's bits. Not joined to the blocks' numbers (generate_series): expecting one row of blk, the
      // planner made that join a nested loop over both, 9,025 rows for 95 blocks (0.7 ms).
      const laidOut = `SELECT string_agg(decode(repeat('00', ${4096 / 8} * gap), 'hex') || substring(varbit_send(bits) FROM 5), ''::bytea ORDER BY block) AS a
                       FROM (SELECT block, bits, block - coalesce(lag(block) OVER (ORDER BY block) + 1, 0) AS gap FROM blk) g`;
      // wc0, wc1...: each word's counts of the built blocks not stale from the floor's on, laid end to end as arr is (a
      // block missing: 4,096 zero bytes); byte i is passage id floor + i's. Read in the window only.
      const countsLaidOut = (j: number) => `SELECT string_agg(decode(repeat('00', (4096 * gap)::int), 'hex') || counts, ''::bytea ORDER BY block) AS a
                       FROM (SELECT block, counts, block - coalesce(lag(block) OVER (ORDER BY block) + 1, ${lo} >> 12) AS gap
                             FROM search_counts WHERE term = (${w})[${j + 1}] AND block >= ${lo} >> 12 AND ${fresh}) g`;
      // kb.b: the blocks every term of the query has built (0 when one is no longer kept: a repair cleared it); kb.lo: the
      // passage id the rows are counted from, the newest block's `upto` when it is kb.b, not marked stale, and none of its
      // passages below changed since (its bits then read: kb.e, the first block not read from bits, is kb.b + 1), else
      // kb.b's start.
      return `kb AS (SELECT x.b, x.b + (t.block IS NOT NULL)::int AS e, coalesce(t.upto, x.b::bigint * 4096) AS lo
                     FROM (SELECT CASE WHEN count(*) = ${n} THEN min(built) ELSE 0 END AS b, count(*) = ${n} AS kept FROM search_bitmap_terms
                           WHERE (kind = 'w' AND term = ANY(${w})) OR (kind = 't' AND term = ANY(${t})) OR (kind = 'g' AND term = ANY(${g}))) x
                     LEFT JOIN search_bitmap_tail t ON x.kept AND t.block = x.b AND ${TAIL_READ}),
              blk AS (${blkSql}),${
                date || read || except || driven ? `\n              arr AS (${laidOut}),` : ''
              }${window ? [...shared].map(([name, sql]) => `\n              ${name} AS ${sql},`).join('') : ''}
              bc AS (SELECT block, sum(c)::bigint AS c FROM (${counts.join(' UNION ALL ')}) x (block, c) GROUP BY block),
              fl AS (SELECT f.lo, f.reach, least(f.total, $${last}) < ${SPARSE_WINDOW} * ((SELECT e FROM kb) - (f.lo >> 12)) AS sparse
                     FROM (SELECT coalesce(max(block) FILTER (WHERE above >= $${last}), 0)::bigint * 4096 AS lo,
                                  ${pageEnd === undefined ? 'NULL::bigint' : `coalesce(max(block) FILTER (WHERE above >= ${pageEnd}), 0)::bigint * 4096`} AS reach,
                                  coalesce(max(above), 0) AS total
                           FROM (SELECT block, sum(c) OVER (ORDER BY block DESC) AS above FROM bc) z) f)${
                window
                  ? `,\n              bm AS (SELECT f.id, ${saidColumns.map((c) => `NULL::int AS ${c}`).join(', ')} FROM (${fromBits}) f
                                     UNION ALL SELECT id, ${saidColumns.join(', ')} FROM ub UNION ALL SELECT id, ${saidColumns.join(', ')} FROM st WHERE block >= ${lo} >> 12)`
                  : ''
              }${window ? lexemes.map((_, j) => `,\n              wc${j} AS MATERIALIZED (${countsLaidOut(j)})`).join('') : ''}`;
    },
    total: '(SELECT coalesce(sum(c), 0) FROM bc)::int',
    floor: '(SELECT lo FROM fl)',
    reach: '(SELECT reach FROM fl)',
    window: `SELECT id, ${saidColumns.join(', ')} FROM bm`,
    // The window's passages below the floor (the blocks not built, when they alone hold a window's matches) are not laid out.
    // A sparse window (SPARSE_WINDOW) has none laid out: each count is looked up (the caller's fallback).
    said: (id: string, j: number) => {
      const [lo, a] = ['(SELECT lo FROM fl)', `(SELECT a FROM wc${j})`];
      return `CASE WHEN NOT (SELECT sparse FROM fl) THEN nullif(nullif(CASE WHEN ${id} >= ${lo} AND ${id} - ${lo} < octet_length(${a}) THEN get_byte(${a}, (${id} - ${lo})::int) END, 0), 255) END`;
    },
  };
}

/**
 * Rounds of the bitmaps' upkeep (syntheo_build_search_bitmaps), each a short transaction, until one has nothing to
 * do or ROUNDS_A_SWEEP ran; with nothing left, the terms that became dense are added (and rounds go on for them).
 */
export async function keepBitmaps(q: Queryable, rounds = ROUNDS_A_SWEEP): Promise<BitmapUpkeep> {
  const result: BitmapUpkeep = { rounds: 0, units: 0, busy: false, more: false };
  let looked = false;
  for (;;) {
    if (result.rounds >= rounds) {
      // Every round did work: more may be left.
      result.more = rounds > 0;
      break;
    }
    const done = (await rows<{ n: number }>(q, 'SELECT syntheo_build_search_bitmaps($1) AS n', [BITMAP_ROUND_MS]))[0]!.n;
    result.rounds++;
    if (done < 0) result.busy = true;
    if (done > 0) result.units += done;
    else if (done < 0 || looked) break;
    else {
      looked = true;
      const added = (await rows<{ n: number }>(q, 'SELECT syntheo_add_search_bitmap_terms() AS n'))[0]!.n;
      if (added === 0) break;
      result.units += added;
    }
  }
  if (result.units > 0) forgetKeptViews();
  return result;
}

/** Built blocks the doctor rebuilds and compares (every kept term's bitmap of each): a random sample, bounded. */
const CHECKED_BLOCKS = 3;

/**
 * `syntheo doctor`: the kept bitmaps of CHECKED_BLOCKS random built blocks not marked stale (every kept term built
 * past them), and the newest block's below its `upto` (the terms built as far as it, migration 0031) when none of its
 * passages there changed since, computed again from the postings and tags (the participants' grams, kind `g`: from the blocks' passages'
 * meetings' names and e-mails, each one's grams as participant_handle_grams gives them, migration 0023; the pairs' buckets, kind `p`, from the passages' words, 0032) and compared, and so are the kept words' counts (kind
 * `c`), in one statement (one snapshot). How many bitmaps and counts differ (a wrong bit or byte, a row missing or one too many),
 * and the first three as `kind term block`.
 */
export async function bitmapDrift(q: Queryable): Promise<{ wrong: number; examples: string } | undefined> {
  const one = "B'1'::bit(4096)";
  const wrong = await rows<{ kind: string; term: string; block: number; wrong: number }>(
    q,
    `WITH blocks AS (SELECT b, (b + 1)::bigint * 4096 AS hi, true AS whole FROM (
                       SELECT b FROM generate_series(0, (SELECT coalesce(max(built), 0) - 1 FROM search_bitmap_terms)) b
                       WHERE b NOT IN (SELECT block FROM search_bitmap_stale) ORDER BY random() LIMIT ${CHECKED_BLOCKS}) r
                     UNION ALL
                     SELECT t.block, t.upto, false FROM search_bitmap_tail t WHERE ${TAIL_READ}),
          kept AS (SELECT k.kind, k.term, g.b AS block, g.hi, g.whole FROM search_bitmap_terms k JOIN blocks g ON CASE WHEN g.whole THEN g.b < k.built ELSE g.b = k.built END),
          pm AS MATERIALIZED (SELECT (p.id >> 12)::int AS block, p.meeting_id, bit_or(${one} >> (p.id & 4095)::int) AS bits FROM blocks g
                                JOIN search_passages p ON p.id >= g.b::bigint * 4096 AND p.id < g.hi
                              WHERE EXISTS (SELECT 1 FROM kept k WHERE k.kind = 'g' AND k.block = g.b) GROUP BY 1, 2),
          hm AS MATERIALIZED (SELECT DISTINCT m.meeting_id, syntheo_handle_tag(h.handle) AS tag FROM (SELECT DISTINCT meeting_id FROM pm) m
                                JOIN participants pa ON pa.meeting_id = m.meeting_id CROSS JOIN LATERAL (VALUES (pa.name), (pa.email)) h(handle)
                              WHERE h.handle IS NOT NULL),
          hb AS (SELECT pm.block, hm.tag, bit_or(pm.bits) AS bits FROM hm JOIN pm USING (meeting_id) GROUP BY 1, 2),
          -- The pairs' buckets of each block once (~0.3 s a block at 100k meetings; as a semi-join's inner side, once for each bucket).
          pairs AS MATERIALIZED (SELECT g.b AS block, x.term, x.bits FROM (SELECT g.b, g.hi FROM blocks g WHERE EXISTS (SELECT 1 FROM kept k WHERE k.kind = 'p' AND k.block = g.b) OFFSET 0) g
                                   CROSS JOIN LATERAL syntheo_pair_bits(g.b::bigint * 4096, g.hi) x),
          held AS (SELECT k.kind, k.term, k.block, bit_or(${one} >> (x.passage_id & 4095)::int) AS bits FROM kept k
                     JOIN search_postings x ON k.kind = 'w' AND x.lexeme = k.term AND x.passage_id >= k.block::bigint * 4096 AND x.passage_id < k.hi
                     GROUP BY 1, 2, 3
                   UNION ALL
                   SELECT k.kind, k.term, k.block, bit_or(${one} >> (x.passage_id & 4095)::int) FROM kept k
                     JOIN search_tags x ON k.kind = 't' AND x.tag = k.term AND x.passage_id >= k.block::bigint * 4096 AND x.passage_id < k.hi
                     GROUP BY 1, 2, 3
                   UNION ALL
                   SELECT 'g', v.gram, hb.block, bit_or(hb.bits) FROM hb JOIN participant_handle_grams v USING (tag) JOIN kept k ON k.kind = 'g' AND k.term = v.gram AND k.block = hb.block
                     GROUP BY 2, 3
                   UNION ALL
                   SELECT 'p', x.term, x.block, x.bits FROM pairs x JOIN kept k ON k.kind = 'p' AND k.term = x.term AND k.block = x.block),
          stored AS (SELECT s.kind, s.term, s.block, s.bits FROM kept k JOIN search_bitmaps s USING (kind, term, block)),
          counted AS (SELECT k.term, k.block, syntheo_block_counts(array_agg((x.passage_id & 4095)::int << 8 | least(x.n, 255))) AS counts
                      FROM kept k JOIN search_postings x ON k.kind = 'w' AND x.lexeme = k.term AND x.passage_id >= k.block::bigint * 4096 AND x.passage_id < k.hi
                      GROUP BY 1, 2),
          kept_counts AS (SELECT s.term, s.block, s.counts FROM kept k JOIN search_counts s ON k.kind = 'w' AND s.term = k.term AND s.block = k.block),
          differ AS (SELECT kind, term, block FROM held h FULL JOIN stored s USING (kind, term, block) WHERE h.bits IS DISTINCT FROM s.bits
                     UNION ALL
                     SELECT 'c', term, block FROM counted h FULL JOIN kept_counts s USING (term, block) WHERE h.counts IS DISTINCT FROM s.counts)
     SELECT kind, term, block, count(*) OVER ()::int AS wrong FROM differ ORDER BY kind, term COLLATE "C", block LIMIT 3`,
  );
  if (wrong.length === 0) return undefined;
  return { wrong: wrong[0]!.wrong, examples: wrong.map((w) => `${w.kind} ${w.term} ${w.block}`).join('; ') };
}

/**
 * `syntheo doctor`: the bits of the meetings' tags (meeting_tag_bits, migration 0019; and ASCII title grams, 0022) of the
 * newest meetings' block and CHECKED_BLOCKS - 1 random others computed again from meeting_tags and meeting_grams and
 * compared with their deltas XORed, in one statement; the participants' grams' (0023) from their names' and e-mails'
 * tags, each gram's meetings those of the names and e-mails holding it (participant_handle_grams). How many (tag, block) differ, and the first three as `tag block`.
 */
export async function meetingTagBitsDrift(q: Queryable): Promise<{ wrong: number; examples: string } | undefined> {
  const wrong = await rows<{ tag: string; block: number; wrong: number }>(
    q,
    `WITH top AS (SELECT coalesce(max(n), 0) >> 12 AS b FROM meeting_numbers),
          blocks AS (SELECT b FROM top UNION SELECT b FROM (SELECT g.b FROM top, generate_series(0, top.b - 1) g(b) ORDER BY random() LIMIT ${CHECKED_BLOCKS - 1}) r),
          held AS (SELECT t.tag, n.n >> 12 AS block, bit_or(B'1'::bit(4096) >> (n.n & 4095)) AS bits
                   FROM blocks k JOIN meeting_numbers n ON n.n >= k.b * 4096 AND n.n < (k.b + 1) * 4096
                   JOIN (SELECT tag, meeting_id FROM meeting_tags UNION ALL SELECT tag, meeting_id FROM meeting_grams WHERE syntheo_has_tag_bits(tag)) t ON t.meeting_id = n.meeting_id
                   GROUP BY 1, 2),
          people AS (SELECT g.gram AS tag, h.block, bit_or(h.bits) AS bits
                     FROM held h JOIN participant_handle_grams g ON g.tag = h.tag
                     GROUP BY 1, 2),
          stored AS (SELECT s.tag, s.block, bit_xor(s.bits) AS bits FROM meeting_tag_bits s WHERE s.block IN (SELECT b FROM blocks)
                     GROUP BY 1, 2 HAVING bit_count(bit_xor(s.bits)) > 0)
     SELECT tag, block, count(*) OVER ()::int AS wrong FROM (SELECT * FROM held UNION ALL SELECT * FROM people) h FULL JOIN stored s USING (tag, block)
     WHERE h.bits IS DISTINCT FROM s.bits ORDER BY tag COLLATE "C", block LIMIT 3`,
  );
  if (wrong.length === 0) return undefined;
  return { wrong: wrong[0]!.wrong, examples: wrong.map((w) => `${w.tag} ${w.block}`).join('; ') };
}
