// search_transcripts' from/to as calendar tokens of the full-text index (y2026, m202605, d20260517; dx for a
// start that is not a date), the range's first and last day checked meeting by meeting: the same hits in
// the same order, and the same totals, as filtering every match by its meeting's started_at, at every
// boundary (the last millisecond of a day, midnight, a year's end, time zones, open ends).
import { describe, expect, it } from 'vitest';
import type { Sqlite } from '../../src/db/open.js';
import { parseDateRange } from '../../src/db/queries/meetings.js';
import { searchTranscripts, type SearchFilter } from '../../src/db/queries/search.js';
import { testDbs } from '../support/db.js';
import { makeMeeting, makeParticipant, makeTranscript } from '../support/factories.js';

const db = testDbs();
const all = { limit: 200, offset: 0 };

/** Starts at the edges of days, months and years, and three that SQL clients may write: no real date, a space, no date at all. */
const STARTS = [
  '2024-02-29T12:00:00.000Z',
  '2025-12-31T23:59:59.999Z',
  '2026-01-01T00:00:00.000Z',
  '2026-04-30T23:59:59.999Z',
  '2026-05-01T00:00:00.000Z',
  '2026-05-16T23:59:59.999Z',
  '2026-05-17T00:00:00.000Z',
  '2026-05-17T12:00:00.000Z',
  '2026-05-17T23:59:59.999Z',
  '2026-05-18T00:00:00.000Z',
  '2026-06-30T23:59:59.999Z',
  '2026-07-01T00:00:00.000Z',
  '2026-02-30T10:00:00.000Z',
  '2026-05-17 08:00',
  'soon',
];

/** Bounds at those edges, bare dates (a `to` date means its whole day) and other time zones. */
const BOUNDS = [
  '2024-01-01',
  '2025-12-31',
  '2025-12-31T23:59:59.999Z',
  '2026-01-01',
  '2026-01-01T00:00:00.001Z',
  '2026-05-01',
  '2026-05-16T23:59:59.999Z',
  '2026-05-17',
  '2026-05-17T00:00:00Z',
  '2026-05-17T12:00:00.000Z',
  '2026-05-17T02:00:00+02:00',
  '2026-05-17T23:59:59.999Z',
  '2026-05-18',
  '2026-06-30',
  '2026-07-01T00:00:00.000Z',
  '2027-03-01',
];

function seed(s: Sqlite): void {
  STARTS.forEach((startedAt, i) => {
    const id = makeMeeting(s, { title: `M${i} ${startedAt}`, startedAt, endedAt: null, folderPath: i % 3 === 0 ? 'Acme' : 'Other' });
    // Different lengths and repeats, so BM25 orders the hits; a phrase in some of them.
    makeTranscript(s, id, { texts: `the budget ${'review '.repeat(i % 4)}budget pricing ${i % 2 ? 'pricing budget' : 'roadmap'}`.trim().split(' '), speakers: ['Alice'] });
    makeParticipant(s, id, { name: i % 2 ? 'Anne Marie' : 'Omar Haddad' });
  });
}

/** The answer without dates, filtered by each hit's started_at with the comparisons of the range: what search answered by joining every match. */
function byEveryMatch(s: Sqlite, filter: SearchFilter): ReturnType<typeof searchTranscripts>['hits'] {
  const range = parseDateRange(filter.from, filter.to);
  const { from: _from, to: _to, ...rest } = filter;
  const { hits, pagination } = searchTranscripts(s, rest, all);
  expect(pagination.total).toBeLessThan(all.limit);
  return hits.filter((h) => (range.from === undefined || h.started_at >= range.from) && (range.to === undefined || h.started_at <= range.to));
}

function sameAsEveryMatch(s: Sqlite, filter: SearchFilter): number {
  const want = byEveryMatch(s, filter);
  const got = searchTranscripts(s, filter, all);
  expect(got.hits, JSON.stringify(filter)).toEqual(want);
  expect(got.pagination.total, JSON.stringify(filter)).toBe(want.length);
  // Paged: the same hits, one at a time.
  if (want.length > 1) expect(searchTranscripts(s, filter, { limit: 1, offset: want.length - 1 }).hits).toEqual(want.slice(-1));
  return want.length;
}

