// list_meetings read newest first from two FTS5 indexes whose rowid is the meeting's key (migration 0011):
// meeting_titles (trigram, title fragments of 3+ characters) and meeting_terms (folder, series and
// participant-word tags; 1-2 character title fragments as character grams). A key is the start time in
// milliseconds * KEY_SLOTS + a slot among the meetings of that millisecond, so `ORDER BY rowid DESC` is
// newest first, a date range is a rowid range, and count(*) is the index's own: no match is sorted or
// joined to its meeting, except the page's.
import type { Sqlite } from '../open.js';
import { stmt } from '../statements.js';
import { isAscii } from './unicode.js';
import { countFromMeetingBits, resetMeetingBits } from './meeting-bits.js';

/** Meetings that can share one millisecond; their order among themselves is settled by id (pageOf). */
export const KEY_SLOTS = 8192n;

/** What splits names, e-mails, titles and ids into words: the same characters as the triggers of migrations 0010 and 0027. */
export const PARTICIPANT_SEPARATORS = " @.,-_()/'\"+;:\t\n\r";

/** ASCII letters lowercased, the rest as it is: the case folding of LIKE, of SQLite's lower() and of the grams. */
export const lowerAscii = (text: string): string => text.replace(/[A-Z]+/g, (s) => s.toLowerCase());

/**
 * The meeting_terms token of a gram (1 or 2 code points): the hex of its UTF-8 bytes, ASCII letters lowercased,
 * after `x` when all ASCII (migration 0011), else after `u` (0014): every byte of an `x` token is below 0x80,
 * and tags start with f, s, p, d, m or y, so no two kinds of token meet.
 */
export const gramToken = (gram: string): string => {
  const bytes = Buffer.from(lowerAscii(gram), 'utf8');
  return `${bytes.every((b) => b < 0x80) ? 'x' : 'u'}${bytes.toString('hex')}`;
};

/** An FTS5 token as a quoted string (tags and grams are letters and digits; quoted anyway). */
export const quoteToken = (token: string): string => `"${token.replace(/"/g, '""')}"`;

/** Keys pass 2^53: they are read and written as BigInt. */
export type Key = bigint;

/** Stored start times (ISO, millisecond precision, UTC) as a key range: the bounds of parseDateRange, inclusive. */
export function keyRange(range: { from?: string; to?: string }): { lo?: Key; hi?: Key } {
  const ms = (iso: string) => BigInt(Date.parse(iso));
  return {
    ...(range.from !== undefined && { lo: ms(range.from) * KEY_SLOTS }),
    ...(range.to !== undefined && { hi: ms(range.to) * KEY_SLOTS + KEY_SLOTS - 1n }),
  };
}

/** Keys matching one filter, newest first, within [lo, hi]. */
export interface KeySource {
  count(lo?: Key, hi?: Key): number;
  /** The keys within [lo, hi] as a statement (one column), for a statement of its own (probedSource). */
  rows(lo?: Key, hi?: Key): { sql: string; params: unknown[] };
  /** `total`: the count within [lo, hi], when known: a page past the middle is read from the oldest end. */
  keys(limit: number, offset: number, lo?: Key, hi?: Key, total?: number): Key[];
}

/** Newest first from `offset`, or, past the middle, the same keys read oldest first from the other end (an OFFSET walks). */
function walk(run: (order: 'ASC' | 'DESC', limit: number, offset: number) => Key[], limit: number, offset: number, total?: number): Key[] {
  if (total === undefined || limit === Infinity || offset * 2 <= total) return run('DESC', limit, offset);
  const end = Math.min(total, offset + limit);
  return end <= offset ? [] : run('ASC', end - offset, total - end).reverse();
}

/** The keys of a statement of one column (`rows`), ordered by `column`, newest first from `offset` (see walk). */
function walkRows(sqlite: Sqlite, rows: { sql: string; params: unknown[] }, column: string, limit: number, offset: number, total?: number): Key[] {
  return walk(
    (order, n, skip) =>
      stmt(sqlite, `${rows.sql} ORDER BY ${column} ${order} LIMIT ? OFFSET ?`)
        .pluck()
        .safeIntegers(true)
        .all(...rows.params, n === Infinity ? -1 : n, skip) as Key[],
    limit,
    offset,
    total,
  );
}

