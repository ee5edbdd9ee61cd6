import type { Sqlite } from '../open.js';
import { stmt } from '../statements.js';
import { rowLength, varint } from './fts-records.js';
import { isAsciiTokenChar, tokenizedAsAscii } from './fts-tokens.js';
import type { PassageCells } from './search-bits.js';

/**
 * BM25 for the ranked window of search_transcripts, computed here as FTS5's `bm25(search_fts, 1.0, 0.0)`
 * computes it (sqlite3.c, fts5Bm25Function: k1 = 1.2, b = 0.75, the same operations in the same order), but
 * without what makes bm25() cost: before its first row, FTS5 counts every row of the table that matches
 * each phrase of the query, the filters' tag phrases included (weight 0, yet counted), for their IDF. For
 * `the` (346,673 passages at 100k meetings) that count is 6-8 ms on every call, and with a folder, a
 * participant and dates it counts each of their tags too (22 ms). Here:
 * - Each word's count of passages is read from search_word_counts (migration 0013), kept by triggers.
 * - For the rows of the window the kept cells cover (migration 0016: a dense word's count in each passage, each
 *   passage's length), both are read from them (search-bits.ts windowCells); the other rows are read:
 * - A row's length is FTS5's own (search_fts_docsize). Its term frequencies are counted in its text as
 *   FTS5's unicode61 tokenizer sees ASCII: a word is a run of ASCII letters and digits, case folded. Only
 *   when that is exact: every word of the query is ASCII letters and digits, and no passage of the window
 *   holds a character beyond ASCII that unicode61 could take into a token (a letter, digit, mark or
 *   private-use character). Otherwise undefined, and the caller ranks with bm25().
 * - The table's row count and total length come from FTS5's averages record, as bm25() reads them, and
 *   the logarithm is SQLite's ln(), the C library's log() that bm25() calls (V8's differs in the last bit).
 * test/db/search-rank.test.ts compares every score with bm25()'s.
 */

const K1 = 1.2;
const B = 0.75;
/** FTS5's id of the averages record in search_fts_data (FTS5_AVERAGES_ROWID). */
const AVERAGES_ROWID = 1;
const MAX_TERM = 200;

export interface RankedRow {
  id: number;
  score: number;
  /** With `phrase`, for a row whose text was read: whether it holds the query's words as a phrase. */
  exact?: boolean;
}

/**
 * Scores of the window's rows (`ids`, newest first) for the query's words, or undefined when this cannot be exactly
 * bm25()'s. What `known` holds of a row (its length, and its counts of the query's distinct words in their order of
 * first appearance: search-bits.ts windowCells) is not read again. `phrase`: each row whose text is read is also
 * told whether it holds the words as FTS5's phrase query would find them in its text (`exact`): the same tokens, in a row.
 */
export function rankWindow(sqlite: Sqlite, ids: number[], terms: string[], known?: Map<number, PassageCells>, phrase = false): RankedRow[] | undefined {
  const folded = terms.map((t) => t.toLowerCase());
  if (folded.some((t) => t.length > MAX_TERM || !/^[a-z0-9]+$/.test(t))) return undefined;
  if (ids.length === 0) return [];
  const totals = averages(sqlite);
  if (totals === undefined) return undefined;
  // A repeated word is counted once, at its first place.
  const words = [...new Set(folded)];
  const rows = new Map(known);
  const exact = new Map<number, boolean>();
  for (const [id, text, size] of passages(sqlite, ids.filter((id) => !rows.has(id)))) {
    if (!tokenizedAsAscii(text)) return undefined;
    const lower = text.toLowerCase();
    rows.set(id, { size, counts: words.map((w) => occurrences(lower, w)) });
    if (phrase) exact.set(id, holdsPhrase(lower, folded));
  }
  const avgdl = totals.tokens / totals.rows;
  const idf = idfs(sqlite, folded, totals.rows);
  const place = folded.map((t) => words.indexOf(t));
  const out: RankedRow[] = [];
  for (const id of ids) {
    const row = rows.get(id);
    if (!row) continue;
    let score = 0.0;
    for (let i = 0; i < folded.length; i++) {
      const f = row.counts[place[i]!]!;
      // A word the text does not hold: not the tokenizer's view of this row; bm25() decides.
      if (f === 0) return undefined;
      score += idf[i]! * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + (B * row.size) / avgdl)));
    }
    const said = exact.get(id);
    out.push(said === undefined ? { id, score: -1.0 * score } : { id, score: -1.0 * score, exact: said });
  }
  return out;
}

