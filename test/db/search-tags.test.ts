// The filter columns denormalised into the indexes (issue 19): meetings.search_tags, meeting_tags and
// search_fts's `tags` follow every change of a participant, a folder, a series and a meeting's time, so
// list_meetings and search_transcripts answer from the indexes what they answered by joining before;
// and a database made before migration 0010 gets them from its existing rows.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Sqlite } from '../../src/db/open.js';
import { listMeetings } from '../../src/db/queries/meetings.js';
import { searchTranscripts, type SearchFilter } from '../../src/db/queries/search.js';
import { MAX_PARTICIPANT_WORDS } from '../../src/db/queries/participant-words.js';
import { checkIntegrity, repairSearchIndex } from '../../src/db/queries/integrity.js';
import { databaseMigratedTo, tempDir, testDbs } from '../support/db.js';
import { makeMeeting, makeParticipant, makeSeries, makeSummary, makeTranscript } from '../support/factories.js';

const db = testDbs();
const page = { limit: 50, offset: 0 };
const said = (s: Sqlite, id: string, text: string) => makeTranscript(s, id, { texts: text.split(' '), speakers: ['Alice'] });

/** Meetings listed, as titles, and the exact total. */
function listed(s: Sqlite, filter: Parameters<typeof listMeetings>[1]): { titles: string[]; total: number } {
  const r = listMeetings(s, filter, page);
  return { titles: r.meetings.map((m) => m.title), total: r.pagination.total };
}
const found = (s: Sqlite, filter: Parameters<typeof searchTranscripts>[1]) => [...new Set(searchTranscripts(s, filter, page).hits.map((h) => h.title))].sort();

/** FTS5's own check of search_fts against its content (the passages and their meetings' tags). */
function searchIndexConsistent(s: Sqlite): void {
  s.prepare("INSERT INTO search_fts (search_fts, rank) VALUES ('integrity-check', 1)").run();
}

