import { describe, expect, it } from 'vitest';
import { openDatabase, type Sqlite } from '../../src/db/open.js';
import { setIndexesAside } from '../../src/db/queries/bulk-index.js';
import { checkIntegrity, repairSearchIndex } from '../../src/db/queries/integrity.js';
import { compileMeetingFilter } from '../../src/db/queries/meetings.js';
import { searchTranscripts } from '../../src/db/queries/search.js';
import { BLOCK, buildSearchBits, freqTerm, listTerm, matchBits, readTermBits, resetSearchBits, saidTerm, searchBitsRound, SIZE_TERM, tagTerm, windowCells, wordTerm, wrongSearchBits, writeTermBits } from '../../src/db/queries/search-bits.js';
import { rankWindow } from '../../src/db/queries/rank.js';
import type { SearchFilter } from '../../src/db/queries/search.js';
import { openTestDb, testDbs } from '../support/db.js';
import { makeMeeting, makeParticipant } from '../support/factories.js';

// The bitmaps of the dense terms (migration 0015): a search's total for common words with broad filters counted from
// them must be FTS5's count, whatever was written, deleted or retagged since they were built, and while they are built.

const db = testDbs();

/** A seeded generator (mulberry32): the same database and steps on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Words with their share of passages: `the` and `and` dense, `plan` dense, `budget` near the line, `zebra` rare. */
const VOCABULARY: [string, number][] = [
  ['the', 0.8],
  ['and', 0.5],
  ['plan', 0.2],
  ['budget', 0.04],
  ['zebra', 0.003],
];
const FOLDERS = ['Legal', 'Legal/Contracts', 'Sales', 'Sales/EMEA', 'Ops'];
const PEOPLE = ['Ann Lee', 'Bo Chen', 'Cy Diaz', 'Di Park'];
const FEW = 'Eve Ng';

function passageText(next: () => number): string {
  const words = VOCABULARY.filter(([, share]) => next() < share).map(([w]) => w);
  return [...words, `filler${Math.floor(next() * 50)}`].join(' ');
}

/**
 * 60 meetings over three months in folders, with participants; `passages` passages spread over them, written in bulk.
 * `names`: that many more participants, `Qx0` ... (a word each), one or two a meeting, drawing nothing from `next`.
 */
function seed(s: Sqlite, passages: number, next = random(7), names = 0): string[] {
  const meetings: string[] = [];
  s.transaction(() => {
    for (let i = 0; i < 60; i++) {
      const day = 1 + Math.floor(next() * 28);
      const month = 1 + Math.floor(next() * 3);
      const m = makeMeeting(s, { folderPath: FOLDERS[i % FOLDERS.length], startedAt: `2026-0${month}-${String(day).padStart(2, '0')}T${String(8 + (i % 10)).padStart(2, '0')}:00:00.000Z` });
      for (const [j, name] of PEOPLE.entries()) if (next() < 0.6 || j === i % PEOPLE.length) makeParticipant(s, m, { name, position: j });
      // The name the filters across words ask for, in a third of the meetings (each passage of theirs is looked up in
      // FTS5 one by one). No draw of `next`: the corpus and the fuzz's steps are those of the same seed without it.
      if (i % 3 === 0) makeParticipant(s, m, { name: FEW, position: PEOPLE.length });
      meetings.push(m);
    }
    // Meetings without passages, so that a tag of one meeting is not dense (1/128 of them): a day held by one of the
    // meetings above is then read from FTS5, in a group with dense days and months.
    for (let i = 0; i < 150; i++) makeMeeting(s, { folderPath: 'Archive', startedAt: `2025-06-01T10:${String(i % 60).padStart(2, '0')}:00.000Z` });
    for (let i = 0; i < names; i++) makeParticipant(s, meetings[(i * 7) % meetings.length]!, { name: `Qx${i}`, position: 10 + i });
    const aside = setIndexesAside(s);
    const insert = s.prepare("INSERT INTO search_passages (meeting_id, kind, ref_id, word_offset, speaker, text, tags) SELECT id, 'note', id, NULL, NULL, ?, search_tags FROM meetings WHERE id = ?");
    for (let i = 0; i < passages; i++) insert.run(passageText(next), meetings[Math.floor(next() * meetings.length)]!);
    aside.restore();
  })();
  return meetings;
}

/** The filters the checks ask, each alone and combined. */
const FILTERS: Omit<SearchFilter, 'query'>[] = [
  { folderPath: 'Legal' },
  { folderPath: 'Sales/EMEA' },
  { participant: 'Ann' },
  { participant: 'lee' },
  { from: '2026-02-01', to: '2026-03-31T23:59:59.999Z' },
  { from: '2026-01-10T12:00:00.000Z', to: '2026-02-20T09:30:00.000Z' },
  { folderPath: 'Sales', participant: 'Bo' },
  { folderPath: 'Legal', from: '2026-01-01', to: '2026-02-15', participant: 'Cy' },
  // Days alone, some held by one meeting (not dense), some by more.
  { from: '2026-02-03', to: '2026-02-12T23:59:59.999Z' },
  // Across words: the few meetings' passages are a group of ids.
  { participant: FEW },
  { participant: FEW.toLowerCase(), from: '2026-01-05T10:00:00.000Z', to: '2026-03-20' },
];
const QUERIES = ['the', 'the and', 'plan the', 'the budget', 'and zebra'];
/**
 * The queries asked with the filters across words: one word (and a page past the window), two dense words with an
 * exact phrase, a word near the dense line. For these filters both calls look up each passage of the few meetings in
 * FTS5, for the words and again for the exact phrase (~0.1-0.3 ms each, the same code in both): `plan the` would take
 * the path of `the and` again, and `and zebra` never takes the bitmaps (`zebra` is not dense), for ~2 s each a call.
 */
