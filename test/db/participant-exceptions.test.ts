// A participant fragment held by most names and e-mails (a letter, a domain) passes most meetings: the few it fails
// (every participant lacks it, or there is none) are found from the names and e-mails lacking it and the tag `hx`
// (migration 0024), and left out of lists and searches. Checked against every meeting's participants matched.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { checkIntegrity } from '../../src/db/queries/integrity.js';
import { compileMeetingFilter, listMeetings } from '../../src/db/queries/meetings.js';
import { searchTranscripts, type SearchFilter, type SearchOptions } from '../../src/db/queries/search.js';
import { BLOCK, buildSearchBits, wrongSearchBits } from '../../src/db/queries/search-bits.js';
import { databaseMigratedTo, tempDir, testDbs } from '../support/db.js';
import { makeMeeting, makeParticipant, makeSummary } from '../support/factories.js';
import { FRAGMENTS, holding, LIST_FILTERS, seed, seedCommonWords, seedManyNames, seedSpaces } from '../support/participant-exceptions.js';

const db = testDbs();

type Sqlite = ReturnType<typeof db>;

/**
 * The fragment's list with `filter`, at each offset, is the filter's list kept to the meetings `held` (newest first);
 * returns how many those are.
 */
function expectListedAsHeld(s: Sqlite, fragment: string, filter: object, held: string[], offsets: (n: number) => number[], limit: number): number {
  const expected = listMeetings(s, filter, { limit: 10_000, offset: 0 }).meetings.map((m) => m.id).filter((id) => held.includes(id));
  for (const offset of offsets(expected.length)) {
    const list = listMeetings(s, { ...filter, participant: fragment }, { limit, offset });
    expect({ fragment, filter, offset, total: list.pagination.total, ids: list.meetings.map((m) => m.id) }).toEqual({
      fragment,
      filter,
      offset,
      total: expected.length,
      ids: expected.slice(offset, offset + limit),
    });
  }
  return expected.length;
}

/** A search's first page is the one of matching every meeting's participants (`exceptions: false`), which finds some. */
function expectSearchedAsEveryParticipant(s: Sqlite, filter: SearchFilter, options: { bits?: boolean } = {}): void {
  const reference = searchTranscripts(s, filter, { limit: 5, offset: 0 }, { exceptions: false });
  expect(reference.pagination.total, JSON.stringify(filter)).toBeGreaterThan(0);
  const found = searchTranscripts(s, filter, { limit: 5, offset: 0 }, options);
  expect({ filter, options, total: found.pagination.total, hits: found.hits.map((h) => [h.meeting_id, h.offset]) }).toEqual({
    filter,
    options,
    total: reference.pagination.total,
    hits: reference.hits.map((h) => [h.meeting_id, h.offset]),
  });
}