const bounds = (lo?: Key, hi?: Key) => ({
  sql: `${lo === undefined ? '' : ' AND rowid >= ?'}${hi === undefined ? '' : ' AND rowid <= ?'}`,
  params: [...(lo === undefined ? [] : [lo]), ...(hi === undefined ? [] : [hi])],
});

/** One FTS5 query over meeting_terms or meeting_titles. */
export interface FtsQuery {
  table: 'meeting_terms' | 'meeting_titles';
  match: string;
}

/** meeting_terms' vocabulary (fts5vocab) in the connection's temp schema, made if missing. */
const vocabulary = (sqlite: Sqlite) => sqlite.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.meeting_terms_vocab USING fts5vocab(main, meeting_terms, 'row')");

/**
 * The meetings holding one meeting_terms token (a short title fragment's gram, a tag), from an fts5vocab table over it
 * in the connection's temp schema (nothing is written to the file). It walks the token's doclist as count(*) over a
 * MATCH does, without a row of SQL a match: `e`'s 91,577 titles in 2.5 ms against 3.7. Made if missing at each call
 * (a few µs): made inside a transaction that then rolled back, it would be gone.
 */
export function tokenCount(sqlite: Sqlite, token: string): number {
  vocabulary(sqlite);
  return (stmt(sqlite, 'SELECT doc FROM temp.meeting_terms_vocab WHERE term = ?').pluck().get(token) as number | undefined) ?? 0;
}

export function ftsSource(sqlite: Sqlite, { table, match }: FtsQuery): KeySource & { upTo(most: number, lo?: Key, hi?: Key): Key[] } {
  const rows = (lo?: Key, hi?: Key) => {
    const b = bounds(lo, hi);
    return { sql: `SELECT rowid FROM ${table} WHERE ${table} MATCH ?${b.sql}`, params: [match, ...b.params] };
  };
  // One token over every key: its count is the vocabulary's.
  const token = table === 'meeting_terms' ? /^"([a-z0-9]+)"$/.exec(match)?.[1] : undefined;
  return {
    count(lo, hi) {
      if (token !== undefined && lo === undefined && hi === undefined) return tokenCount(sqlite, token);
      // Several tokens: from their bitmaps when they have some (meeting-bits.ts), else FTS5 walks their doclists.
      const counted = table === 'meeting_terms' ? countFromMeetingBits(sqlite, match, lo, hi) : undefined;
      if (counted !== undefined) return counted;
      const r = rows(lo, hi);
      return stmt<{ n: number }>(sqlite, `SELECT count(*) AS n FROM (${r.sql})`).get(...r.params)!.n;
    },
    rows,
    upTo(most, lo, hi) {
      // Ascending: FTS5 streams it and stops; newest first, a phrase's doclists are read backwards, which costs more for a few matches.
      const r = rows(lo, hi);
      const keys = stmt(sqlite, `${r.sql} LIMIT ?`).pluck().safeIntegers(true).all(...r.params, most) as Key[];
      return keys.sort((x, y) => (x < y ? 1 : x > y ? -1 : 0));
    },
    keys: (limit, offset, lo, hi, total) => walkRows(sqlite, rows(lo, hi), 'rowid', limit, offset, total),
  };
}

/** Keys given in full (newest first), for few matches or an intersection. */
export function listSource(all: Key[]): KeySource {
  const within = (l?: Key, h?: Key) => (l === undefined && h === undefined ? all : all.filter((k) => (l === undefined || k >= l) && (h === undefined || k <= h)));
  return {
    count: (l, h) => within(l, h).length,
    rows: (l, h) => ({ sql: 'SELECT value FROM json_each(?)', params: [`[${within(l, h).join(',')}]`] }),
    keys: (limit, offset, l, h) => within(l, h).slice(offset, limit === Infinity ? undefined : offset + limit),
  };
}

