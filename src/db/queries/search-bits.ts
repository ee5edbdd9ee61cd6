// Bitmaps of the dense terms of search_fts (migration 0015), for the exact total of a search for common words with
// broad filters: FTS5 intersects a word said in 78% of the passages with a folder, six months or a common participant
// by walking the word's doclist once per passage of the filter (5-14 ms at 100k meetings); the same count from
// bitmaps is an AND and a popcount over 4096 passages a row, ~95 rows a term at 100k (0.4-0.5 ms).
//
// Beside them (migration 0016), what BM25 needs of a passage, so that a search ranks its window without reading the
// window's passages (2,000 rows of text and lengths: 6-8 ms of `the` + a folder): for each dense word how often each
// passage says it (`freq:`), and each passage's length in tokens (`size:`); those rows in search_cells since
// migration 0020 (see tableOf).
//
// Kept by the worker in bounded rounds (searchBitsRound): which terms are dense, their bits for each block of passage
// ids up to the newest, once the passages fill one block (built from FTS5's own doclists, read outside the write
// lock and written only if nothing they depend on moved meanwhile), and the bits of passages written below the
// reserved blocks (search_bits_dirty, marked by triggers: every new passage until the newest block is full) set
// again. A search takes from the bitmaps only the blocks every one of its terms has built and
// only passages not marked dirty, its total and its newest matches; FTS5 answers for the rest (src/db/queries/search.ts).
import type { Sqlite } from '../open.js';
import { stmt } from '../statements.js';
import { rowLength } from './fts-records.js';
import { asciiTokens } from './fts-tokens.js';
import { isBusy } from '../sqlite/errors.js';
import { PEOPLE_OF, peopleGramsOf } from './list-index.js';
import { holdsFragment } from './participant-words.js';
import { popcount } from './popcount.js';

/** search_fts's tokenizer (migration 0002): a passage's words are counted with it. */
const SEARCH_TOKENIZER = 'unicode61 remove_diacritics 2';

/** Passage ids a block holds (id >> 12 is its block): a row's bitmap is 512 bytes. */
export const BLOCK = 4096;
const BYTES = BLOCK / 8;

/**
 * A word is dense when this share of the passages say it (188 words at 100k meetings: rarer ones are intersected by
 * FTS5 in under a millisecond), a tag when this share of the meetings hold it (116 tags: a filter without a dense tag
 * is a few thousand passages at most).
 */
const DENSE_WORD_SHARE = 1 / 32;
const DENSE_TAG_SHARE = 1 / 128;

/**
 * A tag that is not dense has a list instead (migration 0021): its passages' ids, a row per span of SPAN ids (id >> 16)
 * as sorted 16-bit offsets. A group of such tags (the names holding a fragment, a range's days) is read from them
 * rather than from FTS5, a doclist a tag.
 */
const SPAN = 65_536;
export const listTerm = (tag: string) => `list:${tag.toLowerCase()}`;
const isList = (term: string) => term.startsWith('list:');
const tagOfList = (term: string) => term.slice('list:'.length);

/**
 * A word not dense but said in this many passages (a ranked window's worth: 787 words at 100k meetings) has a said list
 * (migration 0023): its passages' ids in rows of search_said as a list's, an id once a time the passage says the word.
 * BM25 takes a full window's counts of the word from it, and the bitmaps its passages. A rarer word never fills a
 * window; its passages are read from FTS5 (452 in 0.06 ms).
 */
const SAID_WORD_MIN = 2000;
export const saidTerm = (word: string) => `said:${word}`;
const isSaid = (term: string) => term.startsWith('said:');
const wordOfSaid = (term: string) => term.slice('said:'.length);
/** Where a list term's rows are. */
type ListTable = 'search_lists' | 'search_said';
const listTable = (term: string): ListTable => (isSaid(term) ? 'search_said' : 'search_lists');

/**
 * A participant gram (1-3 ASCII characters of a name or an e-mail, as peopleGramToken spells it in meeting_terms) held
 * by this share of the meetings has bits (`gram:` terms of search_bits, no new table): a passage's bit is set when its
 * meeting holds the gram. A participant fragment in too many names for a filter's tags is its gram (when no name holds
 * the gram without the fragment), one row a block read, rather than the OR of its names' lists (`person1`'s 1,111
 * names: 865,000 ids, ~6 ms a search at 100k meetings). 1/16: a gram in fewer meetings leaves few names to OR.
 */
const DENSE_GRAM_SHARE = 1 / 16;
export const gramTerm = (token: string) => `gram:${token}`;
const isGram = (term: string) => term.startsWith('gram:');
/** Blocks of passages whose meetings' participants a round reads for the grams (4,096 passages: ~0.1-0.2 s at 100k meetings). */
const GRAM_BLOCKS = 1;

/** Blocks of passages whose text a round reads for the said lists (16,384 passages). */
const SAID_BLOCKS = 4;

/** The terms' set is read again when the passages have grown by this share since it was last read. */
const RECHECK_GROWTH = 1 / 16;

/** Blocks of passages whose text a round reads for the words' counts (16,384 passages: ~0.3 s at load 1). */
const FREQ_BLOCKS = 4;
/** Blocks of lengths a round reads (the whole of search_fts_docsize at 100k meetings: ~0.7 s). */
const SIZE_BLOCKS = 16;

/**
 * Blocks of passages whose tags a round reads for the lists (8,192 passages: ~90 ms for 10,424 lists at 100k meetings,
 * then ~40 ms writing them).
 */
const LIST_BLOCKS = 2;

/** Dirty passages set again a round, at most. */
const CLEAN_BATCH = 256;

/**
 * The key of a word of the passages' text, and of a tag (a folder, series, participant word or calendar token), as
 * FTS5 holds it: tags are ASCII (hex digits of ids), which unicode61 folds to lower case.
 */
export const wordTerm = (word: string) => `text:${word}`;
export const tagTerm = (tag: string) => `tags:${tag.toLowerCase()}`;
/** How often each passage's text says a word (a cell of 4 bits: 1-14, 15 for more, 0 none), and each passage's length in tokens (8 bits: 255 for more). */
export const freqTerm = (word: string) => `freq:${word}`;
export const SIZE_TERM = 'size:';

/** The FTS5 expression matching exactly the passages of a word or a tag. */
function matchOf(term: string): string {
  const at = term.indexOf(':');
  return `{${term.slice(0, at)}} : "${term.slice(at + 1).replace(/"/g, '""')}"`;
}

/**
 * Bits a passage takes in a row of a term: a bit for words and tags (bit (id % BLOCK) & 7 of byte (id % BLOCK) >> 3),
 * 4 for a word's frequency, 8 for a length; cells fill a byte from its low bits.
 */
const widthOf = (term: string): 1 | 4 | 8 => (term.startsWith('freq:') ? 4 : term === SIZE_TERM ? 8 : 1);
/**
 * The table holding a term's rows: the bit rows (512 bytes a block) in search_bits, a WITHOUT ROWID table; the cell
 * rows (2,048 and 4,096 bytes) in search_cells, a rowid table, whose leaves hold rows of that size where an index
 * b-tree spills them onto overflow pages (migration 0020).
 */
const tableOf = (term: string): 'search_bits' | 'search_cells' => (widthOf(term) === 1 ? 'search_bits' : 'search_cells');
const rowBytes = (width: number) => (BLOCK * width) / 8;
const maxCell = (width: number) => (1 << width) - 1;

function cellOf(row: Uint8Array, at: number, width: number): number {
  const perByte = 8 / width;
  return (row[Math.floor(at / perByte)]! >> ((at % perByte) * width)) & maxCell(width);
}

function setCell(row: Uint8Array, at: number, width: number, value: number): void {
  const perByte = 8 / width;
  const [byte, shift] = [Math.floor(at / perByte), (at % perByte) * width];
  row[byte] = (row[byte]! & ~(maxCell(width) << shift)) | (Math.min(value, maxCell(width)) << shift);
}

interface State {
  reserved: number;
  checked_passages: number;
  /** Moved on by every reset: bits read before one (of passages since written again under other ids) are never written. */
  epoch: number;
}

/** The state row (none in a file whose table a repair created again: nothing is reserved, nothing gets built until a reset). */
const state = (sqlite: Sqlite) => stmt<State>(sqlite, 'SELECT reserved, checked_passages, epoch FROM search_bits_state WHERE id = 1').get() ?? { reserved: 0, checked_passages: 0, epoch: -1 };
const highestPassage = (sqlite: Sqlite) => (stmt(sqlite, 'SELECT max(id) FROM search_passages').pluck().get() as number | null) ?? -1;

export interface BitsRound {
  /** Terms that became dense this round. */
  added: number;
  /** Terms whose bits were built up to the newest block. */
  built: string[];
  /** Lists built over a range of blocks (each a term). */
  lists: number;
  /** Dirty passages whose bits were set again. */
  cleaned: number;
  /** Work is left for further rounds. */
  more: boolean;
}