const ACROSS_WORDS_QUERIES = ['the', 'the and', 'the budget'];

/** Every query with every filter (across words, those of ACROSS_WORDS_QUERIES): the total with the bitmaps equals FTS5's; how many of them the bitmaps answered. */
function compareTotals(s: Sqlite, filters = FILTERS, queries = QUERIES, options: { exceptions?: boolean } = {}): number {
  let answered = 0;
  for (const query of queries)
    for (const f of filters) {
      if (f.participant?.includes(' ') && !ACROSS_WORDS_QUERIES.includes(query)) continue;
      const filter = { query, ...f };
      // The first page, and one across the end of the ranked window (2,000) into the older matches.
      for (const page of [{ limit: 5, offset: 0 }, ...(query === 'the' ? [{ limit: 6, offset: 1997 }] : [])]) {
        const withBits = searchTranscripts(s, filter, page, options);
        const without = searchTranscripts(s, filter, page, { ...options, bits: false });
        expect({ filter, total: withBits.pagination.total }).toEqual({ filter, total: without.pagination.total });
        expect({ filter, page, hits: withBits.hits.map((h) => [h.meeting_id, h.offset]) }).toEqual({ filter, page, hits: without.hits.map((h) => [h.meeting_id, h.offset]) });
      }
      if (bitsAnswer(s, filter)) answered++;
    }
  return answered;
}

/** Whether the bitmaps can answer a filter of one folder (the tags the test knows). */
function bitsAnswer(s: Sqlite, filter: SearchFilter): boolean {
  if (Object.keys(filter).length !== 2 || !filter.folderPath || !/^[a-z ]+$/.test(filter.query)) return false;
  const tag = (s.prepare("SELECT 'f' || hex(id) AS t FROM folders WHERE path = ?").get(filter.folderPath) as { t: string }).t;
  return matchBits(s, filter.query.split(' '), [{ tags: [tag] }], []) !== undefined;
}

/** A day tag's date (`d20260203` -> `2026-02-03`), and a filter of that whole day. */
const dayDate = (tag: string) => `${tag.slice(1, 5)}-${tag.slice(5, 7)}-${tag.slice(7, 9)}`;
const onDay = (tag: string) => ({ from: dayDate(tag), to: `${dayDate(tag)}T23:59:59.999Z` });

const builtTerms = (s: Sqlite) => s.prepare('SELECT term, built FROM search_bits_terms ORDER BY term').all() as { term: string; built: number }[];