describe('participant filter from participant words', () => {
  it('follows a participant renamed, removed and added, in list_meetings and search_transcripts', () => {
    const s = db();
    const a = makeMeeting(s, { title: 'A', startedAt: '2026-03-01T10:00:00.000Z' });
    const b = makeMeeting(s, { title: 'B', startedAt: '2026-03-02T10:00:00.000Z' });
    for (const id of [a, b]) said(s, id, 'the pricing review');
    makeParticipant(s, a, { name: 'Yuki Tanaka', email: 'yuki@acme.test' });
    makeParticipant(s, b, { name: 'Omar Haddad' });
    expect(listed(s, { participant: 'yuki' })).toEqual({ titles: ['A'], total: 1 });
    expect(found(s, { query: 'pricing', participant: 'YUKI' })).toEqual(['A']);

    s.prepare("UPDATE participants SET name = 'Yukiko Sato', email = NULL WHERE meeting_id = ?").run(a);
    expect(listed(s, { participant: 'tanaka' })).toEqual({ titles: [], total: 0 });
    expect(found(s, { query: 'pricing', participant: 'tanaka' })).toEqual([]);
    expect(listed(s, { participant: 'yukiko' })).toEqual({ titles: ['A'], total: 1 });
    expect(found(s, { query: 'pricing', participant: 'sato' })).toEqual(['A']);

    s.prepare("UPDATE participants SET meeting_id = ? WHERE meeting_id = ?").run(b, a);
    expect(listed(s, { participant: 'yukiko' })).toEqual({ titles: ['B'], total: 1 });
    expect(found(s, { query: 'pricing', participant: 'yukiko' })).toEqual(['B']);

    s.prepare('DELETE FROM participants WHERE meeting_id = ?').run(b);
    expect(listed(s, { participant: 'yuki' })).toEqual({ titles: [], total: 0 });
    expect(found(s, { query: 'pricing', participant: 'omar' })).toEqual([]);
    makeParticipant(s, a, { name: 'Omar Haddad' });
    expect(listed(s, { participant: 'omar' })).toEqual({ titles: ['A'], total: 1 });
    expect(found(s, { query: 'pricing', participant: 'haddad' })).toEqual(['A']);
    searchIndexConsistent(s);
  });

  it('matches words in any case and Unicode form, fragments inside a word and across words, counted once per meeting', () => {
    const s = db();
    const a = makeMeeting(s, { title: 'A', startedAt: '2026-03-01T10:00:00.000Z' });
    const b = makeMeeting(s, { title: 'B', startedAt: '2026-03-02T10:00:00.000Z' });
    const c = makeMeeting(s, { title: 'C', startedAt: '2026-03-03T10:00:00.000Z' });
    for (const id of [a, b, c]) said(s, id, 'the budget');
    makeParticipant(s, a, { name: 'José Núñez'.normalize('NFC'), email: 'jose.nunez@example.test' });
    makeParticipant(s, b, { name: 'Ólafur Ørn'.normalize('NFD') });
    // Two participants of one meeting hold the fragment: the meeting is listed and counted once.
    makeParticipant(s, c, { name: 'Anne Núñez' });
    makeParticipant(s, c, { name: 'Núñez Jr' });
    expect(listed(s, { participant: 'NÚÑEZ' })).toEqual({ titles: ['C', 'A'], total: 2 });
    expect(listed(s, { participant: 'núñez'.normalize('NFD') })).toEqual({ titles: ['C', 'A'], total: 2 });
    expect(listed(s, { participant: 'ÓLAFUR' })).toEqual({ titles: ['B'], total: 1 });
    expect(listed(s, { participant: 'ø' })).toEqual({ titles: ['B'], total: 1 });
    expect(listed(s, { participant: 'Ñ' })).toEqual({ titles: ['C', 'A'], total: 2 });
    // Diacritics are not folded: "nunez" is only in A's e-mail.
    expect(listed(s, { participant: 'nunez' })).toEqual({ titles: ['A'], total: 1 });
    // Inside a word, across words (a space, an @), and literal wildcards.
    expect(listed(s, { participant: 'úñe' })).toEqual({ titles: ['C', 'A'], total: 2 });
    expect(listed(s, { participant: 'Anne Núñ' })).toEqual({ titles: ['C'], total: 1 });
    expect(listed(s, { participant: 'nunez@example' })).toEqual({ titles: ['A'], total: 1 });
    expect(listed(s, { participant: 'z J' })).toEqual({ titles: ['C'], total: 1 });
    expect(listed(s, { participant: '%' })).toEqual({ titles: [], total: 0 });
    expect(found(s, { query: 'budget', participant: 'NÚÑEZ' })).toEqual(['A', 'C']);
    expect(found(s, { query: 'budget', participant: 'Anne Núñ' })).toEqual(['C']);
    expect(searchTranscripts(s, { query: 'budget', participant: 'núñez' }, page).pagination.total).toBe(2);
  });

  it('matches a fragment held by more words than an index query takes, participant by participant', () => {
    const s = db();
    const ids = Array.from({ length: MAX_PARTICIPANT_WORDS + 5 }, (_, i) => makeMeeting(s, { title: `M${i}`, startedAt: new Date(Date.UTC(2026, 0, 1 + i)).toISOString() }));
    ids.forEach((id, i) => {
      makeParticipant(s, id, { name: `Zed${i}x` });
      said(s, id, 'hello there');
    });
    expect(listed(s, { participant: 'zed' }).total).toBe(ids.length);
    expect(searchTranscripts(s, { query: 'hello', participant: 'zed' }, page).pagination.total).toBe(ids.length);
  });
});