/** The terms whose rows are read together, every term of the kind a few blocks at a time: the words' counts, the grams. */
const READ_TOGETHER: { holds: (term: string) => boolean; blocks: number; read: (sqlite: Sqlite, terms: string[], from: number, to: number) => { blocks: Map<string, Blocks>; epoch: number } }[] = [
  { holds: (term) => term.startsWith('freq:'), blocks: FREQ_BLOCKS, read: readFreqs },
  { holds: isGram, blocks: GRAM_BLOCKS, read: readGrams },
];

/**
 * One bounded round of upkeep: the dense terms read again when the passages grew, terms built up to the newest block
 * (the one new passages go to: a search's window is mostly there) until `budgetMs` is spent (at least one: each read
 * outside the write lock, written in a short transaction of its own; the words' counts and the lengths a few blocks a
 * round), then up to CLEAN_BATCH dirty passages set again (one write transaction). A busy database ends the round
 * (the work waits for the next one).
 */
export function searchBitsRound(sqlite: Sqlite, options: { budgetMs?: number; saidWords?: number } = {}): BitsRound {
  const budgetMs = options.budgetMs ?? 50;
  const started = performance.now();
  const round: BitsRound = { added: 0, built: [], lists: 0, cleaned: 0, more: false };
  try {
    const highest = highestPassage(sqlite);
    // Nothing until the passages fill a block: below that, every search is cheap.
    if (highest + 1 < BLOCK) return round;
    const target = Math.ceil((highest + 1) / BLOCK);
    if (highest + 1 >= state(sqlite).checked_passages * (1 + RECHECK_GROWTH)) round.added = addDenseTerms(sqlite, highest + 1, options.saidWords ?? SAID_WORD_MIN);
    if (state(sqlite).reserved < target) sqlite.transaction(() => stmt(sqlite, 'UPDATE search_bits_state SET reserved = max(reserved, ?) WHERE id = 1').run(target)).immediate();
    const behind = stmt<{ term: string; built: number }>(sqlite, 'SELECT term, built FROM search_bits_terms WHERE built < ? ORDER BY built, term').all(target);
    const taken = new Set<string>();
    for (const { term, built } of behind) {
      if (taken.has(term)) continue;
      if (round.built.length + round.lists > 0 && performance.now() - started >= budgetMs) {
        round.more = true;
        break;
      }
      const together = READ_TOGETHER.find((r) => r.holds(term));
      if (together) {
        // Every term of its kind built as far as this one, from one read of a few blocks (the words' counts: the
        // passages' text, which whole would hold the worker for seconds; the grams: the passages' meetings' names),
        // written in one transaction.
        const terms = behind.filter((b) => b.built === built && together.holds(b.term)).map((b) => b.term);
        for (const t of terms) taken.add(t);
        const to = Math.min(target, built + together.blocks);
        const read = together.read(sqlite, terms, built, to);
        round.built.push(...sqlite.transaction(() => terms.filter((t) => writeTermBits(sqlite, t, built, to, { blocks: read.blocks.get(t)!, epoch: read.epoch }))).immediate());
        if (to < target) round.more = true;
      } else if (isList(term) || isSaid(term)) {
        // The lists of every tag (or every said word) built as far as this one, from one read of the passages' tags
        // (text), a few blocks a round.
        const said = isSaid(term);
        const lists = behind.filter((b) => b.built === built && (said ? isSaid(b.term) : isList(b.term))).map((b) => b.term);
        for (const l of lists) taken.add(l);
        const to = Math.min(target, built + (said ? SAID_BLOCKS : LIST_BLOCKS));
        const read = readLists(sqlite, lists, built, to);
        round.lists += sqlite.transaction(() => writeLists(sqlite, lists, built, to, read)).immediate();
        if (to < target) round.more = true;
      } else {
        // The lengths, a range of blocks a round too.
        const to = term === SIZE_TERM ? Math.min(target, built + SIZE_BLOCKS) : target;
        if (buildTerm(sqlite, term, built, to)) round.built.push(term);
        if (to < target) round.more = true;
      }
    }
    // After the builds: a block they built for every term can be cleaned at once.
    round.cleaned = cleanDirty(sqlite);
    if (round.cleaned === CLEAN_BATCH) round.more = true;
  } catch (error) {
    if (!isBusy(error)) throw error;
    round.more = true;
  }
  return round;
}

/** Every round until nothing is left: after a bulk write (the bench generator), in tests. */
export function buildSearchBits(sqlite: Sqlite, options: { saidWords?: number } = {}): void {
  for (let i = 0; i < 1_000_000; i++) if (!searchBitsRound(sqlite, { ...options, budgetMs: Infinity }).more) return;
}

/**
 * The dense words and tags, a list for each other tag and a said list for each word said in `saidWords` passages not
 * dense, added with nothing built.
 */
function addDenseTerms(sqlite: Sqlite, passages: number, saidWords: number): number {
  const meetings = stmt(sqlite, 'SELECT count(*) FROM meetings').pluck().get() as number;
  // Every word in `saidWords` passages: the dense ones get bits, the others said lists.
  const dense = Math.max(1, Math.ceil(passages * DENSE_WORD_SHARE));
  const counted = stmt(sqlite, 'SELECT word, passages >= ? FROM search_word_counts WHERE passages >= ?').raw().all(dense, Math.min(saidWords, dense)) as [string, number][];
  const words = counted.flatMap(([word, isDense]) => (isDense ? [word] : []));
  const said = counted.flatMap(([word, isDense]) => (isDense ? [] : [word]));
  // Every tag: the dense ones get bits, the others lists.
  const tags = stmt(sqlite, 'SELECT tag, count(*) >= ? FROM meeting_tags GROUP BY tag').raw().all(Math.max(1, Math.ceil(meetings * DENSE_TAG_SHARE))) as [string, number][];
  // The participants' grams held by DENSE_GRAM_SHARE of the meetings, from meeting_terms' vocabulary (its `q` tokens).
  sqlite.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.meeting_terms_vocab USING fts5vocab(main, meeting_terms, 'row')");
  const grams = stmt(sqlite, "SELECT term FROM temp.meeting_terms_vocab WHERE term >= 'q' AND term < 'r' AND doc >= ?")
    .pluck()
    .all(Math.max(1, Math.ceil(meetings * DENSE_GRAM_SHARE))) as string[];
  return sqlite
    .transaction(() => {
      const insert = stmt(sqlite, 'INSERT OR IGNORE INTO search_bits_terms (term, built) VALUES (?, 0)');
      let added = 0;
      const tagTerms = tags.map(([tag, dense]) => (dense ? tagTerm(tag) : listTerm(tag)));
      for (const term of [...words.map(wordTerm), ...words.map(freqTerm), ...said.map(saidTerm), ...tagTerms, ...grams.map(gramTerm), SIZE_TERM]) added += insert.run(term).changes;
      stmt(sqlite, 'UPDATE search_bits_state SET checked_passages = ? WHERE id = 1').run(passages);
      return added;
    })
    .immediate();
}

/**
 * Builds a term's bits for blocks [from, to): read (readTermBits), then written (writeTermBits) if nothing it
 * depends on moved meanwhile.
 */
function buildTerm(sqlite: Sqlite, term: string, from: number, to: number): boolean {
  return writeTermBits(sqlite, term, from, to, readTermBits(sqlite, term, from, to));
}

/**
 * The counts of several words (`freq:` terms) in each passage of blocks [from, to), from one read of the passages'
 * text (a block at a time) in one read transaction: for 188 words at 100k meetings, a tenth of the time of reading
 * each word's own instances (cellsOf).
 */
function readFreqs(sqlite: Sqlite, terms: string[], from: number, to: number): { blocks: Map<string, Blocks>; epoch: number } {
  const blocks = new Map<string, Blocks>(terms.map((t) => [t, new Map()]));
  // By word, and each block's row made before the passages are read.
  const rows = new Map(terms.map((t) => [t.slice('freq:'.length), new Map<number, Uint8Array>()]));
  let epoch = -1;
  sqlite
    .transaction(() => {
      epoch = state(sqlite).epoch;
      const texts = stmt(sqlite, 'SELECT id, text FROM search_passages WHERE id >= ? AND id < ?').raw();
      for (let block = from; block < to; block++) {
        const row = new Map([...rows].map(([word]) => [word, new Uint8Array(rowBytes(4))]));
        let any = false;
        for (const [id, text] of texts.all(block * BLOCK, (block + 1) * BLOCK) as [number, string][]) {
          const at = id - block * BLOCK;
          const tokens = asciiTokens(text);
          // Counted into the cells as the tokens come (most passages), else from wordCounts.
          if (tokens)
            for (const token of tokens) {
              const cells = row.get(token);
              if (cells === undefined) continue;
              const n = cellOf(cells, at, 4);
              if (n < maxCell(4)) setCell(cells, at, 4, n + 1);
              any = true;
            }
          else
            for (const [word, n] of wordCounts(sqlite, text)) {
              const cells = row.get(word);
              if (cells === undefined) continue;
              setCell(cells, at, 4, n);
              any = true;
            }
        }
        if (any) for (const [word, cells] of row) if (cells.some((b) => b !== 0)) rows.get(word)!.set(block, cells);
      }
    })
    .deferred();
  for (const t of terms) blocks.set(t, rows.get(t.slice('freq:'.length))!);
  return { blocks, epoch };
}

