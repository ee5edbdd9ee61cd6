// The meeting filters shared by list_meetings, search_transcripts and the CLI: dates at the edges of
// the calendar, reversed ranges and queries with nothing to search refused with what to pass instead.
import { describe, expect, it } from 'vitest';
import { setIndexesAside } from '../../src/db/queries/bulk-index.js';
import { compileMeetingFilter, listMeetings } from '../../src/db/queries/meetings.js';
import { searchTranscripts } from '../../src/db/queries/search.js';
import { InvalidInputError } from '../../src/errors.js';
import { mcpMessage } from '../../src/mcp/errors.js';
import { testDbs } from '../support/db.js';
import { makeMeeting, makeParticipant, makeSeries, makeTranscript } from '../support/factories.js';

const db = testDbs();
const page = { limit: 50, offset: 0 };

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return mcpMessage(error as InvalidInputError);
  }
  throw new Error('expected the filter to be refused');
}

describe('date filters at the edges of the calendar', () => {
  it('keep the last day of year 9999 inclusive, like any other day', () => {
    const s = db();
    makeMeeting(s, { title: 'Early', startedAt: '2026-03-10T09:00:00.000Z' });
    makeMeeting(s, { title: 'Last day', startedAt: '9999-12-31T23:00:00.000Z' });
    const titles = (filter: { from?: string; to?: string }) => listMeetings(s, filter, page).meetings.map((m) => m.title);
    expect(titles({ to: '9999-12-31' })).toEqual(['Last day', 'Early']);
    expect(titles({ to: '9999-12-30' })).toEqual(['Early']);
    expect(titles({ from: '9999-12-31' })).toEqual(['Last day']);
    expect(titles({ from: '0000-01-01', to: '2026-03-10' })).toEqual(['Early']);
    expect(titles({ to: '2026-03-10T09:00:00Z' })).toEqual(['Early']);
    expect(titles({ to: '2026-03-10T08:59:59.999Z' })).toEqual([]);
  });

  it('refuse years outside 0000-9999 (expanded years), impossible days and free text, saying what to pass', () => {
    const s = db();
    makeMeeting(s, { startedAt: '2026-03-10T09:00:00.000Z' });
    const expected = /^"(from|to)" must be an ISO 8601 date or date-time between 0000-01-01 and 9999-12-31, such as 2026-11-30 or 2026-11-30T09:00:00Z; got ".*"\./;
    for (const from of ['+010000-01-01', '-000001-01-01', '2026-02-30', '2026-13-01', '1', 'Dec 25', '2026-11-30T25:00Z'])
      expect(refusal(() => listMeetings(s, { from }, page))).toMatch(expected);
    expect(refusal(() => listMeetings(s, { to: '+010000-01-01' }, page))).toMatch(/^"to" must be .* got "\+010000-01-01"\./);
    // An offset that takes a date-time past year 9999.
    expect(refusal(() => listMeetings(s, { to: '9999-12-31T23:30:00-01:00' }, page))).toMatch(/^"to" must be/);
  });

  it('read a date-time without a zone as UTC, and convert offsets', () => {
    const s = db();
    makeMeeting(s, { title: 'Nine', startedAt: '2026-03-10T09:00:00.000Z' });
    const titles = (filter: { from?: string; to?: string }) => listMeetings(s, filter, page).meetings.map((m) => m.title);
    expect(titles({ from: '2026-03-10T09:00' })).toEqual(['Nine']);
    expect(titles({ from: '2026-03-10T09:00:01' })).toEqual([]);
    expect(titles({ from: '2026-03-10T10:00:00+01:00' })).toEqual(['Nine']);
    expect(titles({ from: '2026-03-10 09:00:00Z' })).toEqual(['Nine']);
  });

  it('refuse a reversed range with the two values in the right order', () => {
    const s = db();
    const message = refusal(() => listMeetings(s, { from: '2026-03-12', to: '2026-03-10' }, page));
    expect(message).toBe(
      '"from" (2026-03-12) is after "to" (2026-03-10), so no meeting can match. Pass the earlier date as from and the later one as to: from "2026-03-10", to "2026-03-12".',
    );
    expect(refusal(() => searchTranscripts(s, { query: 'budget', from: '2026-03-10T12:00:00Z', to: '2026-03-10T09:00:00Z' }, page))).toMatch(/^"from" \(2026-03-10T12:00:00Z\) is after "to"/);
    // One whole day, and an exact instant, are ranges too.
    expect(listMeetings(s, { from: '2026-03-10', to: '2026-03-10' }, page).meetings).toEqual([]);
    expect(listMeetings(s, { from: '2026-03-10T09:00:00Z', to: '2026-03-10T09:00:00Z' }, page).meetings).toEqual([]);
  });
});

describe('search_transcripts query', () => {
  it('is refused when it has nothing to search for (empty, blank, punctuation only), saying what to pass', () => {
    const s = db();
    const m = makeMeeting(s);
    makeTranscript(s, m, { texts: ['the', 'budget', 'review'] });
    for (const query of ['', '   ', '?!…', '"*" - ()'])
      expect(refusal(() => searchTranscripts(s, { query }, page))).toMatch(
        /^query .*has no word to search for\. Pass one or more words that were said or written, for example query: "budget review"; to list meetings without searching, use list_meetings\.$/,
      );
    expect(searchTranscripts(s, { query: '"budget"' }, page).hits.map((h) => h.meeting_id)).toEqual([m]);
  });
});