/**
 * Of the window's rows `ranked` (in no order, every match of the query), the first `wanted` holding the query's words
 * as a phrase in the order of `cmp`, found in the texts of the best ranked (PHRASE_LOOKS) as rankWindow finds a phrase
 * in a text, then, when those hold fewer, in the next best, in batches twice as long each time, as long as the texts
 * read cost less than FTS5's walk of the phrase through the matches would at least (PHRASE_COST_US); every row holding
 * it when those are all the rows. Undefined when the walk costs less, when the phrase is in none of the first half of
 * the best ranked and more are left, or when a word or a text is beyond what a text can tell exactly (see rankWindow):
 * the caller then asks FTS5.
 */
export function phraseFirst(sqlite: Sqlite, ranked: readonly RankedRow[], terms: string[], cmp: (a: RankedRow, b: RankedRow) => number, wanted: number): RankedRow[] | undefined {
  const folded = terms.map((t) => t.toLowerCase());
  if (folded.some((t) => t.length > MAX_TERM || !/^[a-z0-9]+$/.test(t))) return undefined;
  const looks = Math.min(ranked.length, PHRASE_LOOKS.times * wanted + PHRASE_LOOKS.plus);
  // As many texts as FTS5's walk costs at least. `the mitoka` + a month at 100k meetings: 890 matches, 69 holding the
  // phrase, fewer than 10 in the best 80 and the 10th in the next 80 (0.3 ms of texts); the walk seeks the month's 6,765
  // passages in both words' lists, 1.8-2.3 ms.
  const affordable = Math.floor((ranked.length * terms.length * PHRASE_COST_US.walked) / PHRASE_COST_US.text);
  if (looks > affordable) return undefined;
  if (ranked.length === 0) return [];
  let best = firstInOrder(ranked, cmp, looks);
  const found: RankedRow[] = [];
  // The first half, then the rest when the phrase was there (a phrase said nowhere is walked after 40 texts, not 80),
  // then twice as many as read so far, while affordable.
  let [from, to] = [0, Math.max(1, looks >> 1)];
  for (;;) {
    if (from > 0 && found.length === 0 && to < ranked.length) return undefined;
    if (to > best.length) best = firstInOrder(ranked, cmp, Math.min(affordable, ranked.length));
    const rows = best.slice(from, to);
    const texts = new Map(
      stmt(sqlite, 'SELECT id, text FROM search_passages WHERE id IN (SELECT value FROM json_each(?))').raw().all(JSON.stringify(rows.map((r) => r.id))) as [number, string][],
    );
    for (const row of rows) {
      const text = texts.get(row.id);
      if (text === undefined || !tokenizedAsAscii(text)) return undefined;
      if (holdsPhrase(text.toLowerCase(), folded) && found.push(row) === wanted) return found;
    }
    if (to === ranked.length) return found;
    const next = to < looks ? looks : Math.min(2 * to, affordable, ranked.length);
    if (next <= to) return undefined;
    [from, to] = [to, next];
  }
}

/** The best ranked rows whose texts phraseFirst reads: this many times the rows wanted, plus this many. */
const PHRASE_LOOKS = { times: 4, plus: 40 };

/**
 * What phraseFirst weighs, at 100k meetings: a text read and looked through, and FTS5's walk of a phrase for each match
 * and word at least (it seeks every word at each row of its rarest list: `the and` + the smallest leaf folder, 1,247
 * matches of its 2,150 passages, 1.9 ms).
 */
const PHRASE_COST_US = { text: 2.5, walked: 0.45 };

/**
 * The first `k` of `rows` in the order of `cmp` (a total order), without ordering the rest: each row kept in a sorted
 * buffer of `k` when it precedes the buffer's last. Sorted whole when `k` is a large share of them.
 */
export function firstInOrder<T>(rows: readonly T[], cmp: (a: T, b: T) => number, k: number): T[] {
  if (k <= 0) return [];
  if (k * 8 >= rows.length) return [...rows].sort(cmp).slice(0, k);
  const best: T[] = [];
  for (const row of rows) {
    if (best.length === k && cmp(row, best[k - 1]!) >= 0) continue;
    // Where it goes: after every row that precedes it (binary search).
    let [lo, hi] = [0, best.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cmp(best[mid]!, row) <= 0) lo = mid + 1;
      else hi = mid;
    }
    best.splice(lo, 0, row);
    if (best.length > k) best.pop();
  }
  return best;
}

/** How often `term` (ASCII letters and digits, lower case) is a whole token of `text` (lower-cased): no ASCII letter or digit either side. */
function occurrences(text: string, term: string): number {
  let n = 0;
  for (let i = text.indexOf(term); i >= 0; i = text.indexOf(term, i + 1))
    if ((i === 0 || !isAsciiTokenChar(text.charCodeAt(i - 1))) && !isAsciiTokenChar(text.charCodeAt(i + term.length))) n++;
  return n;
}