/**
 * The bits of several grams (`gram:` terms) for the passages of blocks [from, to), from one read of the passages'
 * meetings and their participants' names and e-mails in one read transaction: each meeting's grams once.
 */
function readGrams(sqlite: Sqlite, terms: string[], from: number, to: number): { blocks: Map<string, Blocks>; epoch: number } {
  const blocks = new Map<string, Blocks>(terms.map((t) => [t, new Map()]));
  let epoch = -1;
  sqlite
    .transaction(() => {
      epoch = state(sqlite).epoch;
      const grams = meetingGrams(sqlite);
      // Each meeting's terms' rows looked up once (its passages are together, mostly).
      let last: [meeting: string, rows: Blocks[]] | undefined;
      const passages = stmt(sqlite, 'SELECT id, meeting_id FROM search_passages WHERE id >= ? AND id < ?').raw();
      for (const [id, meeting] of passages.iterate(from * BLOCK, to * BLOCK) as IterableIterator<[number, string]>) {
        if (last?.[0] !== meeting) last = [meeting, grams(meeting).flatMap((token) => blocks.get(gramTerm(token)) ?? [])];
        for (const rows of last[1]) setBit(rows, id);
      }
    })
    .deferred();
  return { blocks, epoch };
}

/**
 * A meeting's participants' grams (meeting_terms' `q` tokens: peopleGramsOf of its names and e-mails), each meeting's
 * read once by the function returned. As LIKE reads a name: up to a NUL (SQLite's LIKE stops there), a lone surrogate
 * (none is stored: SQLite keeps U+FFFD) not part of any gram.
 */
function meetingGrams(sqlite: Sqlite): (meetingId: string) => string[] {
  const seen = new Map<string, string[]>();
  const handles = stmt(sqlite, PEOPLE_OF('?')).pluck();
  return (meetingId) => {
    let grams = seen.get(meetingId);
    if (grams === undefined) {
      const read = (handles.all(meetingId, meetingId) as string[]).map((h) => h.split('\0')[0]!.replace(/[\uD800-\uDFFF]/gu, '\uFFFD'));
      grams = (peopleGramsOf(read) ?? '').split(' ').filter((t) => t !== '');
      seen.set(meetingId, grams);
    }
    return grams;
  };
}

/** A list row's ids (span * SPAN + each offset), ascending (a said row's repeated). */
function listIds(span: number, row: Uint8Array): number[] {
  const ids = new Array<number>(row.length >>> 1);
  for (let i = 0, base = span * SPAN; i < ids.length; i++) ids[i] = base + (row[2 * i]! | (row[2 * i + 1]! << 8));
  return ids;
}

/** A list row of ids of one span, ascending (a said row's repeated). */
function listRow(ids: number[]): Uint8Array {
  const row = new Uint8Array(2 * ids.length);
  for (let i = 0; i < ids.length; i++) {
    const at = ids[i]! % SPAN;
    [row[2 * i], row[2 * i + 1]] = [at & 0xff, at >>> 8];
  }
  return row;
}

/** A list term's row of one span, as stored (empty: none). */
const spanRow = (sqlite: Sqlite, term: string, span: number): Uint8Array =>
  (stmt(sqlite, `SELECT ids FROM ${listTable(term)} WHERE term = ? AND span = ?`).pluck().get(term, span) as Uint8Array | undefined) ?? new Uint8Array(0);

/** A list term's ids of one span, ascending. */
const spanIds = (sqlite: Sqlite, term: string, span: number): number[] => listIds(span, spanRow(sqlite, term, span));

/** Writes a list term's row of one span (empty: deleted). */
function putRow(sqlite: Sqlite, term: string, span: number, row: Uint8Array): void {
  const table = listTable(term);
  if (row.length === 0) stmt(sqlite, `DELETE FROM ${table} WHERE term = ? AND span = ?`).run(term, span);
  else stmt(sqlite, `INSERT OR REPLACE INTO ${table} (term, span, ids) VALUES (?, ?, ?)`).run(term, span, row);
}

/** Writes a list term's ids of one span (none: its row deleted). */
const putList = (sqlite: Sqlite, term: string, span: number, ids: number[]) => putRow(sqlite, term, span, listRow(ids));

/** The tags of a passage's `tags` column as FTS5 tokenises them. */
const tagsOf = (sqlite: Sqlite, tags: string): string[] => asciiTokens(tags) ?? wordCounts(sqlite, tags).map(([tag]) => tag);

/**
 * The passages of blocks [from, to) of each list term (all list terms or all said terms): those holding its tag, or
 * each passage once a time it says the term's word; from one read of the passages' tags (text) in one read
 * transaction, leaving out the passages marked dirty (a list holds a passage as it was when first marked: see
 * migration 0021).
 */
function readLists(sqlite: Sqlite, terms: string[], from: number, to: number): { ids: Map<string, number[]>; epoch: number } {
  const ids = new Map(terms.map((term): [string, number[]] => [term, []]));
  const said = terms.some(isSaid);
  let epoch = -1;
  sqlite
    .transaction(() => {
      epoch = state(sqlite).epoch;
      const [low, high] = [from * BLOCK, to * BLOCK];
      // A said list leaves out only the passages whose words may have changed (migration 0023): those whose tags alone
      // changed it holds as their text says.
      const dirty = new Set(stmt(sqlite, `SELECT passage_id FROM search_bits_dirty WHERE passage_id >= ? AND passage_id < ?${said ? ' AND said' : ''}`).pluck().all(low, high) as number[]);
      const rows = stmt(sqlite, `SELECT id, ${said ? 'text' : 'tags'} FROM search_passages WHERE id >= ? AND id < ? ORDER BY id`).raw();
      for (const [id, column] of rows.all(low, high) as [number, string][]) {
        if (dirty.has(id)) continue;
        if (!said) for (const tag of tagsOf(sqlite, column)) ids.get(listTerm(tag))?.push(id);
        else
          for (const [word, n] of wordCounts(sqlite, column)) {
            const list = ids.get(saidTerm(word));
            if (list) for (let i = 0; i < n; i++) list.push(id);
          }
      }
    })
    .deferred();
  return { ids, epoch };
}

/**
 * Writes what readLists read (in the caller's write transaction) for the terms still built up to `from`, if no reset
 * came between and `reserved` still covers `to`: a span's row keeps its ids below `from` blocks. How many were written.
 */
function writeLists(sqlite: Sqlite, terms: string[], from: number, to: number, read: { ids: Map<string, number[]>; epoch: number }): number {
  const { reserved, epoch } = state(sqlite);
  if (epoch !== read.epoch || reserved < to) return 0;
  const low = from * BLOCK;
  const moved = stmt(sqlite, 'UPDATE search_bits_terms SET built = ? WHERE built = ? AND term IN (SELECT value FROM json_each(?)) RETURNING term')
    .pluck()
    .all(to, from, JSON.stringify(terms)) as string[];
  for (const term of moved) {
    const ids = read.ids.get(term)!;
    for (let i = 0; i < ids.length; ) {
      const span = Math.floor(ids[i]! / SPAN);
      let end = i;
      while (end < ids.length && Math.floor(ids[end]! / SPAN) === span) end++;
      const kept = span * SPAN < low ? spanIds(sqlite, term, span).filter((id) => id < low) : [];
      putList(sqlite, term, span, [...kept, ...ids.slice(i, end)]);
      i = end;
    }
  }
  return moved.length;
}

/** A term's rows by block, as they hold its cells (widthOf). */
type Blocks = Map<number, Uint8Array>;

/** A term's bits as read, and the reset epoch they were read in. */
export interface TermBits {
  blocks: Blocks;
  epoch: number;
}

function setBit(blocks: Blocks, id: number, width: 1 | 4 | 8 = 1, value = 1): void {
  const block = Math.floor(id / BLOCK);
  let row = blocks.get(block);
  if (!row) blocks.set(block, (row = new Uint8Array(rowBytes(width))));
  setCell(row, id - block * BLOCK, width, value);
}

