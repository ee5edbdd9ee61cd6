// Bitmaps of meeting_terms' dense tokens (migration 0028), for the exact total of a list_meetings filter read from
// meeting_terms: FTS5 counts `(the six title words holding "ing") AND the most frequent participant's word` by walking
// every entry of their doclists (~40 ns an entry: 4-5.5 ms at 100k meetings, whatever the page); from bitmaps the same
// count is ORs, ANDs and a popcount over 4,096 meetings a row.
//
// A generation begins with the changes' counter (its `seq`), lists the dense tokens (held by DENSE_SHARE of the
// meetings) from meeting_terms' vocabulary and numbers the meetings in key order, both in chunks; then the worker builds
// each dense token's bits a block of numbers at a time, from FTS5's doclists over the block's keys. Every step is a
// bounded round, read outside the write lock and written in a short transaction. The newest generation
// built whole answers a count: the keys changed since its `seq` (meeting_bits_changed, marked by triggers) are left out
// of its bits and asked of FTS5 one by one, and the meetings after its last key are counted by FTS5 over that key
// range. When those grow, a new generation begins; the old one answers until the new one is built, then goes.
import type { Sqlite } from '../open.js';
import { stmt } from '../statements.js';
import { isBusy } from '../sqlite/errors.js';
import { popcount } from './popcount.js';

/** Meetings a row of bits holds: 512 bytes. */
export const MEETING_BLOCK = 4096;
const BYTES = MEETING_BLOCK / 8;

/**
 * A token is dense when this share of the meetings hold it: 896 tokens at 100k meetings, 21.9M doclist entries (a rarer
 * token's doclist is at most 3,125 entries, ~0.1 ms for FTS5).
 */
const DENSE_SHARE = 1 / 32;

/**
 * Meetings of the tokens without bits a count reads from FTS5 (and numbers), at most: rare title words and names
 * beside common ones (`des`: `design` and 32 words of ids, one meeting each).
 */
const SPARSE_MAX = 512;

/**
 * Tokens of meeting_terms' vocabulary a statement reads: at most ~60 ms past a round's budget at 100k meetings, where
 * 64 of the participants' densest grams hold ~3M doclist entries; ~30 µs a statement among the ids' words.
 */
const VOCABULARY_CHUNK = 64;

/** Keys a generation numbers a transaction. */
const NUMBER_CHUNK = 16_384;

/**
 * Keys changed since the generation (within its keys) a count asks of FTS5 one by one, at most: past this many, FTS5
 * counts the whole filter as it did before the bits (and the worker is building a newer generation).
 */
export const MAX_CHANGED = 256;

/**
 * Changes since the generation a count reads at most (those after its last key among them: a load of new meetings):
 * past this many, FTS5 counts, rather than scan them all at each count (~0.07 µs each).
 */
export const SCANNED_CHANGES = 4096;

/**
 * A new generation begins when this many of its keys changed since it began, or when the meetings after its last key
 * are this share of its own (then tokens may also have become dense), or more than a block, or when the changes since
 * it began are half SCANNED_CHANGES.
 */
const RENEW_CHANGED = 64;
const RENEW_TAIL_SHARE = 1 / 16;

/** Tokens a build reads between looks at the clock. */
const BUILD_BATCH = 16;

/** Rows an old generation's clean-up deletes a transaction. */
const DROP_BATCH = 16_384;

/** Below this many meetings no generation begins: FTS5 counts them in well under a millisecond. */
const MIN_MEETINGS = MEETING_BLOCK;

interface Gen {
  gen: number;
  seq: number;
  dense_min: number;
  listed_to: string;
  listed: number;
  meetings: number;
  last_key: bigint | null;
  numbered: number;
  built: number;
  term: string | null;
}

const GEN_COLUMNS = 'gen, seq, dense_min, listed_to, listed, meetings, last_key, numbered, built, term';
const blocksOf = (g: Gen) => Math.ceil(g.meetings / MEETING_BLOCK);
const isReady = (g: Gen) => g.numbered === 1 && g.built >= blocksOf(g);

/** The newest generation built whole (the one counts read), if any. */
function readyGen(sqlite: Sqlite): Gen | undefined {
  const rows = stmt<Gen>(sqlite, `SELECT ${GEN_COLUMNS} FROM meeting_bits_gens WHERE numbered = 1 ORDER BY gen DESC`).safeIntegers(true).all();
  return rows.map(genOf).find(isReady);
}