describe('a participant fragment in many names (a group of many tags)', () => {
  it('gives the pages FTS5 gives when its tags are checked on the rare words\' matches, with other filters and the phrase', () => {
    const s = db();
    // 150 meetings with a name holding `berg` (each its own: 150 tags), 60 without. `zebra` said in a quarter of the
    // meetings once a passage, right before `the` (the phrase `zebra the`, in long passages: ranked low), and in another
    // quarter several times a passage but never before `the` (ranked high): the phrase comes first all the same.
    for (let i = 0; i < 210; i++) {
      const id = makeMeeting(s, { title: `M${i}`, folderPath: i % 3 ? 'Legal' : 'Sales', startedAt: new Date(Date.UTC(2026, 0, 1 + (i % 90), i % 24)).toISOString() });
      makeParticipant(s, id, { name: i < 150 ? `Ann Berg${i}` : `Omar Haddad${i}`, email: i % 7 === 0 ? `p${i}@acme.test` : null });
      if (i % 5 === 0) makeParticipant(s, id, { name: 'Ravi Kumar' });
      const filler = 'the plan and the team of a budget review'.split(' ');
      const words =
        i % 4 === 0
          ? [...(i % 8 === 0 ? ['zebra', 'the'] : ['zebra,', 'the']), 'budget', ...Array.from({ length: 57 }, (_, n) => filler[n % filler.length]!)]
          : i % 4 === 2
            ? Array.from({ length: 12 }, (_, n) => ['the', 'zebra', 'zebra', 'and', 'zebra', 'budget'][n % 6]!)
            : filler;
      makeTranscript(s, id, { texts: [...words, ...words], speakers: ['A', 'B'] });
    }
    const holding = s.prepare("SELECT count(DISTINCT meeting_id) FROM participants WHERE name LIKE '%berg%'").pluck().get() as number;
    expect(holding).toBe(150);
    const reference = (words: string, extra = '') =>
      s
        .prepare(
          `SELECT count(*) FROM search_fts f JOIN search_passages p ON p.id = f.rowid JOIN meetings m ON m.id = p.meeting_id WHERE search_fts MATCH ?
           AND p.meeting_id IN (SELECT meeting_id FROM participants WHERE name LIKE '%berg%') ${extra}`,
        )
        .pluck()
        .get(`{text} : (${words})`) as number;
    let compared = 0;
    for (const filter of [
      { query: 'zebra', participant: 'berg' },
      { query: 'zebra the', participant: 'berg' },
      { query: 'the zebra', participant: 'Berg', folderPath: 'Legal' },
      { query: 'zebra budget', participant: 'berg', from: '2026-01-20', to: '2026-02-25T11:00:00Z' },
      { query: 'zebra', participant: 'berg', from: '2026-02-01' },
    ] as SearchFilter[]) {
      const extra = [
        filter.folderPath ? "AND m.folder_id IN (SELECT id FROM folders WHERE path = 'Legal')" : '',
        filter.from ? `AND m.started_at >= '${new Date(filter.from).toISOString()}'` : '',
        filter.to ? `AND m.started_at <= '${new Date(filter.to).toISOString()}'` : '',
      ].join(' ');
      const expectedTotal = reference(filter.query.split(' ').map((w) => `"${w}"`).join(' '), extra);
      expect(expectedTotal, JSON.stringify(filter)).toBeGreaterThan(0);
      for (const offset of [0, 7, 40, expectedTotal - 3]) {
        const p = { limit: 10, offset: Math.max(0, offset) };
        const checked = searchTranscripts(s, filter, p, { manyTags: 'checked' });
        expect(checked.pagination.total, JSON.stringify(filter)).toBe(expectedTotal);
        expect(checked, `${JSON.stringify(filter)} at ${offset}`).toEqual(searchTranscripts(s, filter, p, { manyTags: 'fts5' }));
        // By default, the words being rare: checked.
        expect(searchTranscripts(s, filter, p)).toEqual(checked);
        compared++;
      }
    }
    expect(compared).toBe(20);
  });
});