/**
 * What a term's rows hold, for each passage id in [low, high) that has a cell (ids, and the cells' values):
 * - a word or a tag, its doclist within [low, high), newest first (all() ~0.4 µs a row, iterate() ~2.5);
 * - a word's frequencies, counted from its instances in the text column (fts5vocab 'instance', in this connection's
 *   temp schema; the whole list, ~1.4 s for `the` at 100k meetings: it cannot start at a passage): FTS5's own count,
 *   for the doctor's check (the rounds count the words of the passages' text, readFreqs);
 * - the lengths, from search_fts_docsize: one byte a column when each is under 128 tokens (`unicode()` of such a byte
 *   is its value), else the record's varints.
 */
function* cellsOf(sqlite: Sqlite, term: string, low: number, high: number): Generator<[id: number, value: number]> {
  if (term === SIZE_TERM) {
    const sizes = stmt(
      sqlite,
      'SELECT id, CASE WHEN length(sz) = 2 THEN unicode(substr(sz, 1, 1)) + unicode(substr(sz, 2, 1)) END, CASE WHEN length(sz) <> 2 THEN sz END FROM search_fts_docsize WHERE id >= ? AND id < ?',
    ).raw();
    for (const [id, short, record] of sizes.all(low, high) as [number, number | null, Uint8Array | null][]) yield [id, short ?? rowLength(record!)];
    return;
  }
  if (term.startsWith('freq:')) {
    sqlite.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_fts_instance USING fts5vocab(main, search_fts, instance)');
    const counts = stmt(sqlite, "SELECT doc, count(*) FROM temp.search_fts_instance WHERE term = ? AND col = 'text' GROUP BY doc").raw();
    for (const [id, n] of counts.all(term.slice('freq:'.length)) as [number, number][]) if (id >= low && id < high) yield [id, n];
    return;
  }
  if (isGram(term)) {
    // The passages of the range whose meeting has a participant whose name or e-mail holds the gram, as the participant
    // filter matches it (LIKE, ASCII case folded), not as readGrams reads them: the doctor compares the two.
    const held = holdsFragment(Buffer.from(term.slice('gram:q'.length), 'hex').toString('latin1'), ['pa.name', 'pa.email']);
    const holding = stmt(sqlite, `SELECT p.id FROM search_passages p WHERE p.id >= ? AND p.id < ? AND EXISTS (SELECT 1 FROM participants pa WHERE pa.meeting_id = p.meeting_id AND ${held.sql})`).pluck();
    for (const id of holding.all(low, high, ...held.values) as number[]) yield [id, 1];
    return;
  }
  // The bounds cast: FTS5 seeks a rowid bound only when it is an integer, and better-sqlite3 binds a number as a REAL
  // (block 1 of `the` at 100k meetings: 0.5 ms, against 16 walking down from the newest).
  const within = stmt(sqlite, 'SELECT rowid FROM search_fts WHERE search_fts MATCH ? AND rowid >= CAST(? AS INTEGER) AND rowid < CAST(? AS INTEGER) ORDER BY rowid DESC').pluck();
  for (const id of within.all(matchOf(term), low, high) as number[]) yield [id, 1];
}

/**
 * A term's rows for blocks [from, to) (cellsOf), in one read transaction (no write lock: all of `the`'s 346,673 passages at
 * 100k meetings are read in ~150 ms).
 */
export function readTermBits(sqlite: Sqlite, term: string, from: number, to: number): TermBits {
  const blocks: Blocks = new Map();
  const width = widthOf(term);
  let epoch = -1;
  sqlite
    .transaction(() => {
      epoch = state(sqlite).epoch;
      for (const [id, value] of cellsOf(sqlite, term, from * BLOCK, to * BLOCK)) setBit(blocks, id, width, value);
    })
    .deferred();
  return { blocks, epoch };
}

/**
 * Writes bits read by readTermBits if, now, the term is still built up to `from` (another worker did not build it
 * meanwhile), no reset came between (a repair writes the passages again under other ids) and `reserved` still covers
 * `to`. A passage written since the read is below `reserved` (raised before the read), so it is marked dirty: its bits
 * here are never used.
 */
export function writeTermBits(sqlite: Sqlite, term: string, from: number, to: number, read: TermBits): boolean {
  return sqlite
    .transaction(() => {
      const now = stmt<{ built: number }>(sqlite, 'SELECT built FROM search_bits_terms WHERE term = ?').get(term);
      const { reserved, epoch } = state(sqlite);
      if (now?.built !== from || epoch !== read.epoch || reserved < to) return false;
      stmt(sqlite, `DELETE FROM ${tableOf(term)} WHERE term = ? AND block >= ? AND block < ?`).run(term, from, to);
      const insert = stmt(sqlite, `INSERT INTO ${tableOf(term)} (term, block, bits) VALUES (?, ?, ?)`);
      for (const [block, bits] of read.blocks) insert.run(term, block, bits);
      stmt(sqlite, 'UPDATE search_bits_terms SET built = ? WHERE term = ?').run(to, term);
      return true;
    })
    .immediate();
}

/**
 * The terms whose rows differ from the index (the passages marked dirty aside), for `syntheo doctor`: every built
 * term read again (cellsOf) in one read transaction (~25 s at 100k meetings, most of it the words' frequencies).
 */
export function wrongSearchBits(sqlite: Sqlite): string[] {
  return sqlite
    .transaction(() => {
      const terms = stmt<{ term: string; built: number }>(sqlite, 'SELECT term, built FROM search_bits_terms WHERE built > 0 ORDER BY term').all();
      const dirty: Blocks = new Map();
      const marked = new Set(stmt(sqlite, 'SELECT passage_id FROM search_bits_dirty').pluck().all() as number[]);
      for (const id of marked) setBit(dirty, id);
      const wrong: string[] = [];
      for (const { term, built } of terms) {
        if (isList(term) || isSaid(term)) {
          // A list: its tag's passages in FTS5 (a said list: each once a time FTS5 holds its word there), the marked
          // ones aside; its rows well formed, their ids ascending (a said list's repeated).
          const high = built * BLOCK;
          const truth = (
            isSaid(term)
              ? [...cellsOf(sqlite, freqTerm(wordOfSaid(term)), 0, high)].flatMap(([id, n]) => new Array<number>(n).fill(id))
              : [...cellsOf(sqlite, tagTerm(tagOfList(term)), 0, high)].map(([id]) => id)
          )
            .filter((id) => !marked.has(id))
            .sort((a, b) => a - b);
          const rows = stmt(sqlite, `SELECT span, ids FROM ${listTable(term)} WHERE term = ? ORDER BY span`).raw().all(term) as [number, Uint8Array][];
          const stored = rows.flatMap(([span, row]) => listIds(span, row));
          const ascending = (id: number, i: number) => i === 0 || id > stored[i - 1]! || (isSaid(term) && id === stored[i - 1]);
          const formed = rows.every(([, row]) => row.length > 0 && row.length % 2 === 0) && stored.every(ascending) && stored.every((id) => id < high);
          const kept = stored.filter((id) => !marked.has(id));
          if (!formed || kept.length !== truth.length || kept.some((id, i) => id !== truth[i])) wrong.push(term);
          continue;
        }
        const width = widthOf(term);
        const truth: Blocks = new Map();
        // A gram's bits in a few blocks only (GRAM_CHECKED_BLOCKS): each block's passages looked up in the gram's meetings.
        const blocks = isGram(term) ? checkedBlocks(built) : undefined;
        for (const [low, high] of blocks ? blocks.map((b) => [b * BLOCK, (b + 1) * BLOCK]) : [[0, built * BLOCK]])
          for (const [id, value] of cellsOf(sqlite, term, low!, high!)) setBit(truth, id, width, value);
        const stored = new Map(
          (stmt(sqlite, `SELECT block, bits FROM ${tableOf(term)} WHERE term = ? AND block < ?`).raw().all(term, built) as [number, Uint8Array][]).filter(([block]) => !blocks || blocks.includes(block)),
        );
        const differs = [...new Set([...truth.keys(), ...stored.keys()])].some((block) => {
          const [t, s, d] = [truth.get(block), stored.get(block), dirty.get(block)];
          if (s !== undefined && s.length !== rowBytes(width)) return true;
          if (width === 1) {
            for (let i = 0; i < BYTES; i++) if (((t?.[i] ?? 0) & ~(d?.[i] ?? 0)) !== ((s?.[i] ?? 0) & ~(d?.[i] ?? 0))) return true;
            return false;
          }
          for (let at = 0; at < BLOCK; at++)
            if (!(d && cellOf(d, at, 1)) && (t ? cellOf(t, at, width) : 0) !== (s ? cellOf(s, at, width) : 0)) return true;
          return false;
        });
        if (differs) wrong.push(term);
      }
      return wrong;
    })
    .deferred();
}

