import { describe, expect, it } from 'vitest';
import type { Sqlite } from '../../src/db/open.js';
import { setIndexesAside } from '../../src/db/queries/bulk-index.js';
import { checkIntegrity, repairSearchIndex, WRONG_WORD_COUNTS } from '../../src/db/queries/integrity.js';
import { searchTranscripts } from '../../src/db/queries/search.js';
import { testDbs } from '../support/db.js';
import { makeMeeting, makeSummary, makeTranscript } from '../support/factories.js';

// search_word_counts (migration 0013): how many passages say each word, kept by triggers on search_passages,
// read for a one-word search's total and for the ranking's IDF. Writes through the product's paths are
// fuzzed in search-fts-integrity.test.ts; here what no product path does but any SQL writer may.

const db = testDbs();
const wrong = (s: Sqlite) => (s.prepare(WRONG_WORD_COUNTS).get() as { n: number }).n;
const passages = (s: Sqlite, word: string) => (s.prepare('SELECT passages AS n FROM search_word_counts WHERE word = ?').get(word) as { n: number } | undefined)?.n ?? 0;

describe('search_word_counts', () => {
  it('follows a passage whose text is changed in place, folded as the index folds words', () => {
    const s = db();
    const m = makeMeeting(s);
    makeTranscript(s, m, { texts: 'The budget and the Budget review'.split(' '), speakers: ['A'] });
    makeSummary(s, m, { content: 'A café budget' });
    expect(passages(s, 'budget')).toBe(2);
    expect(passages(s, 'the')).toBe(1);
    expect(passages(s, 'cafe')).toBe(1);
    s.prepare("UPDATE search_passages SET text = 'thé THE roadmap' WHERE kind = 'transcript'").run();
    expect([passages(s, 'budget'), passages(s, 'the'), passages(s, 'roadmap'), passages(s, 'review')]).toEqual([1, 1, 1, 0]);
    expect(s.prepare("SELECT count(*) AS n FROM search_word_counts WHERE word = 'review'").get()).toEqual({ n: 0 });
    expect(wrong(s)).toBe(0);
    expect(searchTranscripts(s, { query: 'the' }, { limit: 10, offset: 0 }).pagination.total).toBe(1);
  });

  it('is checked by doctor and computed again by the repair', () => {
    const s = db();
    for (let i = 0; i < 3; i++) makeTranscript(s, makeMeeting(s), { texts: `the plan number ${i}`.split(' '), speakers: ['A'] });
    expect(checkIntegrity(s, { full: false }).search).toEqual([]);
    s.prepare("UPDATE search_word_counts SET passages = 7 WHERE word = 'the'").run();
    s.prepare("INSERT INTO search_word_counts (word, passages) VALUES ('ghost', 1)").run();
    expect(checkIntegrity(s, { full: false }).search).toEqual(['search_word_counts']);
    repairSearchIndex(s);
    expect(checkIntegrity(s, { full: false }).search).toEqual([]);
    expect(passages(s, 'the')).toBe(3);
    expect(passages(s, 'ghost')).toBe(0);
  });

  it('is counted once at the end by the bulk writers, whose passages skip the triggers', () => {
    const s = db();
    makeTranscript(s, makeMeeting(s), { texts: 'the first meeting'.split(' '), speakers: ['A'] });
    s.transaction(() => {
      const aside = setIndexesAside(s);
      for (let i = 0; i < 5; i++) makeTranscript(s, makeMeeting(s), { texts: `the meeting ${i} and the review`.split(' '), speakers: ['A', 'B'], turn: 3 });
      aside.restore();
    })();
    expect(wrong(s)).toBe(0);
    expect(passages(s, 'the')).toBe(11);
    expect(searchTranscripts(s, { query: 'meeting' }, { limit: 1, offset: 0 }).pagination.total).toBe(6);
  });
});