describe('search_transcripts from/to from calendar tokens', () => {
  it('finds what filtering every match by started_at finds, for every pair of boundaries and open ends', () => {
    const s = db();
    seed(s);
    let nonEmpty = 0;
    for (const query of ['budget', 'pricing budget'])
      for (const [i, from] of BOUNDS.entries()) {
        nonEmpty += Number(sameAsEveryMatch(s, { query, from }) > 0);
        sameAsEveryMatch(s, { query, to: from });
        for (const to of BOUNDS.slice(i))
          if (parseDateRange(from, undefined).from! <= parseDateRange(undefined, to).to!) nonEmpty += Number(sameAsEveryMatch(s, { query, from, to }) > 0);
      }
    expect(nonEmpty).toBeGreaterThan(100);
    // The edges of one day, and a year's end.
    const titles = (filter: SearchFilter) => searchTranscripts(s, filter, all).hits.map((h) => h.title.split(' ')[0]).sort();
    expect(titles({ query: 'roadmap', from: '2026-05-17', to: '2026-05-17' })).toEqual(['M6', 'M8']);
    expect(titles({ query: 'budget', from: '2026-05-17', to: '2026-05-17' })).toEqual(['M6', 'M7', 'M8']);
    expect(titles({ query: 'budget', from: '2025-12-31T23:59:59.999Z', to: '2026-01-01T00:00:00Z' })).toEqual(['M1', 'M2']);
    // A start that is not a real date compares as text, as before: '2026-05-17 08:00' is before '2026-05-17T...'; 'soon' after every date.
    expect(titles({ query: 'budget', from: '2026-05-16T23:59:59.999Z', to: '2026-05-17T00:00:00Z' })).toEqual(['M13', 'M5', 'M6']);
    expect(titles({ query: 'budget', from: '2027-03-01' })).toEqual(['M14']);
  });

  it('combined with folder and participant filters (tags and a fragment across words) and after a re-timing', () => {
    const s = db();
    seed(s);
    for (const [from, to] of [
      ['2026-05-17', '2026-05-17'],
      ['2026-05-17T12:00:00.000Z', '2026-07-01T00:00:00.000Z'],
      ['2025-12-31', '2026-06-30'],
    ] as const)
      for (const more of [{ folderPath: 'Acme' }, { participant: 'anne' }, { participant: 'Anne Mar' }, { participant: 'omar', folderPath: 'Other' }])
        sameAsEveryMatch(s, { query: 'budget', from, to, ...more });
    const moved = s.prepare("SELECT id FROM meetings WHERE started_at = '2026-05-17T12:00:00.000Z'").pluck().get() as string;
    s.prepare('UPDATE meetings SET started_at = ? WHERE id = ?').run('2026-09-02T08:00:00.000Z', moved);
    expect(searchTranscripts(s, { query: 'budget', from: '2026-05-17', to: '2026-05-17' }, all).pagination.total).toBe(2);
    expect(searchTranscripts(s, { query: 'budget', from: '2026-09-01', to: '2026-09-30' }, all).hits.map((h) => h.meeting_id)).toEqual([moved]);
    sameAsEveryMatch(s, { query: 'budget', from: '2026-05-01', to: '2026-09-02T07:59:59.999Z' });
    sameAsEveryMatch(s, { query: 'budget', from: '2026-05-01', to: '2026-09-02T08:00:00.000Z' });
    // Meetings five centuries apart: a range over them would take too many tokens and is checked meeting by meeting.
    const old = makeMeeting(s, { title: 'Old', startedAt: '1500-06-15T10:00:00.000Z', endedAt: null });
    makeTranscript(s, old, { texts: ['budget'], speakers: ['Alice'] });
    for (const [from, to] of [['1500-06-15T10:00:00.001Z', undefined], ['1500-06-15', '2026-05-17'], [undefined, '2026-01-01T00:00:00Z'], ['1500-06-15T10:00:00Z', '1500-06-15T10:00:00Z']])
      sameAsEveryMatch(s, { query: 'budget', from, to });
    expect(searchTranscripts(s, { query: 'budget', to: '1500-06-15' }, all).hits.map((h) => h.title)).toEqual(['Old']);
  });

  it('a word spelled like a calendar token is found in the text, not in the tags', () => {
    const s = db();
    const a = makeMeeting(s, { title: 'A', startedAt: '2026-05-17T10:00:00.000Z' });
    makeTranscript(s, a, { texts: ['budget'], speakers: ['Alice'] });
    const b = makeMeeting(s, { title: 'B', startedAt: '2024-01-02T10:00:00.000Z' });
    makeTranscript(s, b, { texts: ['y2026', 'm202605', 'd20260517', 'dx'], speakers: ['Alice'] });
    for (const word of ['y2026', 'M202605', 'd20260517', 'dx']) expect(searchTranscripts(s, { query: word }, all).hits.map((h) => h.title)).toEqual(['B']);
    expect(searchTranscripts(s, { query: 'y2026', from: '2026-01-01' }, all).pagination.total).toBe(0);
  });
});