describe('folder, series and dates from meeting_tags and search_fts', () => {
  it('follow a meeting moved to another folder, out of a deleted folder, to another series and in time', () => {
    const s = db();
    const series = makeSeries(s);
    const other = makeSeries(s, { title: 'Other' });
    const a = makeMeeting(s, { title: 'A', folderPath: 'Acme/Launch/Notes', seriesId: series, startedAt: '2026-03-01T10:00:00.000Z' });
    const b = makeMeeting(s, { title: 'B', folderPath: 'Beta', startedAt: '2026-03-02T10:00:00.000Z' });
    for (const id of [a, b]) said(s, id, 'the roadmap');
    makeSummary(s, a, { content: 'Roadmap agreed.' });
    makeParticipant(s, a, { name: 'Yuki Tanaka' });
    makeParticipant(s, b, { name: 'Yuki Mori' });
    expect(listed(s, { folderPath: 'Acme' })).toEqual({ titles: ['A'], total: 1 });
    expect(found(s, { query: 'roadmap', folderPath: 'acme/launch' })).toEqual(['A']);
    expect(searchTranscripts(s, { query: 'roadmap', folderPath: 'Acme' }, page).pagination.total).toBe(2);

    const beta = s.prepare("SELECT id FROM folders WHERE path = 'Beta'").get() as { id: string };
    s.prepare('UPDATE meetings SET folder_id = ?, series_id = ? WHERE id = ?').run(beta.id, other, a);
    expect(listed(s, { folderPath: 'Acme' })).toEqual({ titles: [], total: 0 });
    expect(listed(s, { folderPath: 'Beta' })).toEqual({ titles: ['B', 'A'], total: 2 });
    expect(listed(s, { folderPath: 'Beta', participant: 'tanaka' })).toEqual({ titles: ['A'], total: 1 });
    expect(found(s, { query: 'roadmap', folderPath: 'Acme' })).toEqual([]);
    expect(found(s, { query: 'roadmap', folderPath: 'Beta', participant: 'yuki' })).toEqual(['A', 'B']);
    expect(listed(s, { seriesId: series })).toEqual({ titles: [], total: 0 });
    expect(listed(s, { seriesId: other, participant: 'yuki' })).toEqual({ titles: ['A'], total: 1 });
    expect(found(s, { query: 'roadmap', seriesId: other })).toEqual(['A']);

    // Deleting the folder takes its meetings out of every folder (ON DELETE SET NULL).
    s.prepare('DELETE FROM folders WHERE id = ?').run(beta.id);
    expect(listed(s, { participant: 'yuki', folderPath: 'Acme' })).toEqual({ titles: [], total: 0 });
    expect(found(s, { query: 'roadmap', participant: 'yuki' })).toEqual(['A', 'B']);

    // Moved in time: the participant's rows in meeting_tags follow, with the date range.
    s.prepare("UPDATE meetings SET started_at = '2025-01-01T10:00:00.000Z' WHERE id = ?").run(b);
    expect(listed(s, { participant: 'yuki', from: '2026-01-01' })).toEqual({ titles: ['A'], total: 1 });
    expect(listed(s, { participant: 'yuki', to: '2025-12-31' })).toEqual({ titles: ['B'], total: 1 });
    expect(listed(s, { participant: 'yuki' })).toEqual({ titles: ['A', 'B'], total: 2 });
    searchIndexConsistent(s);
  });

  it('a folder moved under another parent: its meetings are found under the new ancestors only', () => {
    const s = db();
    const a = makeMeeting(s, { title: 'A', folderPath: 'Old/Team' });
    makeMeeting(s, { title: 'Other', folderPath: 'New' });
    said(s, a, 'the offsite');
    const team = s.prepare("SELECT id FROM folders WHERE path = 'Old/Team'").get() as { id: string };
    const fresh = s.prepare("SELECT id FROM folders WHERE path = 'New'").get() as { id: string };
    s.prepare("UPDATE folders SET parent_id = ?, path = 'New/Team' WHERE id = ?").run(fresh.id, team.id);
    expect(listed(s, { folderPath: 'Old' })).toEqual({ titles: [], total: 0 });
    expect(listed(s, { folderPath: 'New' }).titles.sort()).toEqual(['A', 'Other']);
    expect(found(s, { query: 'offsite', folderPath: 'New' })).toEqual(['A']);
    expect(found(s, { query: 'offsite', folderPath: 'Old' })).toEqual([]);
  });

  it('pages through a tag newest first with exact totals, deep offsets included', () => {
    const s = db();
    const ids = Array.from({ length: 30 }, (_, i) => makeMeeting(s, { title: `M${String(i).padStart(2, '0')}`, folderPath: i % 3 ? 'Acme' : 'Acme/Sub', startedAt: new Date(Date.UTC(2026, 0, 1 + i)).toISOString() }));
    ids.forEach((id, i) => i % 2 === 0 && makeParticipant(s, id, { name: 'Yuki Tanaka' }));
    const titles = (filter: Parameters<typeof listMeetings>[1], offset: number) => listMeetings(s, filter, { limit: 4, offset }).meetings.map((m) => m.title);
    expect(titles({ folderPath: 'Acme' }, 0)).toEqual(['M29', 'M28', 'M27', 'M26']);
    expect(titles({ folderPath: 'Acme' }, 28)).toEqual(['M01', 'M00']);
    expect(titles({ participant: 'yuki' }, 13)).toEqual(['M02', 'M00']);
    expect(titles({ participant: 'yuki', folderPath: 'Acme/Sub' }, 0)).toEqual(['M24', 'M18', 'M12', 'M06']);
    expect(listMeetings(s, { participant: 'yuki', folderPath: 'Acme/Sub' }, page).pagination.total).toBe(5);
    expect(listMeetings(s, { participant: 'yuki', from: '2026-01-10', to: '2026-01-20' }, page).pagination.total).toBe(5);
  });

  it('deleting meetings, summaries and transcripts leaves the search index consistent', () => {
    const s = db();
    const a = makeMeeting(s, { title: 'A', folderPath: 'Acme', note: 'Kickoff notes' });
    said(s, a, 'the kickoff');
    makeSummary(s, a, { content: 'Kickoff summary' });
    makeParticipant(s, a, { name: 'Yuki Tanaka' });
    s.prepare('DELETE FROM meetings WHERE id = ?').run(a);
    searchIndexConsistent(s);
    expect(searchTranscripts(s, { query: 'kickoff' }, page).pagination.total).toBe(0);
    expect((s.prepare('SELECT count(*) AS n FROM meeting_tags').get() as { n: number }).n).toBe(0);
  });
});