/**
 * The doctor reads a gram's bits again in every block when they are this few, else in the newest built and one at random:
 * each gram's block costs ~10 ms (4,096 passages' participants matched), 396 grams at 100k meetings.
 */
const GRAM_CHECKED_BLOCKS = 3;

/** The blocks below `built` whose gram bits the doctor reads again. */
function checkedBlocks(built: number): number[] {
  if (built <= GRAM_CHECKED_BLOCKS) return Array.from({ length: built }, (_, b) => b);
  return [...new Set([built - 1, Math.floor(Math.random() * (built - 1))])];
}

/**
 * Sets the cells of up to CLEAN_BATCH dirty passages again, in blocks every term has built (a term being built may
 * still write cells it read before the passage changed: its blocks wait), and unmarks them. One write transaction:
 * each passage's cell cleared in every row of its block, then set in the rows of the dense terms it holds and in the
 * lengths' row (cellsOfPassage); and taken out of the lists of the tags it had when first marked (migration 0021: the
 * lists held it as it was then, or not at all), then put into the lists of the tags it holds; the same for the said
 * lists of its words (cleanSaid).
 */
function cleanDirty(sqlite: Sqlite): number {
  return sqlite
    .transaction(() => {
      const built = stmt(sqlite, 'SELECT min(built) FROM search_bits_terms').pluck().get() as number | null;
      if (!built) return 0;
      const marks = stmt(sqlite, 'SELECT passage_id, tags, said, text FROM search_bits_dirty WHERE passage_id < ? ORDER BY passage_id LIMIT ?').raw().all(built * BLOCK, CLEAN_BATCH) as [
        number,
        string | null,
        number,
        string | null,
      ][];
      if (marks.length === 0) return 0;
      const ids = marks.map(([id]) => id);
      const byBlock = new Map<number, number[]>();
      for (const id of ids) byBlock.set(Math.floor(id / BLOCK), [...(byBlock.get(Math.floor(id / BLOCK)) ?? []), id]);
      const terms = new Set(stmt(sqlite, 'SELECT term FROM search_bits_terms').pluck().all() as string[]);
      // The lists: each passage out of the lists of the tags it had when first marked, into those of its tags now.
      const spans = new Map<string, { term: string; span: number; ids: Set<number>; changed: boolean }>();
      const spanOf = (term: string, id: number) => {
        const [span, key] = [Math.floor(id / SPAN), `${Math.floor(id / SPAN)} ${term}`];
        let row = spans.get(key);
        if (!row) spans.set(key, (row = { term, span, ids: new Set(spanIds(sqlite, term, span)), changed: false }));
        return row;
      };
      const grams = meetingGrams(sqlite);
      const cells = new Map(ids.map((id) => [id, cellsOfPassage(sqlite, id, grams)]));
      for (const [id, was] of marks) {
        for (const tag of was ? tagsOf(sqlite, was) : [])
          if (terms.has(listTerm(tag))) {
            const row = spanOf(listTerm(tag), id);
            if (row.ids.delete(id)) row.changed = true;
          }
        for (const [term] of cells.get(id)!)
          if (term.startsWith('tags:') && terms.has(listTerm(term.slice('tags:'.length)))) {
            const row = spanOf(listTerm(term.slice('tags:'.length)), id);
            if (!row.ids.has(id)) {
              row.ids.add(id);
              row.changed = true;
            }
          }
      }
      for (const row of spans.values()) if (row.changed) putList(sqlite, row.term, row.span, [...row.ids].sort((a, b) => a - b));
      cleanSaid(sqlite, marks.flatMap(([id, , said, text]): [number, string | null][] => (said ? [[id, text]] : [])), cells, terms);
      for (const [block, passages] of byBlock) {
        const rows = new Map(
          stmt<{ term: string; bits: Uint8Array }>(sqlite, 'SELECT term, bits FROM search_bits WHERE block = ? UNION ALL SELECT term, bits FROM search_cells WHERE block = ?')
            .all(block, block)
            .map((r) => [r.term, new Uint8Array(r.bits)]),
        );
        const changed = new Set<string>();
        for (const id of passages) {
          const at = id - block * BLOCK;
          for (const [term, row] of rows)
            if (cellOf(row, at, widthOf(term)) !== 0) {
              setCell(row, at, widthOf(term), 0);
              changed.add(term);
            }
          for (const [term, value] of cells.get(id)!) {
            if (!terms.has(term)) continue;
            let row = rows.get(term);
            if (!row) rows.set(term, (row = new Uint8Array(rowBytes(widthOf(term)))));
            setCell(row, at, widthOf(term), value);
            changed.add(term);
          }
        }
        for (const term of changed) {
          const row = rows.get(term)!;
          if (row.some((b) => b !== 0)) stmt(sqlite, `INSERT OR REPLACE INTO ${tableOf(term)} (term, block, bits) VALUES (?, ?, ?)`).run(term, block, row);
          else stmt(sqlite, `DELETE FROM ${tableOf(term)} WHERE term = ? AND block = ?`).run(term, block);
        }
      }
      const unmark = stmt(sqlite, 'DELETE FROM search_bits_dirty WHERE passage_id = ?');
      for (const id of ids) unmark.run(id);
      return ids.length;
    })
    .immediate();
}

/**
 * The said lists of cleaned passages whose words may have changed (migration 0023: marked `said`): each taken out of the
 * rows of the words of the text its mark kept (none for a new passage, which no list holds), then put into the rows of
 * the words it says now, once a time. A row it is only put into, above the row's last id (new passages hold the highest
 * ids), has its ids appended to the stored row, not decoded, sorted and encoded again with them.
 */
function cleanSaid(sqlite: Sqlite, marks: [id: number, text: string | null][], cells: Map<number, [term: string, value: number][]>, terms: Set<string>): void {
  const rows = new Map<string, { term: string; span: number; stored: Uint8Array; ids?: number[]; added: number[] }>();
  const cleaned = new Set(marks.map(([id]) => id));
  const rowOf = (term: string, span: number) => {
    const key = `${span} ${term}`;
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { term, span, stored: spanRow(sqlite, term, span), added: [] }));
    return row;
  };
  // A row's ids decoded, without the cleaned passages.
  const decoded = (row: { span: number; stored: Uint8Array; ids?: number[] }) => (row.ids ??= listIds(row.span, row.stored).filter((id) => !cleaned.has(id)));
  for (const [id, was] of marks) {
    const span = Math.floor(id / SPAN);
    for (const [word] of was === null ? [] : wordCounts(sqlite, was)) if (terms.has(saidTerm(word))) decoded(rowOf(saidTerm(word), span));
    for (const [term, n] of cells.get(id)!) {
      const said = term.startsWith('freq:') ? saidTerm(term.slice('freq:'.length)) : undefined;
      if (said === undefined || !terms.has(said)) continue;
      const row = rowOf(said, span);
      for (let i = 0; i < n; i++) row.added.push(id);
    }
  }
  for (const row of rows.values()) {
    const added = row.added.sort((a, b) => a - b);
    const { stored, span } = row;
    const last = listIds(span, stored.subarray(-2))[0] ?? -1;
    if (row.ids === undefined && added[0]! > last) {
      const appended = new Uint8Array(stored.length + 2 * added.length);
      appended.set(stored);
      appended.set(listRow(added), stored.length);
      putRow(sqlite, row.term, span, appended);
    } else putList(sqlite, row.term, span, [...decoded(row), ...added].sort((a, b) => a - b));
  }
}

/**
 * A passage's cells (none when it is gone): its text's words (said, and how often) and its tags, as search_fts
 * tokenises them (wordCounts), and its length as search_fts recorded it.
 */
function cellsOfPassage(sqlite: Sqlite, id: number, grams = meetingGrams(sqlite)): [term: string, value: number][] {
  const row = stmt<{ text: string; tags: string; meeting_id: string }>(sqlite, 'SELECT text, tags, meeting_id FROM search_passages WHERE id = ?').get(id);
  const size = stmt(sqlite, 'SELECT sz FROM search_fts_docsize WHERE id = ?').pluck().get(id) as Uint8Array | undefined;
  if (!row) return [];
  return [
    ...wordCounts(sqlite, row.text).flatMap(([word, n]): [string, number][] => [[wordTerm(word), 1], [freqTerm(word), n]]),
    ...wordCounts(sqlite, row.tags).map(([tag]): [string, number] => [tagTerm(tag), 1]),
    ...grams(row.meeting_id).map((token): [string, number] => [gramTerm(token), 1]),
    ...(size ? [[SIZE_TERM, rowLength(size)] as [string, number]] : []),
  ];
}

/**
 * How often `text` says each of its words, as search_fts tokenises it: counted here when the tokenizer's ASCII rules
 * hold it exactly (~20x faster), else through a one-row FTS5 table of this connection's temp schema with search_fts's
 * tokenizer and positions (migration 0013's scratch table has none: its vocabulary counts a word once), emptied after.
 */