/** The newest generation, built or not. */
function newestGen(sqlite: Sqlite): Gen | undefined {
  const row = stmt<Gen>(sqlite, `SELECT ${GEN_COLUMNS} FROM meeting_bits_gens ORDER BY gen DESC LIMIT 1`).safeIntegers(true).get();
  return row === undefined ? undefined : genOf(row);
}

/** A row read with safeIntegers (keys pass 2^53): the small columns as numbers. */
const genOf = (r: Gen): Gen => ({
  gen: Number(r.gen),
  seq: Number(r.seq),
  dense_min: Number(r.dense_min),
  listed_to: r.listed_to,
  listed: Number(r.listed),
  meetings: Number(r.meetings),
  last_key: r.last_key,
  numbered: Number(r.numbered),
  built: Number(r.built),
  term: r.term,
});

// ---------------------------------------------------------------------------------------------------------------------
// The filter's expression: what the list filters write into an FTS5 query over meeting_terms.

/** An FTS5 expression of single tokens with AND, OR and (binary) NOT. */
export type BitsExpr = { term: string } | { op: 'AND' | 'OR' | 'NOT'; a: BitsExpr; b: BitsExpr };

/**
 * `match` as a BitsExpr, when it holds only quoted tokens of ASCII letters and digits (every meeting_terms token the
 * filters write), parentheses and the operators AND, OR and NOT, each written out; undefined otherwise (a
 * phrase, a column filter, NEAR, a bare word), which FTS5 then counts. FTS5's precedence: NOT binds tightest, then AND,
 * then OR, each from the left.
 */