/**
 * The keys of meeting_terms' matches within [lo, hi] whose title passes `check` (a condition on `m.title`), newest first:
 * read from meeting_titles, whose rowid is the key and whose rows hold the title alone (2.5x faster than the meetings' rows).
 */
export function checkedKeys(sqlite: Sqlite, match: string, check: { sql: string; params: unknown[] }, lo?: Key, hi?: Key): Key[] {
  const b = bounds(lo, hi);
  return stmt(sqlite, `SELECT m.rowid FROM meeting_titles m WHERE m.rowid IN (SELECT rowid FROM meeting_terms WHERE meeting_terms MATCH ?${b.sql}) AND ${check.sql} ORDER BY m.rowid DESC`)
    .pluck()
    .safeIntegers(true)
    .all(match, ...b.params, ...check.params) as Key[];
}

/** Keys of `a` and a few more given in full (newest first, none in `a`): a page reads `a` up to its end and merges. */
export function unionSource(a: KeySource, more: Key[]): KeySource {
  const extra = listSource(more);
  return {
    count: (lo, hi) => a.count(lo, hi) + extra.count(lo, hi),
    rows(lo, hi) {
      const [x, y] = [a.rows(lo, hi), extra.rows(lo, hi)];
      return { sql: `${x.sql} UNION ALL ${y.sql}`, params: [...x.params, ...y.params] };
    },
    keys(limit, offset, lo, hi) {
      const n = limit === Infinity ? Infinity : offset + limit;
      const merged = [...a.keys(n, 0, lo, hi), ...extra.keys(n, 0, lo, hi)].sort((x, y) => (x < y ? 1 : x > y ? -1 : 0));
      return merged.slice(offset, limit === Infinity ? undefined : offset + limit);
    },
  };
}

/**
 * Keys in both indexes (a title phrase and terms): SQLite merges the two rowid-ordered streams
 * (MERGE (INTERSECT)), so a page stops early and the count materialises nothing.
 */
export function intersection(sqlite: Sqlite, a: FtsQuery, b: FtsQuery): KeySource {
  const from = (lo?: Key, hi?: Key) => {
    const ba = bounds(lo, hi);
    return {
      sql: `SELECT rowid FROM ${a.table} WHERE ${a.table} MATCH ?${ba.sql} INTERSECT SELECT rowid FROM ${b.table} WHERE ${b.table} MATCH ?${ba.sql}`,
      params: [a.match, ...ba.params, b.match, ...ba.params],
    };
  };
  return {
    count(lo, hi) {
      const f = from(lo, hi);
      return stmt<{ n: number }>(sqlite, `SELECT count(*) AS n FROM (${f.sql} ORDER BY 1)`).get(...f.params)!.n;
    },
    rows: from,
    keys: (limit, offset, lo, hi, total) => walkRows(sqlite, from(lo, hi), '1', limit, offset, total),
  };
}

/**
 * The keys of `source` whose meeting passes `probe` (a condition on one meeting, given its id: a participant fragment in
 * most names), newest first: the page walks the source's keys from the newest and stops at its end, where a walk of
 * the matches sorted by date probed every one first (`e` + `design` at 100k meetings: 16,068 title matches, 174 ms for
 * a page of 20, against 3.5 ms); the count probes each key's meeting.
 */
export function probedSource(sqlite: Sqlite, source: KeySource, probe: { sql: (meetingId: string) => string; params: unknown[] }): KeySource {
  const rows = (lo?: Key, hi?: Key) => {
    const r = source.rows(lo, hi);
    return { sql: `SELECT k.key FROM meeting_keys k WHERE k.key IN (${r.sql}) AND ${probe.sql('k.meeting_id')}`, params: [...r.params, ...probe.params] };
  };
  return {
    count(lo, hi) {
      // The meetings probed in id order, as the participants' index is (16,068 probed: 1.3x faster than in key order).
      const r = source.rows(lo, hi);
      return stmt<{ n: number }>(sqlite, `SELECT count(*) AS n FROM (SELECT k.meeting_id AS id FROM meeting_keys k WHERE k.key IN (${r.sql}) ORDER BY 1) x WHERE ${probe.sql('x.id')}`).get(
        ...r.params,
        ...probe.params,
      )!.n;
    },
    rows,
    keys: (limit, offset, lo, hi, total) => walkRows(sqlite, rows(lo, hi), 'k.key', limit, offset, total),
  };
}