function wordCounts(sqlite: Sqlite, text: string): [word: string, count: number][] {
  const ascii = asciiTokens(text);
  if (ascii) {
    const counts = new Map<string, number>();
    for (const token of ascii) counts.set(token, (counts.get(token) ?? 0) + 1);
    return [...counts];
  }
  sqlite.exec(
    `CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_count_scratch USING fts5(text, content='', tokenize='${SEARCH_TOKENIZER}');
     CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_count_vocab USING fts5vocab(temp, search_count_scratch, row);`,
  );
  stmt(sqlite, 'INSERT INTO temp.search_count_scratch (rowid, text) VALUES (1, ?)').run(text);
  const counts = stmt(sqlite, 'SELECT term, cnt FROM temp.search_count_vocab').raw().all() as [string, number][];
  stmt(sqlite, "INSERT INTO temp.search_count_scratch (search_count_scratch) VALUES ('delete-all')").run();
  return counts;
}

/** Empties the bitmaps (they are built again): after the passages are written again under new ids (repair, bulk restore). */
export function resetSearchBits(sqlite: Sqlite): void {
  sqlite.exec(
    'DELETE FROM search_bits; DELETE FROM search_cells; DELETE FROM search_lists; DELETE FROM search_said; DELETE FROM search_bits_dirty; DELETE FROM search_bits_terms; INSERT INTO search_bits_state (id, reserved, checked_passages) VALUES (1, 0, 0) ON CONFLICT (id) DO UPDATE SET reserved = 0, checked_passages = 0, epoch = epoch + 1',
  );
}

/**
 * A term's bits of each block below `blocks` (BYTES each), read as one blob and the list of its blocks (both aggregated
 * over the same rows in the same order, so the k-th block's bits are the blob's k-th BYTES): a row read as a value of
 * its own cost ~2 µs (`the` + six months, a folder and a participant word: 9 terms of 96 blocks, 1.8-2.0 ms a search,
 * against 0.7-0.9 concatenated). Row by row when a row is not BYTES long (a file written otherwise).
 */
function termBits(sqlite: Sqlite, term: string, blocks: number): [block: number, bits: Uint8Array][] {
  const [list, blob] = stmt(
    sqlite,
    "SELECT group_concat(block), CAST(group_concat(bits, '') AS BLOB) FROM search_bits WHERE term = ? AND block < ?",
  )
    .raw()
    .get(term, blocks) as [string | null, Uint8Array | null];
  if (list === null || blob === null) return [];
  const ids = list.split(',');
  if (blob.length === ids.length * BYTES) return ids.map((id, k) => [Number(id), blob.subarray(k * BYTES, (k + 1) * BYTES)]);
  return (stmt(sqlite, 'SELECT block, bits FROM search_bits WHERE term = ? AND block < ?').raw().all(term, blocks) as [number, Uint8Array][]).map(([block, bits]) => [block, bits.subarray(0, BYTES)]);
}

/**
 * The built blocks of those of `terms` search_bits_terms holds, as one JSON array (a participant fragment's names may
 * be thousands of terms), each looked up in the order given: `person1`'s 2,222 in 0.8 ms, against 1.4 through `IN`,
 * which gathered and sorted them first.
 */
export function termsBuilt(sqlite: Sqlite, terms: string[]): Map<string, number> {
  return new Map(stmt(sqlite, 'SELECT t.term, t.built FROM json_each(?) j JOIN search_bits_terms t ON t.term = j.value').raw().all(JSON.stringify(terms)) as [string, number][]);
}

/**
 * A filter the bitmaps intersect: a passage holds one of the tags (less those of `less`, whose passages are left out),
 * or is one of the ids (read only if the bitmaps can answer). `built`: the built blocks of its tags' `tags:` and `list:`
 * terms, when the caller has read them (a term without a row absent): not read again (a participant fragment's 1,111
 * names at 100k meetings, ~1.9 ms). Or a kept term's passages (`term`: its bits, built as far as the words, which the
 * caller checks: a participant gram's).
 */
export type BitsGroup = { tags: string[]; less?: string[]; built?: ReadonlyMap<string, number> } | { ids: () => number[] } | { term: string };

export interface BitsMatches {
  /** The matches below `below` (the passages of `aside` and the dirty ones left out), a bit a passage id. */
  bits: Uint8Array;
  /** How many they are. */
  count: number;
  /** The first passage id the bitmaps do not answer for: those from it on are FTS5's to walk. */
  below: number;
  /** Passages below `below` marked dirty: the caller asks FTS5 about them. */
  dirty: number[];
}

/** Dirty passages over this: counted from FTS5 as before (they are set again a few hundred a round). */
const MAX_DIRTY = 5000;
/** Dirty passages asked one by one (below the edge FTS5 walks down to) over this: counted from FTS5 as before (300 asked cost ~27 ms at 100k meetings, about what counting `the` + six months costs). */
const MAX_ASKED = 300;

/**
 * Passages of the tags that are not dense read at most, in all. A tag is dense from 1/128 of the meetings, so more
 * than a few thousand passages come from a group of tags (a range's days, the names holding a participant fragment),
 * whose OR costs FTS5 a step over every tag for each row: read a tag at a time (~0.12 µs a passage), the 29,028
 * passages of "Ines Kowalski" (38 names) with `the` took 12.5 ms against 25 through FTS5's intersection (100k meetings).
 */
const SPARSE_LIMIT = 60_000;

/**
 * The passages below the blocks every term has built that say all of `words` and pass each of `groups`, from the
 * bitmaps, leaving aside the dirty passages (returned) and `aside`. Undefined when the bitmaps cannot answer: no word
 * dense (nor, with a group, a word with a said list), nothing built, too many dirty passages. The tags of a group that are not dense are read from FTS5 (at most
 * `sparseLimit` passages in all, else undefined): with `the`, a small folder (589 meetings) 0.84x, a series 0.82x the
 * time of FTS5's intersection, one day 1.26x (+0.5 ms) (measured with the tags read as one OR). Without a group, so are
 * the words that are not dense, as one: `the marmarorpla`, 452 passages read in 0.06 ms, against FTS5 intersecting them
 * with `the`'s doclist, 1.6 ms.
 */