describe('the tags column', () => {
  it('is never matched by the words searched, even a word spelled like a tag', () => {
    const s = db();
    const series = makeSeries(s, { id: 'ser_x' });
    const a = makeMeeting(s, { title: 'A', folderPath: 'Acme', seriesId: series, startedAt: '2026-05-17T09:30:00.000Z' });
    said(s, a, 'the budget');
    makeParticipant(s, a, { name: 'Yuki' });
    const tags = (s.prepare('SELECT search_tags FROM meetings WHERE id = ?').get(a) as { search_tags: string }).search_tags.split(' ');
    // Folder, series, the name's word, the name itself (migration 0018), the dates.
    expect(tags.slice(3)).toEqual(['h1', 'y2026', 'm202605', 'd20260517']);
    expect(tags).toHaveLength(7);
    for (const tag of tags) expect(searchTranscripts(s, { query: tag }, page).pagination.total).toBe(0);
    expect(searchTranscripts(s, { query: 'budget', seriesId: series }, page).pagination.total).toBe(1);
  });
});

describe('syntheo doctor --repair-search', () => {
  it('makes the participant words index and meeting_tags again, with the tags of every meeting', () => {
    const s = db();
    const a = makeMeeting(s, { title: 'A', folderPath: 'Acme' });
    said(s, a, 'the pricing');
    makeParticipant(s, a, { name: 'Yuki Tanaka' });
    s.exec("UPDATE meetings SET search_tags = ''; DROP TABLE meeting_tags; DROP TABLE participant_words_fts; DROP VIEW meeting_search_tags");
    expect(checkIntegrity(s, { full: false }).missing).toEqual(expect.arrayContaining(['table meeting_tags', 'table participant_words_fts', 'view meeting_search_tags']));
    expect(checkIntegrity(s, { full: false }).searchOnly).toBe(true);
    repairSearchIndex(s);
    expect(checkIntegrity(s, { full: false }).missing).toEqual([]);
    expect(listed(s, { participant: 'yuki', folderPath: 'Acme' })).toEqual({ titles: ['A'], total: 1 });
    expect(found(s, { query: 'pricing', participant: 'tanaka', folderPath: 'acme' })).toEqual(['A']);
    const day = (s.prepare('SELECT started_at FROM meetings WHERE id = ?').pluck().get(a) as string).slice(0, 10);
    expect(found(s, { query: 'pricing', from: day, to: day })).toEqual(['A']);
    searchIndexConsistent(s);
  });
});