/**
 * The page's keys in list order (started_at desc, id desc): the index's order, except among meetings of one
 * millisecond. When the page's first or last millisecond holds matches beyond the page, those are read too,
 * everything is sorted by the meetings' columns, and the page is cut at the right place.
 */
export function pageOf(sqlite: Sqlite, source: KeySource, offset: number, limit: number, lo?: Key, hi?: Key, total?: number): string[] {
  // The page with the key before it and the key after it: when neither shares a millisecond with the page's edge, the page is all there is to sort.
  const around = source.keys(limit + (offset > 0 ? 2 : 1), Math.max(0, offset - 1), lo, hi, total);
  const page = around.slice(offset > 0 ? 1 : 0, (offset > 0 ? 1 : 0) + limit);
  if (page.length === 0) return [];
  // The first and last key's milliseconds (floor division: keys before 1970 are negative).
  const group = (k: Key) => (k >= 0n ? k / KEY_SLOTS : -((-k + KEY_SLOTS - 1n) / KEY_SLOTS));
  const lowest = group(page.at(-1)!) * KEY_SLOTS;
  const highest = group(page[0]!) * KEY_SLOTS + KEY_SLOTS - 1n;
  const spanLo = lo !== undefined && lo > lowest ? lo : lowest;
  const spanHi = hi !== undefined && hi < highest ? hi : highest;
  const alone = around.every((k) => page.includes(k) || k < spanLo || k > spanHi);
  const span = alone ? page : source.keys(Infinity, 0, spanLo, spanHi);
  const ordered = stmt<{ id: string }>(
    sqlite,
    'SELECT m.id FROM meeting_keys k JOIN meetings m ON m.id = k.meeting_id WHERE k.key IN (SELECT value FROM json_each(?)) ORDER BY m.started_at DESC, m.id DESC',
  )
    .all(`[${span.join(',')}]`)
    .map((r) => r.id);
  if (span.length === page.length) return ordered;
  const before = spanHi === hi ? 0 : source.count(spanHi + 1n, hi);
  return ordered.slice(offset - before, offset - before + limit);
}

/**
 * The grams of the view meeting_list_terms (migrations 0011, 0014) in JavaScript: each code point and pair of adjacent
 * code points (as SQLite's substr counts) of the title and of the id, ASCII letters lowercased, as gramToken spells
 * them. Null for text holding NUL or a lone surrogate, where SQLite's view of the characters may differ.
 */
export function gramsOf(title: string, id: string): string | null {
  if (/[\0\uD800-\uDFFF]/u.test(title) || /[\0\uD800-\uDFFF]/u.test(id)) return null;
  // ASCII grams as numbers (c, or 128 + c * 128 + d: most titles have no other), the others as their tokens.
  const grams = new Set<number>();
  const wide = new Set<string>();
  const lower = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c);
  for (const text of [title, id]) {
    if (isAscii(text)) {
      for (let i = 0; i < text.length; i++) {
        const c = lower(text.charCodeAt(i));
        grams.add(c);
        if (i + 1 < text.length) grams.add(128 + c * 128 + lower(text.charCodeAt(i + 1)));
      }
      continue;
    }
    const chars = Array.from(lowerAscii(text));
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      const d = chars[i + 1];
      const ascii = c.charCodeAt(0) < 0x80;
      if (ascii) grams.add(c.charCodeAt(0));
      else wide.add(gramToken(c));
      if (d === undefined) continue;
      if (ascii && d.charCodeAt(0) < 0x80) grams.add(128 + c.charCodeAt(0) * 128 + d.charCodeAt(0));
      else wide.add(gramToken(c + d));
    }
  }
  const hex = (c: number) => HEX[c]!;
  return [...[...grams].map((g) => (g < 128 ? `x${hex(g)}` : `x${hex((g - 128) >> 7)}${hex((g - 128) & 127)}`)), ...wide].join(' ');
}