describe('a participant fragment in most names', () => {
  it('leaves out the few meetings it fails, in lists and searches, as matching every participant does', () => {
    const s = db();
    const meetings = seed(s, BLOCK + 600);
    const all = new Set(meetings);
    for (const fragment of FRAGMENTS) {
      const held = holding(s, fragment);
      expect(held.length, fragment).toBe(280);
      const parts = compileMeetingFilter(s, { participant: fragment }).parts;
      expect(parts.map((p) => p.except)).toEqual([[...all].filter((id) => !held.includes(id)).sort()]);
      // Matched on every meeting's participants instead: the way the exceptions are checked against.
      expect(compileMeetingFilter(s, { participant: fragment }, { exceptions: false }).parts[0]!.except).toBeUndefined();
      for (const filter of LIST_FILTERS)
        expect(expectListedAsHeld(s, fragment, filter, held, (n) => [0, 3, 20, n - 2, n], 20), JSON.stringify(filter)).toBeGreaterThan(5);
    }
    const compare = () => {
      for (const fragment of FRAGMENTS)
        for (const query of ['the', 'the and', 'zebra', 'plan8'])
          for (const more of [{}, { folderPath: 'Legal' }, { from: '2026-01-10T12:00:00.000Z', to: '2026-01-25' }] as Omit<SearchFilter, 'query'>[]) {
            const filter = { query, participant: fragment, ...more };
            for (const options of [{}, { bits: false }]) expectSearchedAsEveryParticipant(s, filter, options);
            if (query === 'the') {
              const deep = { limit: 6, offset: 1997 };
              expect(searchTranscripts(s, filter, deep).hits.map((h) => [h.meeting_id, h.snippet])).toEqual(searchTranscripts(s, filter, deep, { exceptions: false }).hits.map((h) => [h.meeting_id, h.snippet]));
            }
          }
    };
    // From FTS5, then from the bitmaps (the exceptions' passages set aside).
    compare();
    buildSearchBits(s);
    compare();
    expect(checkIntegrity(s, { full: true }).search).toEqual([]);
  }, 240_000);

  it('keeps the tag of a meeting without participants as they come and go, and passes every meeting when none lacks it', () => {
    const s = db();
    seed(s, 50);
    const tags = (id: string) => (s.prepare('SELECT search_tags FROM meetings WHERE id = ?').pluck().get(id) as string).split(' ');
    const rows = () => s.prepare("SELECT meeting_id FROM meeting_tags WHERE tag = 'hx' ORDER BY 1").pluck().all() as string[];
    const bare = s.prepare("SELECT id FROM meetings m WHERE NOT EXISTS (SELECT 1 FROM participants p WHERE p.meeting_id = m.id) ORDER BY 1").pluck().all() as string[];
    expect(bare).toHaveLength(40);
    expect(rows()).toEqual(bare);
    const m = makeMeeting(s, { startedAt: '2027-01-01T00:00:00.000Z' });
    expect(tags(m)).toContain('hx');
    makeParticipant(s, m, { name: 'Ann Lee', email: 'a@example.test' });
    expect(tags(m)).not.toContain('hx');
    s.prepare('DELETE FROM participants WHERE meeting_id = ?').run(m);
    expect(tags(m)).toContain('hx');
    // The word `hx` said in a passage is not the tag.
    s.prepare("INSERT INTO search_passages (meeting_id, kind, ref_id, text, tags) SELECT id, 'note', id, 'hx marks the spot', search_tags FROM meetings WHERE id = ?").run(bare[1]);
    expect(searchTranscripts(s, { query: 'hx' }, { limit: 5, offset: 0 }).pagination.total).toBe(1);
    expect(checkIntegrity(s, { full: true }).search).toEqual([]);
    // Every meeting that lacks the fragment gone: the filter passes every meeting, and is no condition at all.
    s.prepare(`DELETE FROM meetings WHERE id IN (SELECT value FROM json_each(?))`).run(JSON.stringify(compileMeetingFilter(s, { participant: 'e' }).parts[0]!.except));
    expect(compileMeetingFilter(s, { participant: 'e' }).parts).toEqual([]);
    expect(listMeetings(s, { participant: 'e' }, { limit: 5, offset: 0 }).pagination.total).toBe(280);
  });

  it('matches every participant when too many meetings may lack it', () => {
    const s = db();
    seed(s, 0);
    // 1,001 more meetings without participants: more candidates than MAX_PARTICIPANT_EXCEPTIONS.
    s.transaction(() => {
      for (let i = 0; i < 1001; i++) makeMeeting(s, { startedAt: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString() });
    })();
    const part = compileMeetingFilter(s, { participant: 'e' }).parts[0]!;
    expect(part.except).toBeUndefined();
    expect(part.probe).toBeDefined();
    expect(listMeetings(s, { participant: 'e' }, { limit: 5, offset: 0 }).pagination.total).toBe(280);
  });

  it('in several words and every recent meeting: leaves out the few meetings it fails rather than reading its words', () => {
    const s = db();
    const meetings = seedCommonWords(s, 300);
    const oldest = meetings.slice(0, 12).sort();
    expect(compileMeetingFilter(s, { participant: 'a' }).parts.map((p) => p.except)).toEqual([oldest]);
    // In half the meetings (a recent one lacks it): its words' tags.
    expect(compileMeetingFilter(s, { participant: 'i' }).parts.map((p) => [p.tags !== undefined && p.tags.length > 1, p.except])).toEqual([[true, undefined]]);
    for (const fragment of ['a', 'i']) {
      const held = holding(s, fragment);
      expect(held.length, fragment).toBe(fragment === 'a' ? 188 : 102);
      for (const filter of [{}, { folderPath: 'Legal' }, { from: '2026-01-02', to: '2026-01-05' }]) {
        expectListedAsHeld(s, fragment, filter, held, (n) => [0, 7, n - 3], 10);
        for (const query of ['the', 'the and', 'plan7']) expectSearchedAsEveryParticipant(s, { ...filter, query, participant: fragment });
      }
    }
  });

  it('in many names but failing too many meetings for their list: each match probed or every participant matched, alike', () => {
    const s = db();
    seedManyNames(s, BLOCK + 600);
    const held = holding(s, 'zq');
    expect(held).toHaveLength(800);
    // Its 800 names and 800 e-mails; the 1,200 meetings it fails, some among the newest, are not looked for.
    const part = compileMeetingFilter(s, { participant: 'zq' }).parts[0]!;
    expect([part.except, part.probe !== undefined, part.manyTags?.().length]).toEqual([undefined, true, 1600]);
    for (const filter of LIST_FILTERS) expectListedAsHeld(s, 'zq', filter, held, (n) => [0, 7, n - 3], 10);
    // The matches in the meetings holding it, read from FTS5 and the passages' meetings alone.
    const plain = (query: string) =>
      s
        .prepare('SELECT count(*) FROM search_fts f JOIN search_passages p ON p.id = f.rowid WHERE search_fts MATCH ? AND p.meeting_id IN (SELECT value FROM json_each(?))')
        .pluck()
        .get(`{text} : (${query.split(' ').map((w) => `"${w}"`).join(' ')})`, JSON.stringify(held)) as number;
    const compare = () => {
      for (const query of ['the', 'the and', 'zebra', 'plan7 zebra'])
        for (const more of [{}, { folderPath: 'Legal' }, { from: '2026-01-10T12:00:00.000Z', to: '2026-02-25' }])
          for (const page of [{ limit: 5, offset: 0 }, { limit: 5, offset: 1998 }]) {
            const filter = { query, participant: 'zq', ...more };
            const hits = (r: ReturnType<typeof searchTranscripts>) => ({ total: r.pagination.total, hits: r.hits.map((h) => [h.meeting_id, h.offset, h.snippet]) });
            const found = hits(searchTranscripts(s, filter, page));
            // `plan7 zebra` is said once (in a meeting holding `zq`).
            if (Object.keys(more).length === 0) expect({ filter, total: found.total }).toEqual({ filter, total: plain(query) });
            if (Object.keys(more).length === 0 || query !== 'plan7 zebra') expect(found.total, JSON.stringify(filter)).toBeGreaterThan(0);
            for (const way of [{ participants: 'probed' }, { participants: 'joined' }, { participants: 'listed' }, { bits: false }] as SearchOptions[])
              expect({ filter, page, way, ...hits(searchTranscripts(s, filter, page, way)) }).toEqual({ filter, page, way, ...found });
          }
    };
    // From FTS5 (each match probed), then from the bitmaps (`the` and `and`: the names' lists ORed; `zebra` and `plan7`,
    // not dense, from their said lists: probed, or with the names' lists asked for, ORed).
    compare();
    buildSearchBits(s, { saidWords: 40 });
    expect(s.prepare("SELECT term FROM search_bits_terms WHERE term IN ('said:zebra', 'said:plan7') AND built > 0 ORDER BY term").pluck().all()).toEqual(['said:plan7', 'said:zebra']);
    compare();
  }, 120_000);

  it("in many names, once its gram's bits are built: read from them, the passages above them and those marked checked on their meetings' grams; the doctor compares them with the participants matched as the filter matches them", () => {
    const s = db();
    const meetings = seedManyNames(s, BLOCK + 600);
    buildSearchBits(s, { saidWords: 40 });
    // `zq` (1,600 names and e-mails, 800 meetings) and `zq1` (888, 444) are their grams; ` lee` (800 names) its rarest
    // triple's, no name holding it without ` lee`.
    const gram = (fragment: string) => compileMeetingFilter(s, { participant: fragment }).parts[0]!.gram?.();
    expect(['zq', ' lee', 'zq1'].map(gram)).toEqual(['q7a71', expect.stringMatching(/^q/), 'q7a7131']);
    const built = (token: string) => s.prepare('SELECT built FROM search_bits_terms WHERE term = ?').pluck().get(`gram:${token}`) as number | undefined;
    expect([built('q7a71'), built(gram(' lee')!), built('q7a7131')]).toEqual([2, 2, 2]);
    const hits = (r: ReturnType<typeof searchTranscripts>) => ({ total: r.pagination.total, hits: r.hits.map((h) => [h.meeting_id, h.offset, h.snippet]) });
    /** Each search the same from the gram's bits (by default), the names' lists and FTS5 with every meeting's participants. */
    const compare = () => {
      for (const participant of ['zq', ' lee', 'zq1'])
        for (const query of ['the', 'the and', 'zebra'])
          for (const page of [{ limit: 5, offset: 0 }, { limit: 5, offset: 1998 }]) {
            const filter = { query, participant };
            const found = hits(searchTranscripts(s, filter, page));
            expect(found.total, JSON.stringify(filter)).toBeGreaterThan(0);
            for (const way of [{ participants: 'listed' }, { bits: false }] as SearchOptions[]) expect({ filter, page, way, ...hits(searchTranscripts(s, filter, page, way)) }).toEqual({ filter, page, way, ...found });
          }
    };
    compare();
    expect(wrongSearchBits(s)).toEqual([]);
    // Read from the gram's bits: without its rows, `zq` finds only the passages above them; the doctor says which term.
    const the = { query: 'the', participant: 'zq' };
    const total = searchTranscripts(s, the, { limit: 5, offset: 0 }).pagination.total;
    s.exec("CREATE TEMP TABLE kept AS SELECT * FROM search_bits WHERE term = 'gram:q7a71'; DELETE FROM search_bits WHERE term = 'gram:q7a71'");
    expect(searchTranscripts(s, the, { limit: 5, offset: 0 }).pagination.total).toBeLessThan(total);
    expect(wrongSearchBits(s)).toEqual(['gram:q7a71']);
    s.exec("INSERT INTO search_bits SELECT * FROM kept; DROP TABLE kept");
    // Participants changed after the bits were built: the passages of their meetings, marked, are checked on their tags
    // until a round sets their bits again.
    s.transaction(() => {
      s.prepare('DELETE FROM participants WHERE meeting_id = ?').run(meetings[0]);
      for (const i of [4, 9, 14]) makeParticipant(s, meetings[i]!, { name: `Zq${i} Lee`, email: null });
    })();
    expect(s.prepare('SELECT count(*) FROM search_bits_dirty').pluck().get()).toBeGreaterThan(0);
    compare();
    buildSearchBits(s, { saidWords: 40 });
    expect(s.prepare('SELECT count(*) FROM search_bits_dirty').pluck().get()).toBe(0);
    compare();
    expect(wrongSearchBits(s)).toEqual([]);
    // Passages written above the bits, in meetings holding `zq` (i % 5 < 2) and not: more of them match `the` than a
    // gram checks on the meetings (GRAM_CHECKS, 64: read on their tags), fewer match `zebra` (on their meetings' grams).
    const newest = s.prepare('SELECT max(id) FROM search_passages').pluck().get() as number;
    s.transaction(() => {
      for (let i = 0; i < 400; i++) makeSummary(s, meetings[(i * 7) % meetings.length]!, { title: `N${i}`, content: `the plan${i % 40}${i % 9 === 0 ? ' zebra' : ''}`, position: 1000 + i });
    })();
    const above = (word: string) => s.prepare(`SELECT count(*) FROM search_fts WHERE search_fts MATCH ? AND rowid > ?`).pluck().get(`{text} : ${word}`, newest) as number;
    expect([above('the') > 64, above('zebra') <= 64, above('zebra') > 0]).toEqual([true, true, true]);
    compare();
  }, 120_000);

  it('in every name and no e-mail (a space): the few meetings it fails found from the names lacking it', () => {
    const s = db();
    const meetings = seedSpaces(s, BLOCK + 600);
    const held = holding(s, ' ');
    expect(held).toHaveLength(2000 - 395);
    expect(compileMeetingFilter(s, { participant: ' ' }).parts.map((p) => p.except)).toEqual([meetings.filter((id) => !held.includes(id)).sort()]);
    for (const filter of LIST_FILTERS) expectListedAsHeld(s, ' ', filter, held, (n) => [0, 7, n - 3], 10);
    for (const query of ['the', 'the and', 'zebra']) expectSearchedAsEveryParticipant(s, { query, participant: ' ' });
  });

  it('tags the meetings without participants written before migration 0024', () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = join(dir, 'old.db');
      const old = databaseMigratedTo(path, 23);
      const now = '2026-03-01T10:00:00.000Z';
      const insert = old.prepare("INSERT INTO meetings (id, title, started_at, note, created_at, updated_at) VALUES (?, ?, ?, '', ?, ?)");
      for (const id of ['mtg_a', 'mtg_b']) insert.run(id, 'Plan', now, now, now);
      old.prepare("INSERT INTO participants (id, meeting_id, name, email) VALUES ('par_1', 'mtg_b', 'Ann', NULL)").run();
      old.prepare("INSERT INTO search_passages (meeting_id, kind, ref_id, text, tags) SELECT id, 'note', id, 'the plan', search_tags FROM meetings").run();
      old.close();
      const migrated = openDatabase(path, { create: false });
      try {
        const s = migrated.sqlite;
        expect(s.prepare("SELECT meeting_id FROM meeting_tags WHERE tag = 'hx'").pluck().all()).toEqual(['mtg_a']);
        expect(s.prepare("SELECT meeting_id FROM search_passages WHERE instr(' ' || tags || ' ', ' hx ') > 0").pluck().all()).toEqual(['mtg_a']);
        expect(checkIntegrity(s, { full: true }).search).toEqual([]);
      } finally {
        migrated.close();
      }
    } finally {
      cleanup();
    }
  });
});