export function matchBits(sqlite: Sqlite, words: string[], groups: BitsGroup[], aside: number[], sparseLimit = SPARSE_LIMIT): BitsMatches | undefined {
  const tagGroups = groups.flatMap((g) => ('tags' in g ? [g.tags.map(tagTerm)] : 'term' in g ? [[g.term]] : []));
  const wordTerms = words.map(wordTerm);
  const unread = groups.flatMap((g) => ('tags' in g && !g.built ? [g] : []));
  const lists = unread.flatMap((g) => [...g.tags, ...(g.less ?? [])].map(listTerm));
  const kept = groups.flatMap((g) => ('term' in g ? [g.term] : []));
  const wanted = [...wordTerms, ...words.map(saidTerm), ...unread.flatMap((g) => g.tags.map(tagTerm)), ...lists, ...kept];
  const built = termsBuilt(sqlite, wanted);
  for (const g of groups) if ('tags' in g && g.built) for (const [term, blocks] of g.built) built.set(term, blocks);
  const denseWords = wordTerms.filter((t) => built.get(t));
  const sparseWords = wordTerms.filter((t) => !built.get(t));
  const saidOf = (t: string) => saidTerm(t.slice('text:'.length));
  const listed = sparseWords.filter((t) => built.get(saidOf(t)));
  const unlisted = sparseWords.filter((t) => !listed.includes(t));
  // Words without a said list (rare words) are read from FTS5 only without a group: with a filter, FTS5 intersects them
  // with its tags cheaply (loops of 100 calls, the bitmaps against FTS5: `the elra` + the smallest leaf folder 0.4-1.1
  // ms a call slower, `the marmarorpla` + the biggest folder 0.2-0.8 ms slower, both with their passages from FTS5;
  // `the elra` + the biggest folder 0.6-1.7 ms faster). Without a dense word, the said lists' words with a filter (a
  // call, against FTS5's intersection: `elra` + a common participant word 10.1 -> 3.2 ms, + six months 6.3 -> 4.1, +
  // the biggest folder 4.1 -> 3.1, + the smallest leaf folder 0.75 -> 0.95); without a filter, FTS5 intersects them
  // (`elra orto`, 300 passages: 3.3 ms a call from the lists, against 2.1).
  const base = denseWords.length > 0 || (listed.length > 0 && groups.length > 0);
  if (!base || (unlisted.length > 0 && groups.length > 0)) return undefined;
  const blocks = Math.min(...[...denseWords, ...listed.map(saidOf), ...tagGroups.flat().filter((t) => built.has(t))].map((t) => built.get(t)!));
  if (blocks === 0) return undefined;
  const below = blocks * BLOCK;
  const dirty = stmt(sqlite, 'SELECT passage_id FROM search_bits_dirty WHERE passage_id < ? LIMIT ?').pluck().all(below, MAX_DIRTY + 1) as number[];
  if (dirty.length > MAX_DIRTY) return undefined;
  // The newest dirty passages (written since the worker's last round) are left to FTS5's walk of the passages above
  // the bitmaps, down to the cheapest edge, rather than asked one by one.
  const edge = cheapestEdge(dirty, below);
  const asked = dirty.filter((id) => id < edge);
  if (asked.length > MAX_ASKED) return undefined;

  // Each list of bits as one array over every block below `blocks`: the rows' blobs copied in, combined 32 bits at a
  // time; a passage's bit is addressed through the bytes (bit id & 7 of byte id >> 3, as the blobs hold it).
  const WORDS = BYTES / 4;
  const row = new Int32Array(WORDS);
  const rowBytes = new Uint8Array(row.buffer);
  const bitsOf = (term: string, merge?: Int32Array) => {
    const into = merge ?? new Int32Array(blocks * WORDS);
    const bytes = new Uint8Array(into.buffer);
    for (const [block, bits] of termBits(sqlite, term, blocks)) {
      if (!merge) bytes.set(bits, block * BYTES);
      else {
        rowBytes.set(bits);
        for (let i = 0, at = block * WORDS; i < WORDS; i++) into[at + i]! |= row[i]!;
      }
    }
    return into;
  };
  // Without a dense word, every passage below the blocks: the groups narrow it.
  const acc = denseWords.length > 0 ? bitsOf(denseWords[0]!) : new Int32Array(blocks * WORDS).fill(-1);
  const and = (other: Int32Array) => {
    for (let i = 0; i < acc.length; i++) acc[i]! &= other[i]!;
  };
  for (const term of denseWords.slice(1)) and(bitsOf(term));
  // The words that are not dense: each from its said list (9,822 ids of `elra`: 0.1 ms, against 2.2 from FTS5), the
  // others' passages from FTS5, as a group of ids.
  const saying = unlisted.length > 0 ? (JSON.parse(stmt(sqlite, SPARSE_PASSAGES).pluck().get(unlisted.map(matchOf).join(' AND '), sparseLimit + 1) as string) as number[]) : [];
  let sparse = saying.length;
  if (sparse > sparseLimit) return undefined;
  const wordGroups = [...listed.map((t): BitsGroup => ({ ids: () => saidIds(sqlite, saidOf(t), below) })), ...(unlisted.length > 0 ? [{ ids: () => saying }] : [])];
  // Each group: its dense tags' bits ORed, its sparse tags' passages and its ids set.
  for (const group of [...groups, ...wordGroups]) {
    const merged = new Int32Array(acc.length);
    const mergedBytes = new Uint8Array(merged.buffer);
    const set = (ids: number[]) => {
      for (const id of ids) if (id < below) mergedBytes[id >>> 3]! |= 1 << (id & 7);
    };
    const unset = (ids: number[]) => {
      for (const id of ids) if (id < below) mergedBytes[id >>> 3]! &= ~(1 << (id & 7));
    };
    if ('ids' in group) set(group.ids());
    else if ('term' in group) bitsOf(group.term, merged);
    else {
      const terms = group.tags.map(tagTerm);
      for (const term of terms) if (built.has(term)) bitsOf(term, merged);
      // The others from their lists when built over these blocks, LIST_TERMS_A_READ terms a statement (a fragment's
      // 3,118 names at 100k meetings: 3.1M ids), each row's ids set (or cleared) in the bits as read; else from FTS5, a
      // query each, as one JSON array (see SPARSE_LIMIT: FTS5's OR of many terms costs more), until `sparseLimit`
      // passages in all, each array's bits set as it is read (gathered into one list first, the 30,000 passages of
      // "Ines Kowalski" (38 names) cost 4.7 ms against 2.6). Without `rowid < ?`: with a bound on its rowid, FTS5 reads
      // a doclist slower than whole.
      const readSparse = (tags: string[], clear: boolean): boolean => {
        const isListed = (tag: string) => (built.get(listTerm(tag)) ?? 0) >= blocks;
        const listed = tags.filter(isListed);
        // (listIds' decoding, each id set as read: 3.1M of them for a letter's names.) The rows as one blob for each
        // LIST_TERMS_A_READ terms (see LIST_ROWS).
        for (let from = 0; from < listed.length; from += LIST_TERMS_A_READ) {
          const [blob, spansJson, lengthsJson] = stmt(sqlite, LIST_ROWS)
            .raw()
            .get(JSON.stringify(listed.slice(from, from + LIST_TERMS_A_READ).map(listTerm)), Math.ceil(below / SPAN)) as [Uint8Array | null, string, string];
          const spans = JSON.parse(spansJson) as number[];
          const lengths = JSON.parse(lengthsJson) as number[];
          for (let r = 0, at = 0; r < spans.length; r++) {
            const base = spans[r]! * SPAN;
            const end = at + lengths[r]!;
            for (let i = at; i + 1 < end; i += 2) {
              const id = base + (blob![i]! | (blob![i + 1]! << 8));
              if (id >= below) break;
              if (clear) mergedBytes[id >>> 3]! &= ~(1 << (id & 7));
              else mergedBytes[id >>> 3]! |= 1 << (id & 7);
            }
            at = end;
          }
        }
        for (const tag of tags.filter((t) => !isListed(t))) {
          const read = JSON.parse(stmt(sqlite, 'SELECT json_group_array(rowid) FROM search_fts WHERE search_fts MATCH ?').pluck().get(matchOf(tagTerm(tag))) as string) as number[];
          if ((sparse += read.length) > sparseLimit) return false;
          if (clear) unset(read);
          else set(read);
        }
        return true;
      };
      if (!readSparse(group.tags.filter((tag) => !built.has(tagTerm(tag))), false)) return undefined;
      // Then the passages of the tags the group leaves out.
      if (!readSparse(group.less ?? [], true)) return undefined;
    }
    and(merged);
  }
  const bits = new Uint8Array(acc.buffer);
  for (const id of [...asked, ...aside]) if (id < below) bits[id >>> 3]! &= ~(1 << (id & 7));
  for (let id = edge; id < below; id++) bits[id >>> 3]! &= ~(1 << (id & 7));
  return { bits, count: popcount(acc), below: edge, dirty: asked };
}

/** A said term's passages below `below`, ascending (a passage repeated once a time it says the word). */
function saidIds(sqlite: Sqlite, term: string, below: number): number[] {
  const ids: number[] = [];
  // Decoded here, not by listIds: through the Store, `the elra` 4.1 -> 4.8 ms a call with listIds' arrays flattened.
  for (const [span, row] of stmt(sqlite, 'SELECT span, ids FROM search_said WHERE term = ? AND span < ? ORDER BY span').raw().all(term, Math.ceil(below / SPAN)) as [number, Uint8Array][])
    for (let i = 0, base = span * SPAN; i + 1 < row.length; i += 2) {
      const id = base + (row[i]! | (row[i + 1]! << 8));
      if (id >= below) break;
      ids.push(id);
    }
  return ids;
}

/** The passages of an FTS5 expression as one JSON array, at most `?` of them. */
const SPARSE_PASSAGES = 'SELECT json_group_array(rowid) FROM (SELECT rowid FROM search_fts WHERE search_fts MATCH ? LIMIT ?)';

/**
 * The terms whose lists are read as one blob (LIST_ROWS). A term has a list when its tag is held by fewer than 1/128
 * of the meetings (else bits): at 100k meetings, ~6 KB of ids for meetings of average length, ~1.5 KB for `person1`'s
 * names. All 1,111 of those in one 1.7 MB blob, the C library mapped fresh memory for it (and SQLite's buffer) at most
 * calls and the process faulted it in page by page: 422 faults a call, ~12 µs each on this machine (a VM). Read 64
 * terms at a time (~100 KB), the memory freed by one read serves the next: `the` + `person1` 16.2 -> 11.4 ms a call
 * (p50, alternated), faults 422 -> 0 (p50); 16 to 128 terms at a time measured alike.
 */
const LIST_TERMS_A_READ = 64;

/**
 * The rows of search_lists of some terms (a JSON array) below a span, in one pass: their ids one row after another as
 * one blob, and each row's span and its length in bytes as two JSON arrays in the same order (the aggregates are fed
 * each row in turn). A letter's 3,118 names at 100k meetings are 18,708 rows: SQLite reads them in 4 ms, but a Buffer
 * made for each took 30-80 ms. Grouped by span (a blob a span), SQLite sorted the rows, blobs and all: `person1`'s 1,111
 * names (6,666 rows, 1.7 MB) 2.5-10 ms, against 1.9 in one pass. group_concat() keeps a blob's bytes as they are in a
 * UTF-8 database (in UTF-16 it would convert them as text: openDatabase refuses such a file).
 */