describe('a participant fragment across words', () => {
  it('finds the same meetings whether few hold it (named by id), more than 20,000 (read in each statement) or it is in more than 500 names', () => {
    const s = db();
    const series = makeSeries(s);
    // Written as the bulk writers do (the list indexes built once at the end): the reads are checked.
    s.transaction(() => {
      const aside = setIndexesAside(s);
      for (let i = 0; i < 20_003; i++) {
        const id = makeMeeting(s, {
          startedAt: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString(),
          title: i % 4 === 0 ? `Budget review ${i}` : `Sync #${i}`,
          ...(i % 5 < 2 && { folderPath: i % 5 === 0 ? 'Ops/Eu' : 'Ops' }),
          ...(i % 97 === 3 && { seriesId: series }),
        });
        makeParticipant(s, id, { name: i % 1000 === 7 ? 'Ann Leeds' : i % 2 === 0 ? `Ann Lee ${i % 1200}` : 'Bo Lee' });
        makeParticipant(s, id, { name: 'Cy Dee', email: i % 3 === 0 ? 'cy.dee@example.test' : null });
      }
      aside.restore();
    })();
    const expected = (like: string) =>
      s
        .prepare('SELECT DISTINCT m.id FROM meetings m JOIN participants p ON p.meeting_id = m.id WHERE p.name LIKE ? OR p.email LIKE ? ORDER BY m.started_at DESC, m.id DESC')
        .pluck()
        .all(like, like) as string[];
    const cases = [
      ['n Lee', 10_022], // 601 names, more than a filter lists: each meeting the list walks probed for them
      ['Ann Leed', 20], // named by id, few: their page sorted
      ['o Lee', 9_981], // named by id, many: the newest meetings walked, or the time index with theirs kept
      ['y Dee', 20_003], // more than 20,000 would be named: read from the participants in each statement (one name and one e-mail)
      ['e@ex', 6_668], // an e-mail
      ['Zed Q', 0],
    ] as const;
    for (const [fragment, count] of cases) {
      const all = expected(`%${fragment}%`);
      expect({ fragment, count: all.length }).toEqual({ fragment, count });
      for (const offset of [0, 15, 2490, 9990, 13_330, 20_000]) {
        const list = listMeetings(s, { participant: fragment }, { limit: 20, offset });
        expect({ fragment, offset, total: list.pagination.total, ids: list.meetings.map((m) => m.id) }).toEqual({ fragment, offset, total: all.length, ids: all.slice(offset, offset + 20) });
      }
    }
    // Each meeting probed from participants_meeting_idx alone (migration 0022), not from the participants' rows.
    const probe = compileMeetingFilter(s, { participant: 'n Lee' }).parts[0]!.probe!;
    const plan = s.prepare(`EXPLAIN QUERY PLAN SELECT count(*) FROM meetings m WHERE ${probe.sql('m.id')}`).all(...probe.params) as { detail: string }[];
    expect(plan.map((r) => r.detail)).toContain('SEARCH p EXISTS USING COVERING INDEX participants_meeting_idx (meeting_id=?)');
    // The fragment in 601 names with each other filter: its meetings walked from the other filter's index (a folder, a
    // series), the time index (dates, a short title fragment) or the title index, and each one probed.
    const combined = [
      [{ folderPath: 'Ops' }, `m.folder_id IN (SELECT id FROM folders WHERE path = 'Ops' OR path LIKE 'Ops/%')`, 4_001],
      [{ seriesId: series }, `m.series_id = '${series}'`, 103],
      [{ from: '2026-03-01', to: '2026-06-30' }, `m.started_at >= '2026-03-01' AND m.started_at < '2026-07-01'`, 1_467],
      [{ query: '#1' }, `m.title LIKE '%#1%'`, 2_789],
      [{ query: 'budget', from: '2026-02-01' }, `m.title LIKE '%budget%' AND m.started_at >= '2026-02-01'`, 4_815],
    ] as const;
    for (const [filter, where, count] of combined) {
      const all = s
        .prepare(`SELECT m.id FROM meetings m WHERE ${where} AND EXISTS (SELECT 1 FROM participants p WHERE p.meeting_id = m.id AND p.name LIKE '%n Lee%') ORDER BY m.started_at DESC, m.id DESC`)
        .pluck()
        .all() as string[];
      expect({ filter, count: all.length }).toEqual({ filter, count });
      for (const offset of [0, 15, 1_990, 4_000]) {
        const list = listMeetings(s, { participant: 'n Lee', ...filter }, { limit: 20, offset });
        expect({ filter, offset, total: list.pagination.total, ids: list.meetings.map((m) => m.id) }).toEqual({ filter, offset, total: all.length, ids: all.slice(offset, offset + 20) });
      }
    }
  }, 120_000);
});