/**
 * Whether `text` (lower-cased, its tokens runs of ASCII letters and digits) holds `terms` as consecutive tokens. Each
 * whole-token occurrence of the first term is followed along the text, nothing allocated (2,000 texts split into
 * token arrays cost more than FTS5's walk of the phrase).
 */
function holdsPhrase(text: string, terms: string[]): boolean {
  const [first, ...rest] = terms as [string, ...string[]];
  for (let i = text.indexOf(first); i >= 0; i = text.indexOf(first, i + 1)) {
    if (i > 0 && isAsciiTokenChar(text.charCodeAt(i - 1))) continue;
    let at = i + first.length;
    if (isAsciiTokenChar(text.charCodeAt(at))) continue;
    let held = true;
    for (const term of rest) {
      while (at < text.length && !isAsciiTokenChar(text.charCodeAt(at))) at++;
      if (!text.startsWith(term, at) || isAsciiTokenChar(text.charCodeAt(at + term.length))) {
        held = false;
        break;
      }
      at += term.length;
    }
    if (held) return true;
  }
  return false;
}

/**
 * The window's passages: id, text and length in tokens (all columns), as FTS5 recorded it in
 * search_fts_docsize: one varint a column. Summed from the record's two bytes in SQL when each column's
 * varint is one byte (under 128 tokens, as transcript passages are; `unicode()` of a byte under 0x80 is its
 * value, of any other byte 0x80 or more), else read from the record here.
 */
function passages(sqlite: Sqlite, ids: number[]): [id: number, text: string, length: number][] {
  const list = JSON.stringify(ids);
  const rows = stmt(
    sqlite,
    `SELECT p.id, p.text, CASE WHEN length(d.sz) = 2 THEN unicode(substr(d.sz, 1, 1)) * 65536 + unicode(substr(d.sz, 2, 1)) END
     FROM search_passages p JOIN search_fts_docsize d ON d.id = p.id WHERE p.id IN (SELECT value FROM json_each(?))`,
  )
    .raw()
    .all(list) as [number, string, number | null][];
  const out: [number, string, number][] = [];
  const longer: [number, string][] = [];
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    const packed = row[2];
    const a = packed === null ? 128 : Math.floor(packed / 65536);
    const b = packed === null ? 128 : packed % 65536;
    if (a < 128 && b < 128) out.push([row[0], row[1], a + b]);
    else longer.push([row[0], row[1]]);
  }
  if (longer.length > 0) {
    const sizes = new Map(
      (stmt(sqlite, 'SELECT id, sz FROM search_fts_docsize WHERE id IN (SELECT value FROM json_each(?))').raw().all(JSON.stringify(longer.map((r) => r[0]))) as [number, Buffer][]).map(
        ([id, sz]) => [id, rowLength(sz)],
      ),
    );
    for (const [id, text] of longer) out.push([id, text, sizes.get(id)!]);
  }
  return out;
}

/**
 * Each word's IDF as bm25() computes it, from the passages saying it (search_word_counts, migration 0013: the
 * passages whose text column holds it, which is what bm25() counts for a word, with or without `{text} :`,
 * since no tag is a word of the query unless the query is restricted to the text column).
 */
function idfs(sqlite: Sqlite, terms: string[], rows: number): number[] {
  // The logarithm of the C library, as bm25() takes it: JavaScript's may differ in the last bit.
  const log = stmt<{ v: number }>(sqlite, 'SELECT ln((? - ? + 0.5) / (? + 0.5)) AS v');
  return terms.map((t) => {
    const nHit = passagesSaying(sqlite, t);
    const v = log.get(rows, nHit, nHit)!.v;
    return v <= 0.0 ? 1e-6 : v;
  });
}

/** The table's row count and total tokens (all columns), from FTS5's averages record. */
function averages(sqlite: Sqlite): { rows: number; tokens: number } | undefined {
  const block = stmt<{ block: Buffer | null }>(sqlite, 'SELECT block FROM search_fts_data WHERE id = ?').get(AVERAGES_ROWID)?.block;
  if (!block || block.length === 0) return undefined;
  const [rows, start] = varint(block, 0);
  let [i, tokens] = [start, 0];
  // search_fts has two columns, text and tags: the record holds the row count, then each column's total.
  for (let c = 0; c < 2 && i < block.length; c++) {
    const [v, length] = varint(block, i);
    tokens += v;
    i += length;
  }
  return rows > 0 ? { rows, tokens } : undefined;
}

/** How many passages say `word` (folded as the index folds it), from search_word_counts (migration 0013). */
export function passagesSaying(sqlite: Sqlite, word: string): number {
  return stmt<{ n: number }>(sqlite, 'SELECT passages AS n FROM search_word_counts WHERE word = ?').get(word)?.n ?? 0;
}