const LIST_ROWS = `SELECT CAST(group_concat(ids, '') AS BLOB), json_group_array(span), json_group_array(length(ids))
  FROM search_lists WHERE term IN (SELECT value FROM json_each(?)) AND span < ?`;

/**
 * Asking FTS5 whether one passage matches, by rowid, costs about as much as walking this many passages newest first
 * (each rowid asked sets the whole query up again: ~90 µs at 100k meetings; a walk ~0.4 µs a passage). 1,500
 * passages appended since the last round, `the` + six months: 4.1 s asked with the whole query, 164 ms asked for the
 * words only, 18 ms walked (the whole search).
 */
const ASKED_IN_WALKED = 200;

/** The lowest edge down to which FTS5 walks the passages above the bitmaps: below it, the dirty passages are asked one by one. */
function cheapestEdge(dirty: number[], below: number): number {
  const newestFirst = [...dirty].sort((a, b) => b - a);
  let [edge, cost] = [below, newestFirst.length * ASKED_IN_WALKED];
  newestFirst.forEach((id, i) => {
    const walked = below - id + (newestFirst.length - i - 1) * ASKED_IN_WALKED;
    if (walked < cost) [edge, cost] = [id, walked];
  });
  return edge;
}

/** The passage ids whose bit is set, highest first. */
export function* idsNewestFirst(bits: Uint8Array): Generator<number> {
  const words = new Int32Array(bits.buffer, bits.byteOffset, bits.length >>> 2);
  for (let w = words.length - 1; w >= 0; w--) {
    if (words[w] === 0) continue;
    for (let byte = w * 4 + 3; byte >= w * 4; byte--) {
      const b = bits[byte]!;
      if (b !== 0) for (let bit = 7; bit >= 0; bit--) if (b & (1 << bit)) yield byte * 8 + bit;
    }
  }
}

/**
 * Passages of a window a block must hold for its rows to be read (a length row of 4 KB and a 2 KB row a dense word; a
 * said word's counts come from its list): with fewer, reading the passages costs less (one day of meetings, 223
 * passages over 40 blocks: 1.13x the time with every block's rows read). Was 8: the window's cells and ranking alone,
 * alternated in one process at 100k meetings (p50 of 110, two runs, 8 -> 4), `elra` + "Ines Kowalski" (717 passages)
 * 1.90/2.05 -> 1.18/1.39 ms, `elra` + the biggest folder (842) 1.86/1.68 -> 1.25/1.17, `the` + the smallest leaf
 * folder (1,924) 1.62/1.64 -> 1.45/1.48, `the` + one day (223) 0.39/0.59 -> 0.38/0.56, `the` + a rare participant
 * (542) 0.81/1.12 -> 0.76/1.02 (2: 0.05-0.23 ms faster than 4 for `elra`, within 0.1 ms either way for `the`).
 */
const WINDOW_CELLS_MIN = 4;

/** How often each passage of `ids` (ascending or not) says a said term's word, from the rows of its spans. */
function saidCounts(sqlite: Sqlite, term: string, ids: number[]): Map<number, number> {
  // The wanted ids and each span's (ascending, an id once an occurrence) merged: no array of a span's ids, no set of
  // the wanted (windowCells, alternated, p50 of 190: `elra` + "Ines Kowalski", 717 passages, 1.21 -> 1.08 ms; + the
  // biggest folder 0.97 -> 0.81; `the elra` 1.05 -> 0.96).
  const wanted = [...ids].sort((a, b) => a - b);
  const spans = [...new Set(wanted.map((id) => Math.floor(id / SPAN)))];
  const rows = stmt(sqlite, 'SELECT span, ids FROM search_said WHERE term = ? AND span IN (SELECT value FROM json_each(?))').raw().all(term, JSON.stringify(spans)) as [number, Uint8Array][];
  const counts = new Map<number, number>();
  let w = 0;
  for (const [span, row] of rows.sort((a, b) => a[0] - b[0])) {
    for (let i = 0, base = span * SPAN; i + 1 < row.length && w < wanted.length; i += 2) {
      const id = base + (row[i]! | (row[i + 1]! << 8));
      while (w < wanted.length && wanted[w]! < id) w++;
      if (wanted[w] === id) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
  }
  return counts;
}

/** What BM25 needs of a passage: its length in tokens, and how often it says each word of a query. */
export interface PassageCells {
  size: number;
  counts: number[];
}

/**
 * For the passages of `ids` the rows of migration 0016 cover, what BM25 needs of them (`counts` in the order of
 * `words`): those below the blocks the words' frequencies (or said lists, migration 0023) and the lengths are built
 * for, not marked dirty, and whose cells are exact (a count under 15, a length under 255). Undefined when they cover
 * none: a word rare (or neither dense nor rare, without `said`), nothing built, too many dirty passages. The rest the
 * caller reads. Every passage of `ids` says every word (a said list holds no passage for the words it does not say).
 */
export function windowCells(sqlite: Sqlite, words: string[], ids: number[], said = true): Map<number, PassageCells> | undefined {
  if (ids.length === 0 || words.length === 0) return undefined;
  // Each word's frequencies when dense, else its said list.
  const candidates = [SIZE_TERM, ...words.flatMap((w) => (said ? [freqTerm(w), saidTerm(w)] : [freqTerm(w)]))];
  const builtOf = new Map(
    stmt(sqlite, `SELECT term, built FROM search_bits_terms WHERE built > 0 AND term IN (${candidates.map(() => '?').join(', ')})`)
      .raw()
      .all(...candidates) as [string, number][],
  );
  const terms = [SIZE_TERM, ...words.map((w) => (builtOf.has(freqTerm(w)) ? freqTerm(w) : saidTerm(w)))];
  if (terms.some((t) => !builtOf.has(t))) return undefined;
  const built = Math.min(...terms.map((t) => builtOf.get(t)!));
  const below = built * BLOCK;
  // A block's rows are read for WINDOW_CELLS_MIN of its passages at least: fewer are cheaper read themselves.
  const inBlock = new Map<number, number>();
  for (const id of ids) if (id < below) inBlock.set(Math.floor(id / BLOCK), (inBlock.get(Math.floor(id / BLOCK)) ?? 0) + 1);
  const covered = ids.filter((id) => id < below && inBlock.get(Math.floor(id / BLOCK))! >= WINDOW_CELLS_MIN);
  if (covered.length === 0) return undefined;
  const lowest = Math.min(...covered);
  const dirty = stmt(sqlite, 'SELECT passage_id FROM search_bits_dirty WHERE passage_id >= ? AND passage_id < ? LIMIT ?').pluck().all(lowest, below, MAX_DIRTY + 1) as number[];
  if (dirty.length > MAX_DIRTY) return undefined;
  const aside = new Set(dirty);
  const wanted = [...new Set(covered.map((id) => Math.floor(id / BLOCK)))];
  const [first, last] = [Math.min(...wanted), Math.max(...wanted)];
  // The blocks as one range of the key when they are most of it: a row is 2-4 KB, so each seek of a list descends a
  // deep tree (the smallest leaf folder's 94 blocks of 96: 1.0 ms a term by seeks, 0.2 by the range).
  // A term's count for a passage, 0 when not kept exactly: a said word's from its ids; a dense word's or the length's
  // from its cell (all bits set: more than the cell holds).
  const countsOf = (term: string): ((id: number) => number) => {
    if (isSaid(term)) {
      const counts = saidCounts(sqlite, term, covered);
      return (id) => counts.get(id) ?? 0;
    }
    const width = widthOf(term);
    const rows = new Map(
      (last - first + 1 <= wanted.length * 2
        ? stmt(sqlite, 'SELECT block, bits FROM search_cells WHERE term = ? AND block BETWEEN ? AND ?').raw().all(term, first, last)
        : stmt(sqlite, 'SELECT block, bits FROM search_cells WHERE term = ? AND block IN (SELECT value FROM json_each(?))').raw().all(term, JSON.stringify(wanted))) as [number, Uint8Array][],
    );
    return (id) => {
      const row = rows.get(Math.floor(id / BLOCK));
      const value = row ? cellOf(row, id % BLOCK, width) : 0;
      return value === maxCell(width) ? 0 : value;
    };
  };
  const [sizeOf, ...countOf] = terms.map(countsOf);
  const cells = new Map<number, PassageCells>();
  for (const id of covered) {
    if (aside.has(id)) continue;
    const size = sizeOf!(id);
    const counts = countOf.map((count) => count(id));
    if (size > 0 && counts.every((n) => n > 0)) cells.set(id, { size, counts });
  }
  return cells;
}