describe('search bitmaps', () => {
  it('are built for the dense words and tags up to the newest block, and answer as FTS5 counts', () => {
    const s = db();
    seed(s, 2 * BLOCK + 1500);
    expect(builtTerms(s)).toEqual([]);
    buildSearchBits(s);
    const terms = builtTerms(s);
    const dense = ['the', 'and', 'plan', 'budget'];
    expect(terms.map((t) => t.term)).toEqual(expect.arrayContaining([...dense.map(wordTerm), ...dense.map(freqTerm), SIZE_TERM]));
    expect(terms.map((t) => t.term)).not.toContain(wordTerm('zebra'));
    expect(terms.map((t) => t.term)).not.toContain(freqTerm('zebra'));
    expect(terms.filter((t) => t.term.startsWith('tags:')).length).toBeGreaterThan(5);
    // The newest block too, which new passages fill.
    expect(new Set(terms.map((t) => t.built))).toEqual(new Set([3]));
    expect(wrongSearchBits(s)).toEqual([]);
    expect(compareTotals(s)).toBeGreaterThan(0);
    // A group of tags that are not dense is read from FTS5 and answered as well.
    const days = s.prepare("SELECT tag, count(*) AS n FROM meeting_tags WHERE tag LIKE 'd2026%' GROUP BY tag ORDER BY n, tag").all() as { tag: string; n: number }[];
    const sparse = days.filter((d) => d.n === 1).map((d) => d.tag);
    expect(sparse.length).toBeGreaterThan(2);
    expect(terms.map((t) => t.term)).not.toContain(tagTerm(sparse[0]!));
    const matched = s.prepare('SELECT rowid FROM search_fts WHERE search_fts MATCH ?').pluck().all(`the AND {tags} : (${sparse.map((t) => `"${t}"`).join(' OR ')})`) as number[];
    const bits = matchBits(s, ['the'], [{ tags: sparse }], []);
    expect(bits?.below).toBe(3 * BLOCK);
    expect(bits?.count).toBe(matched.length);
    // A few old passages changed since (marked dirty, far below the newest): asked of FTS5 one by one, the words by
    // rowid and the filters from their tags, for a folder, a participant word, dates and the few meetings alike.
    s.prepare("UPDATE search_passages SET text = 'the plan and the' WHERE id IN (100, 2500, 6000)").run();
    expect(matchBits(s, ['the'], [], [])?.dirty).toEqual([100, 2500, 6000]);
    compareTotals(s, [FILTERS[0]!, FILTERS[2]!, FILTERS[4]!, ...FILTERS.slice(9)], ['the']);
  }, 240_000);

  it("read a term's blocks as one blob, or row by row when a row is not a block's length", () => {
    const s = db();
    seed(s, BLOCK + 1500);
    buildSearchBits(s);
    const legal = s.prepare("SELECT 'f' || hex(id) FROM folders WHERE path = 'Legal'").pluck().get() as string;
    const query = (): [number, number[]] => {
      const m = matchBits(s, ['the', 'plan'], [{ tags: [legal] }], [])!;
      return [m.count, [...m.bits]];
    };
    const [count, bits] = query();
    expect(count).toBeGreaterThan(100);
    // A byte too many in the first row of `the`: its blocks are read a row each (concatenated, the next block's bits
    // would be read a byte late), the row's first BYTES used as before.
    s.prepare('UPDATE search_bits SET bits = CAST(bits || zeroblob(1) AS BLOB) WHERE term = ? AND block = 0').run(wordTerm('the'));
    expect(query()).toEqual([count, bits]);
  }, 240_000);

  it('count several words without a filter from their bitmaps (and the passages of those not dense), and page them as FTS5 does', () => {
    const s = db();
    seed(s, 2 * BLOCK + 1500);
    buildSearchBits(s);
    // `the and`, `plan the`, `the budget` from the bitmaps; `and zebra` from `and`'s and `zebra`'s passages (not dense).
    compareTotals(s, [{}]);
    // The total is the bitmaps': a bit of `and` turned off by hand, for a passage that says the words, lowers it by one,
    // with a word that is not dense too (`zebra`: its passages from FTS5, as a group of ids).
    for (const query of ['the and', 'and zebra']) {
      const total = () => searchTranscripts(s, { query }, { limit: 1, offset: 0 }).pagination.total;
      const before = total();
      expect(before).toBe(searchTranscripts(s, { query }, { limit: 1, offset: 0 }, { bits: false }).pagination.total);
      const id = s.prepare('SELECT rowid FROM search_fts WHERE search_fts MATCH ? ORDER BY rowid LIMIT 1').pluck().get(query.replace(' ', ' AND ')) as number;
      const block = Math.floor(id / BLOCK);
      const row = s.prepare('SELECT bits FROM search_bits WHERE term = ? AND block = ?').pluck().get(wordTerm('and'), block) as Buffer;
      const bits = Buffer.from(row);
      bits[(id - block * BLOCK) >>> 3]! &= ~(1 << (id & 7));
      s.prepare('UPDATE search_bits SET bits = ? WHERE term = ? AND block = ?').run(bits, wordTerm('and'), block);
      expect(total(), query).toBe(before - 1);
    }
  }, 120_000);

  it('stay exact through appends, deletions, retagging and text changes, the worker rounds interleaved', () => {
    const s = db();
    const next = random(11);
    const meetings = seed(s, 2 * BLOCK + 200, next);
    // The fillers (each in ~2% of the passages, not dense) keep said lists, checked at each step with the rest.
    buildSearchBits(s, { saidWords: 100 });
    expect(builtTerms(s).filter((t) => t.term.startsWith('said:')).length).toBeGreaterThan(40);
    const insert = s.prepare("INSERT INTO search_passages (meeting_id, kind, ref_id, word_offset, speaker, text, tags) SELECT id, 'note', id, NULL, NULL, ?, search_tags FROM meetings WHERE id = ?");
    const highest = () => (s.prepare('SELECT max(id) AS n FROM search_passages').get() as { n: number }).n;
    const steps: string[] = [];
    for (let step = 0; step < 30; step++) {
      const op = Math.floor(next() * 6);
      if (op === 0) {
        // New passages: into the newest block (marked dirty) and above it.
        s.transaction(() => {
          for (let i = 0; i < 800; i++) insert.run(passageText(next), meetings[Math.floor(next() * meetings.length)]!);
        })();
        steps.push('append');
      } else if (op === 1) {
        // Old passages deleted (a transcript re-indexed, a meeting deleted).
        const top = highest();
        s.transaction(() => {
          for (let i = 0; i < 30; i++) s.prepare('DELETE FROM search_passages WHERE id = ?').run(1 + Math.floor(next() * top));
        })();
        steps.push('delete');
      } else if (op === 2) {
        // A meeting moved to another folder: its passages' tags change (migration 0010's triggers).
        const m = meetings[Math.floor(next() * meetings.length)]!;
        const folder = s.prepare('SELECT id FROM folders WHERE path = ?').get(FOLDERS[Math.floor(next() * FOLDERS.length)]) as { id: string };
        s.prepare('UPDATE meetings SET folder_id = ? WHERE id = ?').run(folder.id, m);
        steps.push('move');
      } else if (op === 3) {
        // Every other change says its filler twice (a said list holds the passage twice).
        const text = passageText(next);
        s.prepare('UPDATE search_passages SET text = ? WHERE id = ?').run(step % 2 ? text : `${text} ${text.split(' ').at(-1)}`, 1 + Math.floor(next() * highest()));
        steps.push('text');
      } else if (op === 4) {
        // The newest passages deleted: their ids are given again to the next ones, inside a built block.
        s.prepare('DELETE FROM search_passages WHERE id > ?').run(highest() - 50);
        steps.push('delete newest');
      } else {
        for (let i = 0; i < 3; i++) searchBitsRound(s, { budgetMs: 0, saidWords: 100 });
        steps.push('rounds');
      }
      expect({ steps, wrong: wrongSearchBits(s) }).toEqual({ steps, wrong: [] });
      // Across words for one query only (the few meetings' passages, a third of all, are looked up one by one).
      if (step % 10 === 9) {
        compareTotals(s, FILTERS.slice(0, 9), ['the', 'plan the', 'the filler7']);
        compareTotals(s, FILTERS.slice(9), ['the']);
      }
    }
    buildSearchBits(s, { saidWords: 100 });
    // Every dirty passage set again, but those of blocks some term is not built over yet (after the newest passages
    // were deleted, the blocks holding passages can be fewer than the reserved ones).
    expect(s.prepare('SELECT count(*) AS n FROM search_bits_dirty WHERE passage_id < (SELECT min(built) FROM search_bits_terms) * ?').get(BLOCK)).toEqual({ n: 0 });
    // The newest block is built too: no passage left dirty (only ids of passages deleted above the built blocks).
    expect(s.prepare('SELECT count(*) AS n FROM search_bits_dirty d JOIN search_passages p ON p.id = d.passage_id').get()).toEqual({ n: 0 });
    expect(wrongSearchBits(s)).toEqual([]);
    expect(compareTotals(s)).toBeGreaterThan(0);
  }, 240_000);

  it('keep lists of the tags that are not dense, exact through a retag while they are built and read only once built', () => {
    const s = db();
    // Two blocks: a round builds the lists over both (LIST_BLOCKS).
    seed(s, BLOCK + 300);
    buildSearchBits(s);
    // The days held by one meeting (of those with passages) have lists, not bits.
    const single = s.prepare("SELECT tag, min(meeting_id) AS meeting FROM meeting_tags WHERE tag GLOB 'd2026*' GROUP BY tag HAVING count(*) = 1 ORDER BY tag").all() as { tag: string; meeting: string }[];
    expect(single.length).toBeGreaterThan(3);
    const [a, b, c] = single;
    const terms = builtTerms(s);
    for (const { tag } of single) expect(terms).toContainEqual({ term: listTerm(tag), built: 2 });
    expect(terms.map((t) => t.term)).not.toContain(tagTerm(a!.tag));
    const dayFilters = [a!, b!, c!].map(({ tag }) => onDay(tag));
    expect(s.prepare('SELECT count(*) FROM search_passages WHERE meeting_id = ?').pluck().get(a!.meeting)).toBeGreaterThan(0);
    compareTotals(s, dayFilters, ['the']);
    expect(wrongSearchBits(s)).toEqual([]);
    // Until built, the lists are not read (FTS5 answers for their tags), as when a tag's list is new.
    s.exec("DELETE FROM search_lists; UPDATE search_bits_terms SET built = 0 WHERE term GLOB 'list:*'");
    compareTotals(s, dayFilters, ['the']);
    buildSearchBits(s);

    // The meeting of day a moved to day b: its passages marked, with the tags they had (day a's list holds them).
    const moveTo = (tag: string) => s.prepare('UPDATE meetings SET started_at = ? WHERE id = ?').run(`${dayDate(tag)}T09:00:00.000Z`, a!.meeting);
    moveTo(b!.tag);
    expect(s.prepare('SELECT count(*) FROM search_bits_dirty WHERE tags GLOB ?').pluck().get(`*${a!.tag}*`)).toBeGreaterThan(0);
    compareTotals(s, dayFilters, ['the']);
    // The lists made again from nothing while they are marked, a word's bits too, so that no round cleans the marked
    // passages yet.
    s.exec("DELETE FROM search_lists; UPDATE search_bits_terms SET built = 0 WHERE term GLOB 'list:*' OR term = 'text:and'");
    searchBitsRound(s, { budgetMs: 0 });
    expect(builtTerms(s)).toContainEqual({ term: listTerm(b!.tag), built: 2 });
    expect(builtTerms(s)).toContainEqual({ term: 'text:and', built: 0 });
    // Built while the passages were marked: day b's list left them out. The meeting moves on to day c before the clean-up.
    moveTo(c!.tag);
    expect(wrongSearchBits(s)).toEqual([]);
    compareTotals(s, dayFilters, ['the']);
    buildSearchBits(s);
    expect(s.prepare('SELECT count(*) FROM search_bits_dirty').pluck().get()).toBe(0);
    expect(wrongSearchBits(s)).toEqual([]);
    compareTotals(s, dayFilters, ['the']);
    // Day c's list holds them now, day a's and b's do not.
    const listedOn = (tag: string) => (s.prepare('SELECT count(*) FROM search_lists WHERE term = ?').pluck().get(listTerm(tag)) as number) > 0;
    expect([listedOn(a!.tag), listedOn(b!.tag), listedOn(c!.tag)]).toEqual([false, true, true]);
  }, 240_000);

  it('read lists past the first span of 65,536 passages, each id in its own span', () => {
    const s = db();
    const next = random(11);
    const meetings = seed(s, 1600, next);
    // The passages after these numbered from just below the second span (a passage's id is the highest + 1).
    const insert = s.prepare("INSERT INTO search_passages (id, meeting_id, kind, ref_id, text, tags) SELECT ?, id, 'note', id, ?, search_tags FROM meetings WHERE id = ?");
    const pick = () => meetings[Math.floor(next() * meetings.length)]!;
    s.transaction(() => {
      insert.run(65_536 - 300, passageText(next), pick());
      for (let i = 0; i < 1600; i++) insert.run(null, passageText(next), pick());
    })();
    buildSearchBits(s);
    // The days held by one meeting have lists, with rows in both spans.
    const single = s.prepare("SELECT tag FROM meeting_tags WHERE tag GLOB 'd2026*' GROUP BY tag HAVING count(*) = 1 ORDER BY tag").pluck().all() as string[];
    const spans = s.prepare('SELECT count(DISTINCT span) FROM search_lists WHERE term IN (SELECT value FROM json_each(?))').pluck().get(JSON.stringify(single.map(listTerm)));
    expect(spans).toBe(2);
    expect(wrongSearchBits(s)).toEqual([]);
    compareTotals(s, [...FILTERS, ...single.slice(0, 6).map(onDay)], ['the', 'the and']);
  }, 240_000);

  it('keep said lists of the words neither dense nor rare: the bitmaps read their passages, BM25 their counts', () => {
    const s = db();
    seed(s, 2 * BLOCK + 1500);
    // Some passages say `filler7` two, three or four times (before any bits: nothing is marked).
    s.exec("UPDATE search_passages SET text = text || ' filler7' WHERE text GLOB '*filler7' AND id % 3 = 0; UPDATE search_passages SET text = text || ' filler7 x filler7' WHERE text GLOB '*filler7' AND id % 5 = 0");
    buildSearchBits(s, { saidWords: 100 });
    const terms = builtTerms(s).map((t) => t.term);
    // Each filler is in ~2% of the passages (under the dense line, 1/32), `zebra` in 0.3% (under 100 passages).
    expect(terms).toContain(saidTerm('filler7'));
    expect(terms).not.toContain(wordTerm('filler7'));
    expect(terms).not.toContain(saidTerm('zebra'));
    expect(terms).not.toContain(saidTerm('the'));
    expect(wrongSearchBits(s)).toEqual([]);
    compareTotals(s, [{}, FILTERS[0]!, FILTERS[2]!, FILTERS[4]!], ['the filler7', 'filler7 and the', 'and zebra', 'filler7']);

    const query = ['the', 'filler7'];
    const saying = s.prepare("SELECT rowid FROM search_fts WHERE search_fts MATCH 'the AND filler7' ORDER BY rowid DESC").pluck().all() as number[];
    const counts = (id: number) => (s.prepare('SELECT text FROM search_passages WHERE id = ?').pluck().get(id) as string).split(' ').filter((w) => w === 'filler7').length;
    const once = saying.find((id) => counts(id) === 1)!;
    // The bitmaps' count: `the`'s bits and `filler7`'s passages from its list. An id taken out of the list lowers it.
    expect(matchBits(s, query, [], [])?.count).toBe(saying.length);
    const said = (span: number) => s.prepare('SELECT ids FROM search_said WHERE term = ? AND span = ?').pluck().get(saidTerm('filler7'), span) as Buffer;
    const put = (ids: Buffer) => s.prepare('UPDATE search_said SET ids = ? WHERE term = ? AND span = 0').run(ids, saidTerm('filler7'));
    const whole = Buffer.from(said(0));
    const without = (id: number) => {
      const at = whole.indexOf(Buffer.from([id & 0xff, id >>> 8]));
      expect(at % 2).toBe(0);
      return Buffer.concat([whole.subarray(0, at), whole.subarray(at + 2)]);
    };
    put(without(once));
    expect(matchBits(s, query, [], [])?.count).toBe(saying.length - 1);
    // Alone with a filter, the word's list stands for the dense words' bits.
    const legal = s.prepare("SELECT 'f' || hex(id) FROM folders WHERE path = 'Legal'").pluck().get() as string;
    const inLegal = s.prepare('SELECT rowid FROM search_fts WHERE search_fts MATCH ?').pluck().all(`filler7 AND {tags} : "${legal}"`) as number[];
    put(without(inLegal.find((id) => counts(id) === 1)!));
    expect(matchBits(s, ['filler7'], [{ tags: [legal] }], [])?.count).toBe(inLegal.length - 1);
    expect(matchBits(s, ['filler7'], [], [])).toBeUndefined();
    put(whole);
    expect(matchBits(s, ['filler7'], [{ tags: [legal] }], [])?.count).toBe(inLegal.length);

    // BM25 from the cells of `the`, the lengths and `filler7`'s list: every score bm25()'s.
    const cells = windowCells(s, query, saying)!;
    expect(cells.size).toBe(saying.length);
    expect(new Set(saying.map(counts))).toEqual(new Set([1, 2, 3, 4]));
    for (const id of saying) expect(cells.get(id)!.counts[1]).toBe(counts(id));
    const scores = new Map(
      (s.prepare("SELECT rowid AS id, bm25(search_fts, 1.0, 0.0) AS score FROM search_fts WHERE search_fts MATCH 'the filler7'").all() as { id: number; score: number }[]).map((r) => [r.id, r.score]),
    );
    const ranked = rankWindow(s, saying, query, cells)!;
    expect(ranked.map((r) => [r.id, r.score])).toEqual(saying.map((id) => [id, scores.get(id)]));
    // Not allowed the lists, the window is read (no cells: `filler7` has no counts kept).
    expect(windowCells(s, query, saying, false)).toBeUndefined();
    // An id said once more in the list: its count, and so its score, follows.
    const pair = Buffer.from([once & 0xff, once >>> 8]);
    const from = whole.indexOf(pair);
    put(Buffer.concat([whole.subarray(0, from), pair, whole.subarray(from)]));
    expect(windowCells(s, query, saying)!.get(once)!.counts[1]).toBe(2);
    // (Said twice, it scores higher: bm25() is negated, lower is better.)
    expect(rankWindow(s, saying, query, windowCells(s, query, saying))!.find((r) => r.id === once)!.score).toBeLessThan(scores.get(once)!);
    expect(wrongSearchBits(s)).toEqual([saidTerm('filler7')]);
    put(whole);

    // Texts changed since: marked passages are left out of the cells, then set again by the clean-up (out of every row
    // of their span, into the rows of the words they say now); a meeting moved (its passages marked with old tags).
    s.prepare("UPDATE search_passages SET text = 'the filler7 filler7 filler9' WHERE id = ?").run(saying[1]);
    s.prepare("UPDATE search_passages SET text = 'the plan' WHERE id = ?").run(saying[2]);
    expect([...windowCells(s, query, saying)!.keys()]).not.toContain(saying[1]);
    s.prepare('UPDATE meetings SET folder_id = (SELECT id FROM folders WHERE path = ?) WHERE id = (SELECT meeting_id FROM search_passages WHERE id = ?)').run('Ops', saying[3]);
    compareTotals(s, [{}, FILTERS[0]!], ['the filler7']);
    buildSearchBits(s, { saidWords: 100 });
    expect(s.prepare('SELECT count(*) FROM search_bits_dirty').pluck().get()).toBe(0);
    expect(wrongSearchBits(s)).toEqual([]);
    expect(windowCells(s, query, [saying[1]!, ...saying.slice(3)])!.get(saying[1]!)!.counts[1]).toBe(2);
    compareTotals(s, [{}, FILTERS[0]!], ['the filler7', 'filler9 the']);

    // A new passage (marked, as new: no list holds it) is left out of a build of the lists: the clean-up reads no row
    // of its span but those of the words it says when cleaned. Built again while it is marked, a word's bits too (so
    // that no round cleans it yet), then its text changed.
    s.prepare("INSERT INTO search_passages (meeting_id, kind, ref_id, word_offset, speaker, text, tags) SELECT meeting_id, 'note', ref_id, NULL, NULL, 'the filler7', tags FROM search_passages WHERE id = ?").run(saying[0]);
    const added = s.prepare('SELECT max(id) FROM search_passages').pluck().get() as number;
    expect(s.prepare('SELECT tags FROM search_bits_dirty WHERE passage_id = ?').pluck().get(added)).toBe('');
    s.exec("DELETE FROM search_said; UPDATE search_bits_terms SET built = 0 WHERE term GLOB 'said:*' OR term = 'text:and'");
    searchBitsRound(s, { budgetMs: 0 });
    expect(builtTerms(s)).toContainEqual({ term: saidTerm('filler7'), built: 3 });
    expect(builtTerms(s)).toContainEqual({ term: 'text:and', built: 0 });
    s.prepare("UPDATE search_passages SET text = 'the plan' WHERE id = ?").run(added);
    buildSearchBits(s, { saidWords: 100 });
    expect(s.prepare('SELECT count(*) FROM search_bits_dirty').pluck().get()).toBe(0);
    expect(wrongSearchBits(s)).toEqual([]);

    // A meeting moved: its passages marked for their tags alone (`said` 0). The said rows are left as they are.
    const saidRows = () => s.prepare('SELECT term, span, hex(ids) AS ids FROM search_said ORDER BY term, span').all();
    const rowsBefore = saidRows();
    const meeting = s.prepare('SELECT meeting_id FROM search_passages WHERE id = ?').pluck().get(saying[5]) as string;
    const move = (path: string) => s.prepare('UPDATE meetings SET folder_id = (SELECT id FROM folders WHERE path = ?) WHERE id = ?').run(path, meeting);
    const [elsewhere, andBack] = FOLDERS.filter((path) => path !== s.prepare('SELECT f.path FROM meetings m JOIN folders f ON f.id = m.folder_id WHERE m.id = ?').pluck().get(meeting));
    move(elsewhere!);
    const marks = () => s.prepare('SELECT said, count(*) AS n FROM search_bits_dirty GROUP BY said ORDER BY said').all();
    expect(marks()).toEqual([{ said: 0, n: s.prepare('SELECT count(*) FROM search_passages WHERE meeting_id = ?').pluck().get(meeting) }]);
    buildSearchBits(s, { saidWords: 100 });
    expect(saidRows()).toEqual(rowsBefore);
    expect(wrongSearchBits(s)).toEqual([]);
    // Moved again and the lists made again while its passages are marked so (and a word's bits, so that no round cleans
    // them yet): the builds keep them, as their text says. Then one of them says other words: marked `said` again.
    move(andBack!);
    s.exec("DELETE FROM search_said; UPDATE search_bits_terms SET built = 0 WHERE term GLOB 'said:*' OR term = 'text:and'");
    searchBitsRound(s, { budgetMs: 0 });
    expect(builtTerms(s)).toContainEqual({ term: 'text:and', built: 0 });
    s.prepare("UPDATE search_passages SET text = 'the filler9' WHERE id = ?").run(saying[5]);
    expect(s.prepare('SELECT said FROM search_bits_dirty WHERE passage_id = ?').pluck().get(saying[5])).toBe(1);
    // Another is deleted: marked `said` too, its text kept for the clean-up.
    const gone = s.prepare('SELECT id FROM search_passages WHERE meeting_id = ? AND id <> ? ORDER BY id LIMIT 1').pluck().get(meeting, saying[5]) as number;
    const goneText = s.prepare('SELECT text FROM search_passages WHERE id = ?').pluck().get(gone);
    s.prepare('DELETE FROM search_passages WHERE id = ?').run(gone);
    expect(s.prepare('SELECT said, text FROM search_bits_dirty WHERE passage_id = ?').get(gone)).toEqual({ said: 1, text: goneText });
    buildSearchBits(s, { saidWords: 100 });
    expect(s.prepare('SELECT count(*) FROM search_bits_dirty').pluck().get()).toBe(0);
    expect(wrongSearchBits(s)).toEqual([]);
  }, 240_000);

  it('answer for a participant fragment in more names than a filter lists, from the names\' lists', () => {
    const s = db();
    // 600 names holding `qx`, each its own word: past the words (32) and the names (500) a filter lists.
    const meetings = seed(s, BLOCK + 300, random(7), 600);
    buildSearchBits(s);
    // (The 150 meetings without participants and those with none of the names are few enough to be left out instead,
    // test/db/participant-exceptions.test.ts: matched on the names here, as when they are many.)
    const names = { exceptions: false };
    expect(compileMeetingFilter(s, { participant: 'qx' }, names).parts[0]!.manyTags?.()).toHaveLength(600);
    // `qx1` is in 111 of them: a filter of their tags, as before.
    expect(compileMeetingFilter(s, { participant: 'qx1' }).parts[0]!.tags).toHaveLength(111);
    // A range from noon of a day with a morning meeting (its passages are on the range's first day, yet outside it).
    const morning = s.prepare("SELECT substr(started_at, 1, 10) FROM meetings WHERE started_at GLOB '2026-*' AND substr(started_at, 12, 2) < '12' ORDER BY started_at LIMIT 1").pluck().get() as string;
    const filters = [
      { participant: 'qx' },
      { participant: 'QX', folderPath: 'Legal' },
      { participant: 'qx', from: `${morning}T12:00:00.000Z`, to: '2026-03-20T09:30:00.000Z' },
      { participant: 'qx1' },
    ];
    // (Each call without the bitmaps looks up every passage of the fragment's meetings in FTS5: few queries.)
    compareTotals(s, filters, ['the'], names);
    compareTotals(s, filters.slice(0, 1), ['the and'], names);
    // Passages changed since (asked one by one, or walked above the bitmaps), and a meeting no name of the fragment is
    // in any more.
    s.prepare("UPDATE search_passages SET text = 'the plan and the' WHERE id IN (100, 2500, 6000)").run();
    s.prepare("DELETE FROM participants WHERE name GLOB 'Qx*' AND meeting_id = ?").run(meetings[0]);
    compareTotals(s, filters, ['the'], names);
    buildSearchBits(s);
    expect(wrongSearchBits(s)).toEqual([]);
    compareTotals(s, filters, ['the'], names);
    // And as the few meetings the fragment fails.
    compareTotals(s, filters, ['the']);
  }, 240_000);

  it('leave aside what another connection writes between a build reading the index and writing the bits', () => {
    const db1 = openTestDb();
    const db2 = openDatabase(`${db1.dir}/syntheo.db`, { create: false });
    try {
      const [a, b] = [db1.sqlite, db2.sqlite];
      const meetings = seed(a, 2 * BLOCK + 100);
      // Terms found and the blocks reserved by a round, then one term read ...
      searchBitsRound(a, { budgetMs: 0 });
      const term = wordTerm('the');
      const built = (a.prepare('SELECT built FROM search_bits_terms WHERE term = ?').get(term) as { built: number }).built;
      if (built !== 0) throw new Error('the round built `the` first; pick a term it left');
      const read = readTermBits(a, term, 0, 2);
      // ... while the other connection deletes, rewrites and retags passages the read saw.
      b.prepare('DELETE FROM search_passages WHERE id IN (10, 20, 30)').run();
      b.prepare("UPDATE search_passages SET text = 'nothing here' WHERE id BETWEEN 100 AND 140").run();
      b.prepare("UPDATE search_passages SET text = 'the new text' WHERE id BETWEEN 200 AND 240 AND text NOT LIKE '%the%'").run();
      b.prepare('UPDATE meetings SET folder_id = (SELECT id FROM folders WHERE path = ?) WHERE id = ?').run('Ops', meetings[0]);
      expect(writeTermBits(a, term, 0, 2, read)).toBe(true);
      expect(wrongSearchBits(a)).toEqual([]);
      buildSearchBits(a);
      expect(wrongSearchBits(a)).toEqual([]);
      expect(compareTotals(a)).toBeGreaterThan(0);
      // A second write of the same read (another worker's) is refused: the term is built past it.
      expect(writeTermBits(a, term, 0, 2, read)).toBe(false);
      // A read from before a reset (a repair writes the passages again under other ids) is refused too, even once the
      // terms are found and the blocks reserved again.
      const before = readTermBits(a, term, 0, 2);
      a.transaction(() => resetSearchBits(a)).immediate();
      searchBitsRound(a, { budgetMs: 0 });
      expect((a.prepare('SELECT built FROM search_bits_terms WHERE term = ?').get(term) as { built: number }).built).toBe(0);
      expect(writeTermBits(a, term, 0, 2, before)).toBe(false);
      expect(writeTermBits(a, term, 0, 2, readTermBits(a, term, 0, 2))).toBe(true);
    } finally {
      db2.close();
      db1.cleanup();
    }
  }, 240_000);

  it('are checked by doctor and emptied by the repair', () => {
    const s = db();
    seed(s, BLOCK + 500);
    buildSearchBits(s, { saidWords: 50 });
    expect(s.prepare('SELECT count(*) FROM search_said').pluck().get()).toBeGreaterThan(0);
    expect(checkIntegrity(s, { full: false }).search).toEqual([]);
    // A bit cleared that FTS5 says is set.
    const row = s.prepare('SELECT block, bits FROM search_bits WHERE term = ? LIMIT 1').get(wordTerm('the')) as { block: number; bits: Buffer };
    const bits = Buffer.from(row.bits);
    const at = bits.findIndex((b) => b !== 0);
    bits[at] = 0;
    s.prepare('UPDATE search_bits SET bits = ? WHERE term = ? AND block = ?').run(bits, wordTerm('the'), row.block);
    expect(wrongSearchBits(s)).toEqual([wordTerm('the')]);
    expect(checkIntegrity(s, { full: false }).search).toEqual(['search_bits']);
    // A count of `the` one off in a passage, and a length.
    for (const term of [freqTerm('the'), SIZE_TERM]) {
      const cells = s.prepare('SELECT block, bits FROM search_cells WHERE term = ? LIMIT 1').get(term) as { block: number; bits: Buffer };
      const changed = Buffer.from(cells.bits);
      const cell = changed.findIndex((b) => b !== 0);
      changed[cell] = changed[cell]! + 1;
      s.prepare('UPDATE search_cells SET bits = ? WHERE term = ? AND block = ?').run(changed, term, cells.block);
    }
    // A list missing a passage of its tag.
    const list = s.prepare("SELECT term, span, ids FROM search_lists WHERE length(ids) >= 4 ORDER BY term LIMIT 1").get() as { term: string; span: number; ids: Buffer };
    s.prepare('UPDATE search_lists SET ids = ? WHERE term = ? AND span = ?').run(list.ids.subarray(2), list.term, list.span);
    expect(wrongSearchBits(s)).toEqual([freqTerm('the'), list.term, SIZE_TERM, wordTerm('the')].sort());
    // The passages are written again (from the notes, summaries and transcripts: this test's bulk passages are none of them).
    repairSearchIndex(s);
    expect(builtTerms(s)).toEqual([]);
    expect(s.prepare('SELECT (SELECT count(*) FROM search_bits) + (SELECT count(*) FROM search_cells) + (SELECT count(*) FROM search_lists) + (SELECT count(*) FROM search_said) AS n').get()).toEqual({ n: 0 });
    expect(checkIntegrity(s, { full: false }).search).toEqual([]);
  });
});