describe('migration of a database made before the filter indexes', () => {
  it('fills search_tags, meeting_tags, participant words and the tags column from the existing rows', () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = join(dir, 'old.db');
      // The schema as migrations 0000-0008 left it, with rows written then.
      const old = databaseMigratedTo(path, 8);
      const now = '2026-03-01T10:00:00.000Z';
      old.exec(`INSERT INTO folders (id, path, name, parent_id, created_at) VALUES ('fld_a', 'Acme', 'Acme', NULL, '${now}'), ('fld_b', 'Acme/Launch', 'Launch', 'fld_a', '${now}');
        INSERT INTO series (id, title, cadence, created_at) VALUES ('ser_1', 'Weekly', 'weekly', '${now}');
        INSERT INTO meetings (id, title, started_at, folder_id, series_id, note, created_at, updated_at) VALUES
          ('mtg_1', 'Launch sync', '2026-03-01T10:00:00.000Z', 'fld_b', 'ser_1', 'Pricing notes', '${now}', '${now}'),
          ('mtg_2', 'Other', '2026-03-02T10:00:00.000Z', NULL, NULL, 'Pricing elsewhere', '${now}', '${now}');
        INSERT INTO participants (id, meeting_id, name, email, position) VALUES ('ppl_1', 'mtg_1', 'Yuki Tanaka', 'yuki@acme.test', 0), ('ppl_2', 'mtg_2', 'Omar', NULL, 0);`);
      old.close();

      const migrated = openDatabase(path, { create: false });
      try {
        const s = migrated.sqlite;
        expect(listed(s, { participant: 'tanaka' })).toEqual({ titles: ['Launch sync'], total: 1 });
        expect(listed(s, { folderPath: 'Acme', seriesId: 'ser_1' })).toEqual({ titles: ['Launch sync'], total: 1 });
        expect(found(s, { query: 'pricing', folderPath: 'Acme' })).toEqual(['Launch sync']);
        expect(found(s, { query: 'pricing', participant: 'yuki' })).toEqual(['Launch sync']);
        expect(found(s, { query: 'pricing', participant: 'omar' })).toEqual(['Other']);
        expect(found(s, { query: 'pricing' })).toEqual(['Launch sync', 'Other']);
        searchIndexConsistent(s);
        // New writes keep it current.
        makeParticipant(s, 'mtg_2', { name: 'Yuki Mori' });
        expect(found(s, { query: 'pricing', participant: 'yuki' })).toEqual(['Launch sync', 'Other']);
      } finally {
        migrated.close();
      }
    } finally {
      cleanup();
    }
  });
});