export function parseMatch(match: string): BitsExpr | undefined {
  const tokens: string[] = [];
  for (let i = 0; i < match.length; ) {
    const c = match[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') i++;
    else if (c === '(' || c === ')') tokens.push(match[i++]!);
    else if (c === '"') {
      const end = match.indexOf('"', i + 1);
      if (end < 0) return undefined;
      const token = match.slice(i + 1, end);
      // A doubled quote inside, or anything but one token of meeting_terms: FTS5 decides. ASCII letters folded as
      // FTS5's tokenizer folds them (a folder's tag is written in capitals, as hex() writes it).
      if (!/^[A-Za-z0-9]+$/.test(token)) return undefined;
      tokens.push(`"${token.toLowerCase()}`);
      i = end + 1;
    } else {
      const word = /^[A-Za-z0-9_]+/.exec(match.slice(i))?.[0];
      if (word !== 'AND' && word !== 'OR' && word !== 'NOT') return undefined;
      tokens.push(word);
      i += word.length;
    }
  }
  let at = 0;
  const binary = (op: 'AND' | 'OR' | 'NOT', operand: () => BitsExpr | undefined) => (): BitsExpr | undefined => {
    let left = operand();
    while (left !== undefined && tokens[at] === op) {
      at++;
      const right = operand();
      left = right === undefined ? undefined : { op, a: left, b: right };
    }
    return left;
  };
  const primary = (): BitsExpr | undefined => {
    const t = tokens[at++];
    if (t === undefined) return undefined;
    if (t.startsWith('"')) return { term: t.slice(1) };
    if (t !== '(') return undefined;
    const inner = or();
    return tokens[at++] === ')' ? inner : undefined;
  };
  const not = binary('NOT', primary);
  const and = binary('AND', not);
  const or = binary('OR', and);
  const expr = or();
  return at === tokens.length ? expr : undefined;
}

const termsOf = (e: BitsExpr): string[] => ('term' in e ? [e.term] : [...termsOf(e.a), ...termsOf(e.b)]);

/** The expression over one block's rows (`rows`: a token's, absent when no meeting of the block holds it); undefined: none set. */
function evaluate(e: BitsExpr, rows: Map<string, Uint32Array>): Uint32Array | undefined {
  if ('term' in e) return rows.get(e.term);
  const a = evaluate(e.a, rows);
  if (a === undefined && e.op !== 'OR') return undefined;
  const b = evaluate(e.b, rows);
  if (b === undefined) return e.op === 'AND' ? undefined : a;
  if (a === undefined) return b;
  const out = new Uint32Array(a.length);
  if (e.op === 'AND') for (let i = 0; i < out.length; i++) out[i] = a[i]! & b[i]!;
  else if (e.op === 'OR') for (let i = 0; i < out.length; i++) out[i] = a[i]! | b[i]!;
  else for (let i = 0; i < out.length; i++) out[i] = a[i]! & ~b[i]!;
  return out;
}

/** A row's bits as 32-bit words (copied when SQLite's buffer is not aligned to them). */
function wordsOf(bits: Uint8Array): Uint32Array {
  if (bits.byteOffset % 4 === 0 && bits.length === BYTES) return new Uint32Array(bits.buffer, bits.byteOffset, BYTES / 4);
  const copy = new Uint8Array(BYTES);
  copy.set(bits.subarray(0, BYTES));
  return new Uint32Array(copy.buffer);
}

// ---------------------------------------------------------------------------------------------------------------------
// Counting.

/** Those of `terms` with bits in generation `g`, each with the meetings holding it as the generation began. */
const denseOf = (sqlite: Sqlite, g: Gen, terms: string[]) =>
  new Map(
    stmt(sqlite, 'SELECT b.term, b.doc FROM json_each(?) t CROSS JOIN meeting_bits_terms b ON b.gen = ? AND b.term = t.value')
      .raw()
      .all(JSON.stringify(terms), g.gen) as [string, number][],
  );

/**
 * The doclist entries FTS5 walks to count `e`, roughly: an OR walks both sides, an AND the shorter (it skips through
 * the longer), a NOT its left. A token without bits is taken as holding none (at most SPARSE_MAX: short).
 */
function walked(e: BitsExpr, docs: Map<string, number>): number {
  if ('term' in e) return docs.get(e.term) ?? 0;
  const [a, b] = [walked(e.a, docs), walked(e.b, docs)];
  return e.op === 'OR' ? a + b : e.op === 'AND' ? Math.min(a, b) : a;
}

/**
 * Doclist entries FTS5 walks in the time a row of bits is read and combined (~1.6 µs at 100k meetings; ~40 ns an entry):
 * where FTS5 would walk fewer than this many a row the bitmaps read, it counts (`r` beside a small folder: 0.1 ms,
 * against 0.5 to number the folder's meetings).
 */
const WALKED_PER_ROW = 64;

/**
 * How many meetings match `match` (an FTS5 query over meeting_terms) with keys within [lo, hi], from the newest
 * generation built whole, when some of the query's tokens have bits there, the others hold at most SPARSE_MAX meetings,
 * and at most MAX_CHANGED of its keys changed since; undefined otherwise (FTS5 counts). `words`: a title fragment's
 * words' tokens ORed (asked only when `match` holds a token with bits), counted ANDed with `match`; FTS5 would count
 * them as the intersection of the fragment's trigram matches with `match`'s (listByKeys), walking `match`'s whole.
 * `walkedPerRow`: WALKED_PER_ROW but for tests (0: the bits whenever they can).
 */
export function countFromMeetingBits(
  sqlite: Sqlite,
  match: string,
  lo?: bigint,
  hi?: bigint,
  options: { words?: () => string | undefined; walkedPerRow?: number } = {},
): number | undefined {
  const others = parseMatch(match);
  if (others === undefined) return undefined;
  const g = readyGen(sqlite);
  if (g === undefined || g.last_key === null) return undefined;
  const dense = denseOf(sqlite, g, [...new Set(termsOf(others))]);
  if (dense.size === 0) return undefined;
  let expr = others;
  // The whole query, for FTS5's counts of the keys changed and after the last.
  let whole = match;
  if (options.words) {
    const words = options.words();
    const ored = words === undefined ? undefined : parseMatch(words);
    if (ored === undefined) return undefined;
    expr = { op: 'AND', a: ored, b: others };
    whole = `${words} AND (${match})`;
    for (const [term, doc] of denseOf(sqlite, g, [...new Set(termsOf(ored))])) dense.set(term, doc);
  }
  const terms = [...new Set(termsOf(expr))];
  // The numbers of the keys within the dates: keys and numbers are in the same order.
  const numAt = (sql: string, key: bigint) => stmt(sqlite, sql).pluck().get(g.gen, key) as number | undefined;
  const first = lo === undefined ? 0 : (numAt('SELECT num FROM meeting_bits_keys WHERE gen = ? AND key >= ? ORDER BY key LIMIT 1', lo) ?? g.meetings);
  const last = hi === undefined ? g.meetings - 1 : (numAt('SELECT num FROM meeting_bits_keys WHERE gen = ? AND key <= ? ORDER BY key DESC LIMIT 1', hi) ?? -1);
  const [from, to] = [Math.floor(first / MEETING_BLOCK), Math.floor(last / MEETING_BLOCK)];
  // Few entries for FTS5 to walk within the dates (a token with bits beside a short doclist) against the rows of bits
  // to read: FTS5 counts. Intersected with a title's trigrams instead, FTS5's side is walked whole.
  const share = Math.max(0, last - first + 1) / g.meetings;
  const walks = walked(others, dense) * share;
  if (last >= first && walks < (options.walkedPerRow ?? WALKED_PER_ROW) * (to - from + 1) * dense.size) return undefined;
  // The other tokens' meetings (rare title words, names), numbered: at most SPARSE_MAX, else FTS5 counts.
  const rare = terms.filter((t) => !dense.has(t));
  const sparse =
    rare.length === 0
      ? []
      : (stmt(
          sqlite,
          `SELECT t.value, k.num FROM json_each(?) t CROSS JOIN meeting_terms m CROSS JOIN meeting_bits_keys k
           WHERE m.meeting_terms MATCH '"' || t.value || '"' AND k.gen = ? AND k.key = m.rowid LIMIT ?`,
        )
          .raw()
          .all(JSON.stringify(rare), g.gen, SPARSE_MAX + 1) as [string, number][]);
  if (sparse.length > SPARSE_MAX) return undefined;
  const within = (key: bigint) => (lo === undefined || key >= lo) && (hi === undefined || key <= hi);
  // The generation's keys changed since it began: out of its bits, asked of FTS5 (those within the dates). Those after
  // its last key are counted with the tail; past SCANNED_CHANGES changes in all, FTS5 counts (a new generation is due).
  if ((stmt(sqlite, 'SELECT count(*) FROM (SELECT 1 FROM meeting_bits_changed WHERE seq > ? LIMIT ?)').pluck().get(g.seq, SCANNED_CHANGES) as number) >= SCANNED_CHANGES)
    return undefined;
  const changed = stmt(
    sqlite,
    'SELECT c.key, k.num FROM meeting_bits_changed c LEFT JOIN meeting_bits_keys k ON k.gen = ? AND k.key = c.key WHERE c.seq > ? AND +c.key <= ? LIMIT ?',
  )
    .safeIntegers(true)
    .raw()
    .all(g.gen, g.seq, g.last_key, MAX_CHANGED + 1) as [bigint, bigint | null][];
  if (changed.length > MAX_CHANGED) return undefined;
  let count = 0;
  if (first <= last) {
    const blocks = new Map<number, Map<string, Uint32Array>>();
    const rows = stmt(sqlite, 'SELECT block, term, bits FROM meeting_bits WHERE gen = ? AND block BETWEEN ? AND ? AND term IN (SELECT value FROM json_each(?))')
      .raw()
      .all(g.gen, from, to, JSON.stringify(terms)) as [number, string, Uint8Array][];
    const rowOf = (block: number) => {
      let row = blocks.get(block);
      if (row === undefined) blocks.set(block, (row = new Map()));
      return row;
    };
    for (const [block, term, bits] of rows) rowOf(block).set(term, wordsOf(bits));
    for (const [term, num] of sparse) {
      const block = Math.floor(num / MEETING_BLOCK);
      if (block < from || block > to) continue;
      const row = rowOf(block);
      const words = row.get(term) ?? new Uint32Array(BYTES / 4);
      row.set(term, words);
      new Uint8Array(words.buffer)[(num - block * MEETING_BLOCK) >>> 3]! |= 1 << (num & 7);
    }
    const aside = new Map<number, number[]>();
    for (const [, num] of changed)
      if (num !== null) {
        const n = Number(num);
        const list = aside.get(Math.floor(n / MEETING_BLOCK)) ?? [];
        list.push(n);
        aside.set(Math.floor(n / MEETING_BLOCK), list);
      }
    for (const [block, row] of blocks) {
      // (A token's row itself when the expression is one: read for this count alone.)
      const words = evaluate(expr, row);
      if (words === undefined) continue;
      const bytes = new Uint8Array(words.buffer, words.byteOffset, BYTES);
      const base = block * MEETING_BLOCK;
      const clear = (n: number) => (bytes[(n - base) >>> 3]! &= ~(1 << ((n - base) & 7)));
      for (const n of aside.get(block) ?? []) clear(n);
      for (let n = base; n < first; n++) clear(n);
      for (let n = Math.max(last + 1, base); n < base + MEETING_BLOCK; n++) clear(n);
      count += popcount(words);
    }
  }
  const asked = changed.map(([key]) => key).filter(within);
  if (asked.length > 0)
    count += stmt(sqlite, 'SELECT count(*) FROM meeting_terms WHERE meeting_terms MATCH ? AND rowid IN (SELECT value FROM json_each(?))')
      .pluck()
      .get(whole, `[${asked.join(',')}]`) as number;
  // The meetings after the generation's last key (when there are any).
  const tailLo = lo !== undefined && lo > g.last_key ? lo : g.last_key + 1n;
  if ((hi === undefined || hi >= tailLo) && stmt(sqlite, 'SELECT 1 FROM meeting_keys WHERE key >= ? LIMIT 1').get(tailLo) !== undefined)
    count += stmt(sqlite, `SELECT count(*) FROM meeting_terms WHERE meeting_terms MATCH ? AND rowid >= ?${hi === undefined ? '' : ' AND rowid <= ?'}`)
      .pluck()
      .get(whole, tailLo, ...(hi === undefined ? [] : [hi])) as number;
  return count;
}

// ---------------------------------------------------------------------------------------------------------------------
// Upkeep.

export interface MeetingBitsRound {
  /** A generation began this round. */
  began: boolean;
  /** Tokens of meeting_terms' vocabulary read (for the generation's dense ones). */
  listed: number;
  /** Keys numbered. */
  numbered: number;
  /** Rows of bits (a token's block) read and written. */
  built: number;
  /** Rows of older generations deleted. */
  dropped: number;
  /** Work is left for further rounds. */
  more: boolean;
}

/**
 * One bounded round: a generation begun when none answers or the newest built has fallen behind (RENEW_CHANGED,
 * RENEW_TAIL_SHARE, SCANNED_CHANGES), its vocabulary listed until `budgetMs` is spent, a chunk of its keys numbered, or
 * its tokens' bits built for one block until `budgetMs` is spent (at
 * least one token: read outside the write lock, written in a short transaction of its own only if no other round moved
 * the generation meanwhile), or older generations' rows deleted a batch. A busy database ends the round.
 */
export function meetingBitsRound(sqlite: Sqlite, options: { budgetMs?: number; afterRead?: () => void } = {}): MeetingBitsRound {
  const budgetMs = options.budgetMs ?? 50;
  const started = performance.now();
  const round: MeetingBitsRound = { began: false, listed: 0, numbered: 0, built: 0, dropped: 0, more: false };
  try {
    let g = newestGen(sqlite);
    if (g === undefined || (isReady(g) && behind(sqlite, g))) {
      const meetings = stmt(sqlite, 'SELECT count(*) FROM meeting_keys').pluck().get() as number;
      if (meetings < MIN_MEETINGS) return round;
      g = begin(sqlite, meetings);
      round.began = true;
      round.more = true;
      return round;
    }
    if (g.listed === 0) {
      round.listed = listChunk(sqlite, g, budgetMs, started);
      round.more = true;
      return round;
    }
    if (g.numbered === 0) {
      round.numbered = numberChunk(sqlite, g);
      round.more = true;
      return round;
    }
    if (!isReady(g)) {
      round.built = buildStep(sqlite, g, budgetMs, started, options.afterRead);
      round.more = true;
      return round;
    }
    round.dropped = dropOld(sqlite, g);
    round.more = round.dropped > 0;
  } catch (error) {
    if (!isBusy(error)) throw error;
    round.more = true;
  }
  return round;
}

/** Every round until nothing is left: after a bulk write (the bench generator), in tests. */
export function buildMeetingBits(sqlite: Sqlite): void {
  for (let i = 0; i < 1_000_000; i++) if (!meetingBitsRound(sqlite, { budgetMs: Infinity }).more) return;
}

/** Whether the generation answers badly enough that a new one should begin. */
function behind(sqlite: Sqlite, g: Gen): boolean {
  if (g.last_key === null) return true;
  const changed = stmt(sqlite, 'SELECT count(*) FROM (SELECT 1 FROM meeting_bits_changed WHERE seq > ? AND +key <= ? LIMIT ?)').pluck().get(g.seq, g.last_key, RENEW_CHANGED + 1) as number;
  if (changed > RENEW_CHANGED) return true;
  // Half the changes a count reads (most of them after its last key: newer meetings): built again before counts stop.
  const all = stmt(sqlite, 'SELECT count(*) FROM (SELECT 1 FROM meeting_bits_changed WHERE seq > ? LIMIT ?)').pluck().get(g.seq, SCANNED_CHANGES / 2 + 1) as number;
  if (all > SCANNED_CHANGES / 2) return true;
  const tail = Math.max(MEETING_BLOCK, Math.ceil(g.meetings * RENEW_TAIL_SHARE));
  return (stmt(sqlite, 'SELECT count(*) FROM (SELECT 1 FROM meeting_keys WHERE key > ? LIMIT ?)').pluck().get(g.last_key, tail + 1) as number) > tail;
}

/** A new generation, with the changes' counter now; its dense tokens are those held by DENSE_SHARE of `meetings`. */
function begin(sqlite: Sqlite, meetings: number): Gen {
  return sqlite
    .transaction(() => {
      // (No state row in a file whose table a repair created again: its counters begin again, with nothing marked.)
      stmt(sqlite, 'INSERT OR IGNORE INTO meeting_bits_state (id, seq, gen) VALUES (1, 0, 0)').run();
      const { gen, seq } = stmt<{ gen: number; seq: number }>(sqlite, 'UPDATE meeting_bits_state SET gen = gen + 1 WHERE id = 1 RETURNING gen, seq').get()!;
      const denseMin = Math.max(1, Math.ceil(meetings * DENSE_SHARE));
      stmt(sqlite, 'INSERT INTO meeting_bits_gens (gen, seq, dense_min, meetings) VALUES (?, ?, ?, 0)').run(gen, seq, denseMin);
      return { gen, seq, dense_min: denseMin, listed_to: '', listed: 0, meetings: 0, last_key: null, numbered: 0, built: 0, term: null };
    })
    .immediate();
}

/**
 * meeting_terms' vocabulary after the last token read, in byte order, VOCABULARY_CHUNK tokens a statement until
 * `budgetMs` is spent, the dense ones kept for the generation. fts5vocab counts a token's meetings by walking its
 * doclist: the whole vocabulary at once (213,477 tokens at 100k meetings, 22M entries) held the worker 0.56 s, the
 * first 16,384 tokens (the participants' words and grams) 0.38.
 */
function listChunk(sqlite: Sqlite, g: Gen, budgetMs: number, started: number): number {
  sqlite.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.meeting_terms_vocab USING fts5vocab(main, meeting_terms, 'row')");
  const next = stmt(sqlite, 'SELECT term, doc FROM temp.meeting_terms_vocab WHERE term > ? ORDER BY term LIMIT ?').raw();
  const read: [string, number][] = [];
  let done = false;
  do {
    const chunk = next.all(read.at(-1)?.[0] ?? g.listed_to, VOCABULARY_CHUNK) as [string, number][];
    read.push(...chunk);
    done = chunk.length < VOCABULARY_CHUNK;
  } while (!done && performance.now() - started < budgetMs);
  return sqlite
    .transaction(() => {
      const now = newestGen(sqlite);
      if (now?.gen !== g.gen || now.listed_to !== g.listed_to) return 0;
      const insert = stmt(sqlite, 'INSERT OR IGNORE INTO meeting_bits_terms (gen, term, doc) VALUES (?, ?, ?)');
      for (const [term, doc] of read) if (doc >= g.dense_min) insert.run(g.gen, term, doc);
      stmt(sqlite, 'UPDATE meeting_bits_gens SET listed_to = ?, listed = ? WHERE gen = ?').run(read.at(-1)?.[0] ?? g.listed_to, done ? 1 : 0, g.gen);
      return read.length;
    })
    .immediate();
}

/**
 * The next NUMBER_CHUNK keys after the last one numbered, in key order. A key added meanwhile below it is asked of
 * FTS5 (its change is after the generation's `seq`); one added above it is numbered in a later chunk, and asked too.
 */
function numberChunk(sqlite: Sqlite, g: Gen): number {
  return sqlite
    .transaction(() => {
      const now = newestGen(sqlite);
      if (now?.gen !== g.gen || now.meetings !== g.meetings) return 0;
      const after = g.last_key === null ? '' : 'WHERE key > ?';
      const { changes } = stmt(
        sqlite,
        `INSERT INTO meeting_bits_keys (gen, num, key) SELECT ?, ? + row_number() OVER (ORDER BY key) - 1, key FROM (SELECT key FROM meeting_keys ${after} ORDER BY key LIMIT ?)`,
      ).run(g.gen, g.meetings, ...(g.last_key === null ? [] : [g.last_key]), NUMBER_CHUNK);
      stmt(
        sqlite,
        'UPDATE meeting_bits_gens SET meetings = meetings + ?, numbered = ?, last_key = coalesce((SELECT max(key) FROM meeting_bits_keys WHERE gen = ?), last_key) WHERE gen = ?',
      ).run(changes, changes < NUMBER_CHUNK ? 1 : 0, g.gen, g.gen);
      return changes;
    })
    .immediate();
}

/**
 * A block's keys (in number order) and the bits of `terms` there, read from FTS5's doclists over the block's key range
 * (a key there not numbered in the block was added since the generation began, and is asked of FTS5).
 */
function readBlock(sqlite: Sqlite, g: Gen, block: number, terms: string[]): Map<string, Uint8Array | undefined> {
  const keys = stmt(sqlite, 'SELECT key FROM meeting_bits_keys WHERE gen = ? AND num >= ? AND num < ? ORDER BY num')
    .pluck()
    .safeIntegers(true)
    .all(g.gen, block * MEETING_BLOCK, (block + 1) * MEETING_BLOCK) as bigint[];
  const read = new Map<string, Uint8Array | undefined>();
  if (keys.length === 0) {
    for (const term of terms) read.set(term, undefined);
    return read;
  }
  const [low, high] = [keys[0]!, keys.at(-1)!];
  // Keys as offsets from the block's first when they fit a double exactly (a block spanning more than ~35 years of keys does not).
  const narrow = high - low < 2n ** 53n;
  const index = new Map<number | bigint, number>(keys.map((k, i) => [narrow ? Number(k - low) : k, i]));
  for (const term of terms) {
    const match = `"${term}"`;
    const found: (number | bigint)[] = narrow
      ? (JSON.parse(stmt(sqlite, 'SELECT json_group_array(rowid - ?) FROM meeting_terms WHERE meeting_terms MATCH ? AND rowid BETWEEN ? AND ?').pluck().get(low, match, low, high) as string) as number[])
      : (stmt(sqlite, 'SELECT rowid FROM meeting_terms WHERE meeting_terms MATCH ? AND rowid BETWEEN ? AND ?').pluck().safeIntegers(true).all(match, low, high) as bigint[]);
    let bits: Uint8Array | undefined;
    for (const at of found) {
      const i = index.get(at);
      if (i === undefined) continue;
      bits ??= new Uint8Array(BYTES);
      bits[i >>> 3]! |= 1 << (i & 7);
    }
    read.set(term, bits);
  }
  return read;
}

/** The generation's tokens after its cursor in its block, read until the budget is spent, then written. */
function buildStep(sqlite: Sqlite, g: Gen, budgetMs: number, started: number, afterRead?: () => void): number {
  const all = stmt(sqlite, 'SELECT term FROM meeting_bits_terms WHERE gen = ? ORDER BY term').pluck().all(g.gen) as string[];
  const todo = g.term === null ? all : all.filter((t) => t > g.term!);
  // Read a few tokens at a time, the clock looked at between them.
  const read = new Map<string, Uint8Array | undefined>();
  for (let i = 0; i < todo.length; i += BUILD_BATCH) {
    for (const [term, bits] of readBlock(sqlite, g, g.built, todo.slice(i, i + BUILD_BATCH))) read.set(term, bits);
    if (performance.now() - started >= budgetMs) break;
  }
  const done = [...read.keys()];
  const finished = done.length === todo.length;
  // (Tests: another round between this one's read and its write.)
  afterRead?.();
  return sqlite
    .transaction(() => {
      const now = newestGen(sqlite);
      if (now?.gen !== g.gen || now.built !== g.built || now.term !== g.term) return 0;
      const put = stmt(sqlite, 'INSERT OR REPLACE INTO meeting_bits (gen, term, block, bits) VALUES (?, ?, ?, ?)');
      for (const [term, bits] of read) if (bits !== undefined) put.run(g.gen, term, g.built, bits);
      if (finished) stmt(sqlite, 'UPDATE meeting_bits_gens SET built = built + 1, term = NULL WHERE gen = ?').run(g.gen);
      else stmt(sqlite, 'UPDATE meeting_bits_gens SET term = ? WHERE gen = ?').run(done.at(-1)!, g.gen);
      return done.length;
    })
    .immediate();
}

/** A batch of the rows of generations older than `g` (built whole) and of changes it holds, deleted (no write when none). */
function dropOld(sqlite: Sqlite, g: Gen): number {
  const old =
    stmt(sqlite, 'SELECT 1 FROM meeting_bits_gens WHERE gen < ? LIMIT 1').get(g.gen) !== undefined ||
    stmt(sqlite, 'SELECT 1 FROM meeting_bits_changed WHERE seq <= ? LIMIT 1').get(g.seq) !== undefined;
  if (!old) return 0;
  return sqlite
    .transaction(() => {
      let dropped = stmt(sqlite, 'DELETE FROM meeting_bits WHERE (gen, term, block) IN (SELECT gen, term, block FROM meeting_bits WHERE gen < ? LIMIT ?)').run(g.gen, DROP_BATCH).changes;
      if (dropped < DROP_BATCH)
        dropped += stmt(sqlite, 'DELETE FROM meeting_bits_keys WHERE (gen, num) IN (SELECT gen, num FROM meeting_bits_keys WHERE gen < ? LIMIT ?)').run(g.gen, DROP_BATCH - dropped).changes;
      if (dropped < DROP_BATCH)
        dropped += stmt(sqlite, 'DELETE FROM meeting_bits_changed WHERE key IN (SELECT key FROM meeting_bits_changed WHERE seq <= ? LIMIT ?)').run(g.seq, DROP_BATCH - dropped).changes;
      if (dropped < DROP_BATCH) {
        dropped += stmt(sqlite, 'DELETE FROM meeting_bits_terms WHERE gen < ?').run(g.gen).changes;
        dropped += stmt(sqlite, 'DELETE FROM meeting_bits_gens WHERE gen < ?').run(g.gen).changes;
      }
      return dropped;
    })
    .immediate();
}

/** Every generation gone (the caller's transaction): after meeting_terms is written again whole. The counter goes on. */
export function resetMeetingBits(sqlite: Sqlite): void {
  sqlite.exec('DELETE FROM meeting_bits; DELETE FROM meeting_bits_keys; DELETE FROM meeting_bits_terms; DELETE FROM meeting_bits_gens; DELETE FROM meeting_bits_changed;');
}

/**
 * The tokens whose bits in the generation that answers differ from FTS5's doclists, in its first and last blocks
 * (keys changed since it began left aside): `syntheo doctor`'s check. Empty when no generation answers.
 */
export function wrongMeetingBits(sqlite: Sqlite): string[] {
  const g = readyGen(sqlite);
  if (g === undefined || g.meetings === 0) return [];
  const terms = stmt(sqlite, 'SELECT term FROM meeting_bits_terms WHERE gen = ? ORDER BY term').pluck().all(g.gen) as string[];
  const aside = (
    stmt(sqlite, 'SELECT k.num FROM meeting_bits_changed c JOIN meeting_bits_keys k ON k.gen = ? AND k.key = c.key WHERE c.seq > ?').pluck().all(g.gen, g.seq) as number[]
  ).map(Number);
  const wrong = new Set<string>();
  for (const block of new Set([0, blocksOf(g) - 1])) {
    const read = readBlock(sqlite, g, block, terms);
    const stored = new Map(
      (stmt(sqlite, 'SELECT term, bits FROM meeting_bits WHERE gen = ? AND block = ?').raw().all(g.gen, block) as [string, Uint8Array][]).map(([t, b]) => [t, b]),
    );
    for (const term of new Set([...terms, ...stored.keys()])) {
      const a = read.get(term) ?? new Uint8Array(BYTES);
      const b = stored.get(term) ?? new Uint8Array(BYTES);
      const base = block * MEETING_BLOCK;
      const left = new Set(aside.filter((n) => n >= base && n < base + MEETING_BLOCK).map((n) => n - base));
      for (let i = 0; i < MEETING_BLOCK; i++) {
        if (left.has(i)) continue;
        if (((a[i >>> 3]! >>> (i & 7)) & 1) !== ((b[i >>> 3]! >>> (i & 7)) & 1)) {
          wrong.add(term);
          break;
        }
      }
    }
  }
  return [...wrong].sort();
}