const HEX = Array.from({ length: 128 }, (_, c) => c.toString(16).padStart(2, '0'));

/** A title word's token in meeting_terms (migration 0027): `w` + the hex of its UTF-8 bytes. */
export const titleWordToken = (word: string): string => `w${Buffer.from(word, 'utf8').toString('hex')}`;

/** The token of meeting_terms held by the meetings whose title or id holds a NUL (their words are not all kept). */
export const NUL_TITLE_TOKEN = 'w';

/** A title's and id's word, past this many code points, is kept as its chunks of this many starting every half. */
export const TITLE_CHUNK = 64;

const WORD_SPLIT = new RegExp(`[${PARTICIPANT_SEPARATORS.replace(/[\]\\^-]/g, '\\$&')}]+`);

/**
 * The words of a title and an id, as the view meeting_title_words (migration 0027) keeps them: split at the
 * separators, ASCII letters lowercased, a word longer than TITLE_CHUNK code points as its chunks; distinct.
 */
export function titleWords(title: string, id: string): string[] {
  const words = new Set<string>();
  for (const text of [title, id])
    for (const word of lowerAscii(text).split(WORD_SPLIT)) {
      if (word === '') continue;
      const points = Array.from(word);
      if (points.length <= TITLE_CHUNK) words.add(word);
      else for (let at = 0; at === 0 || at + TITLE_CHUNK / 2 < points.length; at += TITLE_CHUNK / 2) words.add(points.slice(at, at + TITLE_CHUNK).join(''));
    }
  return [...words];
}

/**
 * The words' tokens of the view meeting_list_terms (migration 0027) in JavaScript, with a space before each, as the view
 * appends them to the title's grams. Null for text holding NUL or a lone surrogate, where SQLite's view may differ.
 */
export function titleWordsOf(title: string, id: string): string | null {
  if (/[\0\uD800-\uDFFF]/u.test(title) || /[\0\uD800-\uDFFF]/u.test(id)) return null;
  let out = '';
  for (const word of titleWords(title, id)) out += ` ${titleWordToken(word)}`;
  return out;
}

/** A participant gram's token in meeting_terms (migration 0025): `q` + the hex of its bytes, ASCII letters lowercased. */
export const peopleGramToken = (gram: string): string => `q${Buffer.from(lowerAscii(gram), 'utf8').toString('hex')}`;

/**
 * The participants' grams of the view meeting_list_terms (migration 0025) in JavaScript: each run of 1-3 ASCII
 * characters of each name and e-mail, ASCII letters lowercased, as peopleGramToken spells them (with a space before
 * each, as the view appends them to the title's grams). Null for a name or e-mail holding NUL or a lone surrogate.
 */
export function peopleGramsOf(handles: string[]): string | null {
  const grams = new Set<string>();
  for (const handle of handles) {
    if (/[\0\uD800-\uDFFF]/u.test(handle)) return null;
    const text = lowerAscii(handle);
    for (let i = 0; i < text.length; i++) {
      for (let n = 1; n <= 3 && i + n <= text.length && text.charCodeAt(i + n - 1) < 0x80; n++) grams.add(text.slice(i, i + n));
    }
  }
  let out = '';
  for (const gram of grams) {
    out += ' q';
    for (let i = 0; i < gram.length; i++) out += HEX[gram.charCodeAt(i)]!;
  }
  return out;
}

/** The names and e-mails of a meeting's participants (column `h`), given the meeting's id as SQL. */
export const PEOPLE_OF = (meetingId: string) =>
  `SELECT p.name AS h FROM participants p WHERE p.meeting_id = ${meetingId} UNION ALL SELECT p.email FROM participants p WHERE p.meeting_id = ${meetingId} AND p.email IS NOT NULL`;

