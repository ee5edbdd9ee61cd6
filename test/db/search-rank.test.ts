import { describe, expect, it } from 'vitest';
import { RANK_WINDOW, searchTranscripts, type SearchFilter, type SearchHit } from '../../src/db/queries/search.js';
import { phraseFirst, rankWindow, type RankedRow } from '../../src/db/queries/rank.js';
import { setIndexesAside } from '../../src/db/queries/bulk-index.js';
import { BLOCK, buildSearchBits, windowCells, wrongSearchBits } from '../../src/db/queries/search-bits.js';
import type { Sqlite } from '../../src/db/open.js';
import { testDbs } from '../support/db.js';
import { makeMeeting, makeParticipant, makeSummary, makeTranscript } from '../support/factories.js';

// search_transcripts ranks its window with BM25 computed in JavaScript (src/db/queries/rank.ts) instead of
// FTS5's bm25(), whose IDF counts cost a walk of every phrase's matches. Here: the scores are bm25()'s to the
// bit, and every answer is the one bm25() gives, on a seeded corpus with common and rare words, words that
// look like tags, long passages (their length record takes more than one byte a column), and filters.

const db = testDbs();

function rng(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

const VOCAB = ['the', 'budget', 'review', 'a', 'we', 'Pricing', 'launch', 'dx', 'p12', 'y2026', 'ok', '42', 'q3', 'roadmap', 'THE', 'The', 'team'];

/**
 * `meetings` meetings with transcripts, written as the bulk writers do (one transaction, the full-text indexes built
 * once at the end): what these tests check is read from them, not how they were written.
 */
function corpus(s: Sqlite, seed: number, meetings: number): string[] {
  return s.transaction(() => {
    const aside = setIndexesAside(s);
    const ids = corpusRows(s, seed, meetings);
    aside.restore();
    return ids;
  })();
}

function corpusRows(s: Sqlite, seed: number, meetings: number): string[] {
  const random = rng(seed);
  const word = () => {
    const r = random();
    // Zipf-like: the first words are common.
    return VOCAB[Math.floor(VOCAB.length * r * r * r)]! + (random() < 0.05 ? ['.', ',', '?', "'s", '-x'][Math.floor(random() * 5)] : '');
  };
  const ids: string[] = [];
  for (let m = 0; m < meetings; m++) {
    const day = String(1 + (m % 28)).padStart(2, '0');
    const id = makeMeeting(s, { title: `Meeting ${m}`, folderPath: ['Acme/Launch', 'Acme', 'Other'][m % 3], startedAt: `2026-0${1 + (m % 9)}-${day}T10:00:00.000Z` });
    // `Sam Berg` in a quarter of the meetings: with a fragment across words, each passage of theirs is looked up in
    // FTS5 for the exact phrase (~0.3 ms each).
    makeParticipant(s, id, { name: m % 4 === 0 ? 'Yuki Tanaka' : m % 4 === 1 ? `Sam Berg ${m % 7}` : `Sam Ode ${m % 7}` });
    const n = 20 + Math.floor(random() * 200);
    makeTranscript(s, id, { texts: Array.from({ length: n }, word), speakers: ['A', 'B', null], turn: 1 + Math.floor(random() * 70) });
    // Notes and summaries are passages too, some longer than 127 tokens.
    if (m % 5 === 0) makeSummary(s, id, { content: Array.from({ length: 100 + Math.floor(random() * 300) }, word).join(' ') });
    ids.push(id);
  }
  return ids;
}

function bm25Window(s: Sqlite, match: string): { id: number; score: number }[] {
  return s.prepare(`SELECT rowid AS id, bm25(search_fts, 1.0, 0.0) AS score FROM search_fts WHERE search_fts MATCH ? ORDER BY rowid DESC LIMIT ?`).all(match, RANK_WINDOW) as { id: number; score: number }[];
}

describe('BM25 of the ranked window', () => {
  it('is bm25() to the bit, for one word and for several, repeated words and tag-like words included', () => {
    const s = db();
    corpus(s, 7, 120);
    const longer = s.prepare("SELECT count(*) AS n FROM search_fts_docsize WHERE length(sz) > 2").get() as { n: number };
    expect(longer.n).toBeGreaterThan(0);
    const queries: [terms: string[], column: boolean][] = [
      [['the'], false],
      [['budget'], false],
      [['roadmap'], false],
      [['42'], false],
      [['the', 'budget'], false],
      [['the', 'the'], false],
      [['budget', 'review', 'budget'], false],
      [['we', 'a', 'team'], false],
      [['dx'], true],
      [['p12', 'the'], true],
      [['y2026'], true],
    ];
    let compared = 0;
    for (const [terms, column] of queries) {
      const match = `${column ? '{text} : ' : ''}(${terms.map((t) => `"${t}"`).join(' ')})`;
      const expected = bm25Window(s, match);
      expect(expected.length).toBeGreaterThan(0);
      const got = rankWindow(
        s,
        expected.map((r) => r.id),
        terms,
      );
      expect(got, match).toBeDefined();
      const scores = new Map(got!.map((r) => [r.id, r.score]));
      for (const r of expected) {
        expect(scores.get(r.id), `${match} row ${r.id}`).toBe(r.score);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(2000);
  });

  it('is bm25() to the bit from the counts and lengths kept for the dense words (migration 0016), and pages as bm25() would', () => {
    const s = db();
    corpus(s, 5, 900);
    const passages = (s.prepare('SELECT count(*) AS n FROM search_passages').get() as { n: number }).n;
    expect(passages).toBeGreaterThan(BLOCK + RANK_WINDOW);
    buildSearchBits(s);
    // A passage of the newest block rewritten since: marked dirty, it is read.
    const rewritten = (s.prepare("SELECT max(rowid) AS id FROM search_fts WHERE search_fts MATCH 'the'").get() as { id: number }).id - 3;
    s.prepare("UPDATE search_passages SET text = 'the the plan and the team' WHERE id = ?").run(rewritten);
    let fromCells = 0;
    for (const terms of [['the'], ['the', 'the'], ['we', 'a', 'team'], ['the', 'budget'], ['a']]) {
      const match = `(${terms.map((t) => `"${t}"`).join(' ')})`;
      const expected = bm25Window(s, match);
      const ids = expected.map((r) => r.id);
      const cells = windowCells(s, [...new Set(terms)], ids);
      expect(cells, match).toBeDefined();
      expect(cells!.has(rewritten)).toBe(false);
      fromCells += cells!.size;
      const scores = new Map(rankWindow(s, ids, terms, cells)!.map((r) => [r.id, r.score]));
      for (const r of expected) expect(scores.get(r.id), `${match} row ${r.id}`).toBe(r.score);
    }
    // Most rows from the cells: long summaries (255 tokens or more, or a word 15 times or more) are read.
    expect(fromCells).toBeGreaterThan(5000);
    // Passages rewritten, one beyond ASCII (counted by FTS5's own tokenizer), set again by the worker's rounds.
    s.prepare("UPDATE search_passages SET text = 'Thé the THE café the' WHERE id = ?").run(rewritten - 1);
    buildSearchBits(s);
    expect(wrongSearchBits(s)).toEqual([]);
    const ids = bm25Window(s, '("the")').map((r) => r.id);
    const cells = windowCells(s, ['the'], ids)!;
    expect(cells.get(rewritten)).toEqual({ size: expect.any(Number), counts: [3] });
    expect(cells.get(rewritten - 1)).toEqual({ size: expect.any(Number), counts: [4] });
    for (const filter of [{ query: 'the' }, { query: 'the the' }, { query: 'we a', folderPath: 'Acme' }, { query: 'the', participant: 'Yuki' }] as SearchFilter[])
      for (const offset of [0, 990, RANK_WINDOW - 5]) {
        const page = { offset, limit: 10 };
        expect(searchTranscripts(s, filter, page), `${JSON.stringify(filter)} at ${offset}`).toEqual(searchTranscripts(s, filter, page, { rank: 'fts5' }));
      }
  }, 120_000);

  it('leaves to bm25() what it cannot count exactly: words or passages beyond ASCII', () => {
    const s = db();
    const id = makeMeeting(s);
    makeTranscript(s, id, { texts: 'the café opens and the budget thé'.split(' '), speakers: ['A'] });
    const ids = bm25Window(s, '("the")').map((r) => r.id);
    expect(rankWindow(s, ids, ['the'])).toBeUndefined();
    expect(rankWindow(s, ids, ['café'])).toBeUndefined();
    // Punctuation and symbols beyond ASCII separate words for FTS5 as here: counted.
    const other = makeMeeting(s);
    makeTranscript(s, other, { texts: 'the “forecast” — the plan… ✓ the'.split(' '), speakers: ['B'] });
    const mine = bm25Window(s, '("forecast")');
    expect(mine).toHaveLength(1);
    expect(rankWindow(s, [mine[0]!.id], ['forecast'])).toEqual([{ id: mine[0]!.id, score: mine[0]!.score }]);
  });

  it('gives every page of search_transcripts exactly as bm25() would, with filters and past the window', () => {
    const s = db();
    corpus(s, 11, 260);
    const total = (s.prepare('SELECT count(*) AS n FROM search_passages').get() as { n: number }).n;
    expect(total).toBeGreaterThan(RANK_WINDOW);
    const filters: SearchFilter[] = [
      { query: 'the' },
      { query: 'The budget' },
      { query: 'budget review' },
      { query: 'roadmap' },
      { query: 'the', folderPath: 'Acme' },
      { query: 'the', folderPath: 'Acme/Launch', from: '2026-03-01', to: '2026-06-15T12:00:00Z' },
      { query: 'the team', participant: 'Yuki' },
      // A fragment across words: the meetings' passages are read (few meetings).
      { query: 'the', participant: 'Sam Berg 3' },
      { query: 'budget the', participant: 'Sam Berg' },
      { query: 'dx' },
      { query: 'launch 42' },
    ];
    for (const filter of filters)
      for (const offset of [0, 10, 990, RANK_WINDOW - 5, RANK_WINDOW + 40]) {
        const page = { offset, limit: 10 };
        const expected = searchTranscripts(s, filter, page, { rank: 'fts5' });
        expect(searchTranscripts(s, filter, page, { rank: 'computed' }), `${JSON.stringify(filter)} at ${offset}`).toEqual(expected);
        expect(searchTranscripts(s, filter, page), `${JSON.stringify(filter)} at ${offset}`).toEqual(expected);
        // The pages past the last match are one empty page (the window holds every match, no older ones are read).
        if (offset >= expected.pagination.total) break;
      }
  });
});

describe('the phrase looked for in the texts of a window holding every match (phraseFirst)', () => {
  it('gives the first rows holding the phrase in rank order, read past the best ranked while cheaper than the walk', () => {
    const s = db();
    corpus(s, 31, 420);
    const ids = s.prepare('SELECT id FROM search_passages ORDER BY id').pluck().all() as number[];
    expect(ids.length).toBeGreaterThan(900);
    const random = rng(7);
    // Scores in few values (ties broken by id, newest first), as BM25's over a window.
    const byScore = (a: RankedRow, b: RankedRow) => a.score - b.score || b.id - a.id;
    let answered = 0;
    let pastTheBest = 0;
    for (const share of [0, 0.004, 0.03, 0.08, 0.2, 0.6])
      for (const size of [300, 600, 900])
        for (const wanted of [1, 10, 30]) {
          const window = ids.slice(0, size);
          // The phrase `zebra the` at the start of a share of the window's texts; `zebra, the` (the same tokens: a
          // phrase too) and `the zebra` or `zebra zebras the` (not) in others.
          s.prepare("UPDATE search_passages SET text = substr(text, instr(text, '|') + 1) WHERE text LIKE '%|%'").run();
          for (const id of window) {
            const r = random();
            const lead = r < share ? (r < share / 4 ? 'zebra, the' : 'zebra the') : r < share + 0.1 ? 'the zebra q9' : r < share + 0.2 ? 'zebra zebras the' : undefined;
            if (lead) s.prepare("UPDATE search_passages SET text = ? || ' |' || text WHERE id = ?").run(lead, id);
          }
          const phrase = new Set(s.prepare(`SELECT rowid FROM search_fts WHERE search_fts MATCH '{text} : "zebra the"'`).pluck().all() as number[]);
          // Several rankings of the same texts.
          for (let draw = 0; draw < 8; draw++) {
            const ranked: RankedRow[] = window.map((id) => ({ id, score: -Math.floor(random() * 40) }));
            const inOrder = [...ranked].sort(byScore);
            const found = phraseFirst(s, ranked, ['zebra', 'The'], byScore, wanted);
            if (found === undefined) continue;
            answered++;
            expect(found, JSON.stringify({ share, size, wanted, draw })).toEqual(inOrder.filter((r) => phrase.has(r.id)).slice(0, wanted));
            // The last row it gave after the best ranked it reads first (4 times the rows wanted, and 40).
            if (found.length > 0 && inOrder.indexOf(found.at(-1)!) >= 4 * wanted + 40) pastTheBest++;
          }
        }
    expect(answered).toBeGreaterThan(120);
    expect(pastTheBest).toBeGreaterThan(20);
  });
});

// The rule the reference sets, read here without any of the search's code: the matches of the words that pass the
// filters (conditions on the meetings' own rows), the newest RANK_WINDOW of them ranked (the exact phrase first, then
// bm25(), then the newest), then the older ones newest first. Every ranker above shares the window and the phrase
// with the search, so only this catches a window a passage short, or the phrase not put first.
describe('search_transcripts against the rule read from the rows', () => {
  interface Conditions {
    folder?: string;
    participant?: string;
    from?: string;
    to?: string;
  }

  function byTheRule(s: Sqlite, words: string[], c: Conditions): { ids: number[]; total: number } {
    const where = ['search_fts MATCH ?'];
    const params: unknown[] = [`{text} : (${words.map((w) => `"${w}"`).join(' ')})`];
    if (c.folder !== undefined) {
      where.push("m.folder_id IN (SELECT id FROM folders WHERE path = ? OR substr(path, 1, length(?) + 1) = ? || '/')");
      params.push(c.folder, c.folder, c.folder);
    }
    if (c.participant !== undefined) {
      where.push("EXISTS (SELECT 1 FROM participants pa WHERE pa.meeting_id = m.id AND (instr(lower(pa.name), lower(?)) > 0 OR instr(lower(coalesce(pa.email, '')), lower(?)) > 0))");
      params.push(c.participant, c.participant);
    }
    for (const [bound, op] of [[c.from, '>='], [c.to, '<=']] as const)
      if (bound !== undefined) {
        where.push(`m.started_at ${op} ?`);
        params.push(bound);
      }
    const matches = s
      .prepare(`SELECT f.rowid AS id, bm25(search_fts, 1.0, 0.0) AS score FROM search_fts f JOIN search_passages p ON p.id = f.rowid JOIN meetings m ON m.id = p.meeting_id WHERE ${where.join(' AND ')} ORDER BY f.rowid DESC`)
      .all(...params) as { id: number; score: number }[];
    const phrase = new Set(
      words.length > 1 ? (s.prepare(`SELECT rowid FROM search_fts WHERE search_fts MATCH ?`).pluck().all(`{text} : "${words.join(' ')}"`) as number[]) : [],
    );
    const window = matches.slice(0, RANK_WINDOW).sort((a, b) => Number(phrase.has(b.id)) - Number(phrase.has(a.id)) || a.score - b.score || b.id - a.id);
    return { ids: [...window, ...matches.slice(RANK_WINDOW)].map((r) => r.id), total: matches.length };
  }

  /** The passage a hit stands for: its summary, or the transcript passage holding its word. */
  function passageOf(s: Sqlite, hit: SearchHit): number {
    if (hit.kind === 'summary') return s.prepare("SELECT id FROM search_passages WHERE kind = 'summary' AND ref_id = ?").pluck().get(hit.summary_id) as number;
    return s.prepare("SELECT id FROM search_passages WHERE meeting_id = ? AND kind = 'transcript' AND word_offset <= ? ORDER BY word_offset DESC LIMIT 1").pluck().get(hit.meeting_id, hit.offset) as number;
  }

  it('gives the pages and totals the rule gives, with and without the bitmaps, past the window and with the phrase first', () => {
    const s = db();
    corpus(s, 23, 1200);
    // A word that is not dense (`zebra`, in 1 passage of 97), just after `the` in some of them, just before in others,
    // and in others after `the zebras` (not the phrase `the zebra`): the search reads the window's texts to rank it, and
    // finds the phrase in them (at the start, so that a hit's offset stays inside its passage).
    s.prepare("UPDATE search_passages SET text = CASE id % 291 WHEN 0 THEN 'the zebra ' WHEN 97 THEN 'zebra, the ' ELSE 'the zebras zebra ' END || text WHERE id % 97 = 0").run();
    const cases: [words: string[], Conditions][] = [
      [['the', 'zebra'], {}],
      [['zebra', 'the'], {}],
      [['zebra', 'the'], { folder: 'Acme' }],
      [['the'], {}],
      [['the', 'budget'], {}],
      [['budget', 'review'], {}],
      [['the', 'the'], {}],
      [['the'], { folder: 'Acme' }],
      [['the', 'team'], { folder: 'Acme/Launch', from: '2026-03-01T00:00:00.000Z', to: '2026-06-15T12:00:00.000Z' }],
      [['the'], { participant: 'Yuki' }],
      [['the', 'a'], { participant: 'Sam Berg 3' }],
      [['we'], { participant: 'Sam', from: '2026-02-01T00:00:00.000Z' }],
      // Windows holding every match, ranked from the cells (the bitmaps built): the phrase found in the best ranked
      // texts when said there (`the budget`), else walked (`budget the a`).
      [['the', 'budget'], { folder: 'Acme/Launch', from: '2026-03-01T00:00:00.000Z', to: '2026-04-30T00:00:00.000Z' }],
      [['budget', 'the', 'a'], { participant: 'Yuki', from: '2026-05-01T00:00:00.000Z' }],
      [['the', 'we'], { folder: 'Other', to: '2026-03-15T00:00:00.000Z' }],
      [['review', 'the', 'roadmap'], { folder: 'Acme' }],
      // Six words: every text of a short window read.
      [['we', 'the', 'a', 'budget', 'the', 'review'], { folder: 'Acme/Launch', from: '2026-04-01T00:00:00.000Z', to: '2026-04-20T00:00:00.000Z' }],
    ];
    let phraseFirst = 0;
    let beyond = 0;
    for (const bits of [false, true]) {
      if (bits) buildSearchBits(s);
      for (const [words, c] of cases) {
        const rule = byTheRule(s, words, c);
        expect(rule.total, JSON.stringify([words, c])).toBeGreaterThan(0);
        if (rule.total > RANK_WINDOW + 40) beyond++;
        const filter: SearchFilter = { query: words.join(' '), folderPath: c.folder, participant: c.participant, from: c.from, to: c.to };
        for (const offset of [0, 20, RANK_WINDOW - 10, RANK_WINDOW - 1, RANK_WINDOW + 30]) {
          const label = `${JSON.stringify(filter)} at ${offset}${bits ? ' (bitmaps)' : ''}`;
          const found = searchTranscripts(s, filter, { offset, limit: 10 });
          expect(found.pagination.total, label).toBe(rule.total);
          expect(found.hits.map((h) => passageOf(s, h)), label).toEqual(rule.ids.slice(offset, offset + 10));
          if (offset >= rule.total) break;
        }
        if (words.length > 1 && offset0HasPhrase(s, words, rule.ids)) phraseFirst++;
      }
    }
    // Most cases have matches past the window, and the multi-word ones a phrase match first.
    expect(beyond).toBeGreaterThan(10);
    expect(phraseFirst).toBeGreaterThan(4);
  }, 120_000);

  function offset0HasPhrase(s: Sqlite, words: string[], ids: number[]): boolean {
    const first = ids[0];
    return first !== undefined && (s.prepare('SELECT count(*) FROM search_fts WHERE search_fts MATCH ? AND rowid = ?').pluck().get(`{text} : "${words.join(' ')}"`, first) as number) > 0;
  }
});