/**
 * Adds to title_words the words of meeting_terms' rows it lacks (read from the index's vocabulary, one walk of the `w`
 * tokens), as the meetings' triggers add them one meeting at a time. At 100k meetings (200,028 words) ~0.7 s when it
 * holds them all (the repair), ~3.6 s into an empty table (a bulk fill: each word's trigger writes its trigrams).
 */
function addTitleWords(sqlite: Sqlite): void {
  vocabulary(sqlite);
  const tokens = stmt(sqlite, "SELECT term FROM temp.meeting_terms_vocab WHERE term > 'w' AND term < 'x'").pluck().all() as string[];
  const insert = stmt(sqlite, 'INSERT OR IGNORE INTO title_words (word) VALUES (?)');
  for (const token of tokens) insert.run(Buffer.from(token.slice(1), 'hex').toString('utf8'));
}

/**
 * Fills meeting_keys, meeting_titles and meeting_terms from the meetings, as migration 0011 does, and adds the title
 * words they lack (0027): for writers
 * that set the meetings' triggers aside (bench/generate.ts) and for the repair (queries/integrity.ts), which
 * recreate the tables empty. Whatever they held is replaced.
 */
export function fillListIndexes(sqlite: Sqlite): { meetings: number } {
  // Every key new: the bitmaps of meeting_terms are built again (the worker, or buildMeetingBits); emptied first, no
  // key written here is marked changed.
  resetMeetingBits(sqlite);
  sqlite.exec("DELETE FROM meeting_keys; DELETE FROM meeting_titles; INSERT INTO meeting_terms (meeting_terms) VALUES ('delete-all');");
  // Each index holds up to 64 MiB in memory before it writes a segment (one or two segments, not one a megabyte), then FTS5's default again.
  const hashsize = (bytes: number) => sqlite.exec(`INSERT INTO meeting_titles (meeting_titles, rank) VALUES ('hashsize', ${bytes}); INSERT INTO meeting_terms (meeting_terms, rank) VALUES ('hashsize', ${bytes});`);
  hashsize(64 * 1024 * 1024);
  const meetings = sqlite
    .prepare(
      `INSERT INTO meeting_keys (key, meeting_id)
       SELECT (ms * ${KEY_SLOTS}) + row_number() OVER (PARTITION BY ms ORDER BY id) - 1, id
       FROM (SELECT id, coalesce(CAST(round(unixepoch(started_at, 'subsec') * 1000) AS INTEGER), 0) AS ms FROM meetings)`,
    )
    .run().changes;
  sqlite.exec('INSERT INTO meeting_titles (rowid, title, id) SELECT key, title, meeting_id FROM meeting_list_terms');
  // The grams computed in JavaScript (10x faster than the recursive SQL), the SQL for text JavaScript might read otherwise.
  sqlite.function('syntheo_list_grams', { deterministic: true }, (title: unknown, id: unknown, handles: unknown) => {
    const people = peopleGramsOf(JSON.parse(String(handles)) as string[]);
    const own = gramsOf(String(title), String(id));
    const words = titleWordsOf(String(title), String(id));
    return people === null || own === null || words === null ? null : own + words + people;
  });
  sqlite.exec(
    `INSERT INTO meeting_terms (rowid, tags, grams)
     SELECT v.key, v.tags, coalesce(syntheo_list_grams(v.title, v.meeting_id, (SELECT json_group_array(h) FROM (${PEOPLE_OF('v.meeting_id')}))), v.grams) FROM meeting_list_terms v`,
  );
  hashsize(1024 * 1024);
  addTitleWords(sqlite);
  // Each index merged into one segment: a long doclist read across the fill's segments cost (100k meetings,
  // query `e` 6.3 -> 3.9 ms, `in` 3.6 -> 2.4, one title 3.4 -> 1.9); 2.7 s for both.
  sqlite.exec("INSERT INTO meeting_titles (meeting_titles) VALUES ('optimize'); INSERT INTO meeting_terms (meeting_terms) VALUES ('optimize');");
  return { meetings };
}
