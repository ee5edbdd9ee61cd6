// A participant fragment held by most names and e-mails, on PostgreSQL: the few meetings it fails (tag `hx`, migration
// 0017, and the names and e-mails lacking it) are left out of lists and searches, with the answers of matching every
// meeting's participants and of SQLite on the same data (copied).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { needs } from '../support/system-tools.js';
import { genericStatements, pgDatabaseMigratedTo, startPostgres, type PgCluster } from '../support/postgres.js';
import { tempDir } from '../support/db.js';
import { makeParticipant } from '../support/factories.js';
import { FRAGMENTS, holding, LIST_FILTERS, seed, seedCommonWords, seedGramStrays, seedManyNames, seedOddEmails, seedSpaces } from '../support/participant-exceptions.js';
import { MAX_GRAM_STRAYS } from '../../src/db/queries/participant-words.js';
import { copyDatabase, openStore } from '../../src/db/engine.js';
import { openDatabase, type Sqlite } from '../../src/db/open.js';
import { compileTags, listMeetings } from '../../src/db/postgres/meetings.js';
import { searchTranscripts, type SearchOptions } from '../../src/db/postgres/search.js';
import type { SearchFilter } from '../../src/db/queries/search.js';
import type { Store } from '../../src/db/store.js';

describe.skipIf(needs('postgresql'))('PostgreSQL: a participant fragment in most names', () => {
  let cluster: PgCluster;
  let url: string;
  let pool: pg.Pool;
  let lite: Store;
  let held: Map<string, string[]>;
  let meetings: string[];
  const files = tempDir();

  beforeAll(async () => {
    cluster = await startPostgres();
    url = await cluster.createDatabase('exceptions');
    const path = join(files.dir, 'seed.db');
    const db = openDatabase(path, { create: true });
    try {
      // Past a whole block of 4,096 passage ids: the bitmaps are built for it.
      meetings = seed(db.sqlite, 4096 + 600);
      held = new Map(FRAGMENTS.map((f) => [f, holding(db.sqlite, f)]));
    } finally {
      db.close();
    }
    await copyDatabase(path, url);
    pool = new pg.Pool({ connectionString: url, max: 4 });
    lite = await openStore(path, { create: false });
  }, 120_000);
  afterAll(async () => {
    await pool?.end();
    await lite?.close();
    cluster?.destroy();
    files.cleanup();
  });

  /** A database of its own, seeded on SQLite and copied: both Stores on it, and a plain pool on PostgreSQL's. */
  async function seeded(name: string, fill: (s: Sqlite) => string[]) {
    const path = join(files.dir, `${name}.db`);
    const db = openDatabase(path, { create: true });
    let ids: string[];
    try {
      ids = fill(db.sqlite);
    } finally {
      db.close();
    }
    const copied = await cluster.createDatabase(name);
    await copyDatabase(path, copied);
    return { ids, q: new pg.Pool({ connectionString: copied, max: 4 }), pgStore: await openStore(copied, { create: false }), liteStore: await openStore(path, { create: false }) };
  }

  it('finds the meetings it fails, and lists and searches without them as SQLite and every participant matched do', async () => {
    const pgStore = await openStore(url, { create: false });
    // The Store reads the names and e-mails holding a fragment, and its gram, by statements planned once for any fragment.
    const statements = genericStatements('FROM participant_handles x', 'WITH f AS (SELECT lower($1) AS l)');
    try {
      for (const fragment of FRAGMENTS) {
        const holding = held.get(fragment)!;
        expect((await compileTags(pool, { participant: fragment }))?.except).toEqual(meetings.filter((id) => !holding.includes(id)).sort());
        expect(await compileTags(pool, { participant: fragment }, { exceptions: false })).toBeUndefined();
        for (const filter of LIST_FILTERS)
          for (const offset of [0, 3, 40, 150]) {
            const page = { limit: 20, offset };
            const f = { ...filter, participant: fragment };
            const found = await pgStore.meetings.list(f, page);
            const ids = (r: typeof found) => ({ total: r.pagination.total, ids: r.meetings.map((m) => m.id) });
            expect({ f, offset, ...ids(found) }).toEqual({ f, offset, ...ids(await lite.meetings.list(f, page)) });
            expect({ f, offset, ...ids(found) }).toEqual({ f, offset, ...ids(await listMeetings(pool, f, page, { exceptions: false })) });
          }
      }
      // Searched from the postings, then (the bitmaps built) from the bitmaps, the window read from the bits or walked.
      const compare = async (options: SearchOptions) => {
        for (const fragment of FRAGMENTS)
          for (const query of ['the', 'the and', 'zebra'])
            // Dates: days only; a month (kept as bitmaps); most of a month and the next month's days, from noon.
            for (const more of [
              {},
              { folderPath: 'Legal' },
              { from: '2026-01-10T12:00:00.000Z', to: '2026-01-25' },
              { from: '2026-01-01', to: '2026-01-31' },
              { from: '2026-01-03T12:00:00.000Z', to: '2026-02-02' },
            ] as Omit<SearchFilter, 'query'>[])
              for (const page of [{ limit: 5, offset: 0 }, { limit: 5, offset: 1998 }]) {
                const filter = { query, participant: fragment, ...more };
                const hits = (r: Awaited<ReturnType<typeof searchTranscripts>>) => ({ total: r.pagination.total, hits: r.hits.map((h) => [h.meeting_id, h.snippet]) });
                const found = hits(await searchTranscripts(pool, filter, page, options));
                expect(found.total, JSON.stringify(filter)).toBeGreaterThan(0);
                expect({ filter, page, options, ...found }).toEqual({ filter, page, options, ...hits(await searchTranscripts(pool, filter, page, { exceptions: false })) });
                expect({ filter, page, total: found.total }).toEqual({ filter, page, total: (await lite.search.transcripts(filter, page)).pagination.total });
                if (Object.keys(options).length === 0) expect({ filter, page, ...hits(await pgStore.search.transcripts(filter, page)) }).toEqual({ filter, page, ...found });
              }
      };
      await compare({});
      for (let i = 0; i < 100 && ((await pgStore.admin.maintain())?.bitmaps?.units ?? 0) > 0; i++);
      expect((await pool.query("SELECT count(*)::int AS n FROM search_bitmap_terms WHERE kind = 'w' AND built > 0")).rows[0].n).toBeGreaterThan(0);
      await compare({});
      await compare({ window: 'bits' });
      // The dates read from their tags (the bitmaps' months), not checked on each match's meeting.
      await compare({ filters: 'tags' });
      expect(statements.generic.length).toBeGreaterThan(0);
      expect(statements.of('WITH f AS (SELECT lower($1) AS l)').length).toBeGreaterThan(0);
    } finally {
      statements.spy.mockRestore();
      await pgStore.close();
    }
  }, 240_000);

  it('in several words and every recent meeting: leaves out the few meetings it fails, as SQLite does', async () => {
    const { ids, q, pgStore, liteStore } = await seeded('common', (s) => seedCommonWords(s, 300));
    try {
      expect((await compileTags(q, { participant: 'a' }))?.except).toEqual(ids.slice(0, 12).sort());
      // Those from its own gram's bits (1 character), by a statement planned once, the names and e-mails not scanned.
      const statements = genericStatements('lack AS MATERIALIZED', 'FROM participant_handles x');
      try {
        const f = { query: 'the', participant: 'a' };
        const page = { limit: 5, offset: 0 };
        expect((await pgStore.search.transcripts(f, page)).pagination.total).toBe((await liteStore.search.transcripts(f, page)).pagination.total);
        expect([statements.generic.length, statements.ran('FROM participant_handles x')]).toEqual([1, 0]);
      } finally {
        statements.spy.mockRestore();
      }
      // In half the meetings (a recent one lacks it): its words' tags.
      const i = await compileTags(q, { participant: 'i' });
      expect([i?.except, (i?.participant?.group.length ?? 0) > 1]).toEqual([undefined, true]);
      for (const participant of ['a', 'i'])
        for (const filter of [{}, { folderPath: 'Legal' }, { from: '2026-01-02', to: '2026-01-05' }]) {
          for (const offset of [0, 7, 90]) {
            const f = { ...filter, participant };
            const page = { limit: 10, offset };
            const list = async (s: Store) => {
              const r = await s.meetings.list(f, page);
              return { f, offset, total: r.pagination.total, ids: r.meetings.map((m) => m.id) };
            };
            expect(await list(pgStore)).toEqual(await list(liteStore));
          }
          for (const query of ['the', 'the and', 'plan7']) {
            const f = { ...filter, query, participant };
            const page = { limit: 5, offset: 0 };
            const found = await searchTranscripts(q, f, page);
            const reference = await searchTranscripts(q, f, page, { exceptions: false });
            expect(reference.pagination.total, JSON.stringify(f)).toBeGreaterThan(0);
            expect({ f, total: found.pagination.total, hits: found.hits.map((h) => [h.meeting_id, h.snippet]) }).toEqual({
              f,
              total: reference.pagination.total,
              hits: reference.hits.map((h) => [h.meeting_id, h.snippet]),
            });
            expect({ f, total: found.pagination.total }).toEqual({ f, total: (await liteStore.search.transcripts(f, page)).pagination.total });
          }
        }
    } finally {
      await Promise.all([pgStore.close(), liteStore.close(), q.end()]);
    }
  }, 120_000);

  it('in many names but failing too many meetings for their list: each match probed or every participant matched, as SQLite does', async () => {
    const { q, pgStore, liteStore } = await seeded('many', (s) => seedManyNames(s, 4096 + 600));
    try {
      // Neither its names as tags (1,600) nor the meetings it fails (1,200, some among the newest): not `except: []`.
      expect(await compileTags(q, { participant: 'zq' })).toBeUndefined();
      // A fragment in a few words (`zq199`: 4 words, one meeting each; `zq12`: 12 words) listed with dates: its words'
      // meetings drive, as their total is not counted from the bits, rather than every meeting in the range probed.
      const listed: number[] = [];
      for (const participant of ['zq199', 'zq12'])
        for (const filter of [{ from: '2026-01-02' }, { to: '2026-02-05T10:30:00.000Z' }, { from: '2026-02-20', to: '2026-03-20' }])
          for (const offset of [0, 3]) {
            const f = { ...filter, participant };
            const page = { limit: 5, offset };
            const list = async (s: Store) => {
              const r = await s.meetings.list(f, page);
              return { f, offset, total: r.pagination.total, ids: r.meetings.map((m) => m.id) };
            };
            const found = await list(pgStore);
            expect(found).toEqual(await list(liteStore));
            listed.push(found.total);
          }
      expect(Math.max(...listed)).toBeGreaterThan(5);
      for (const filter of [{}, { folderPath: 'Legal' }, { from: '2026-01-02', to: '2026-02-05' }])
        for (const offset of [0, 7, 790]) {
          const f = { ...filter, participant: 'zq' };
          const page = { limit: 10, offset };
          const list = async (s: Store) => {
            const r = await s.meetings.list(f, page);
            return { f, offset, total: r.pagination.total, ids: r.meetings.map((m) => m.id) };
          };
          expect(await list(pgStore)).toEqual(await list(liteStore));
        }
      const compare = async () => {
        for (const query of ['the', 'the and', 'zebra', 'plan7 zebra'])
          for (const more of [{}, { folderPath: 'Legal' }, { from: '2026-01-10T12:00:00.000Z', to: '2026-02-25' }])
            for (const page of [{ limit: 5, offset: 0 }, { limit: 5, offset: 1998 }]) {
              const f = { ...more, query, participant: 'zq' };
              const hits = (r: Awaited<ReturnType<typeof searchTranscripts>>) => ({ total: r.pagination.total, hits: r.hits.map((h) => [h.meeting_id, h.offset, h.snippet]) });
              const found = hits(await searchTranscripts(q, f, page));
              if (Object.keys(more).length === 0 || query !== 'plan7 zebra') expect(found.total, JSON.stringify(f)).toBeGreaterThan(0);
              for (const way of [{ participants: 'probed' }, { participants: 'joined' }] as SearchOptions[])
                expect({ f, page, way, ...hits(await searchTranscripts(q, f, page, way)) }).toEqual({ f, page, way, ...found });
              expect({ f, page, total: found.total }).toEqual({ f, page, total: (await liteStore.search.transcripts(f, page)).pagination.total });
            }
      };
      await compare();
      for (let i = 0; i < 100 && ((await pgStore.admin.maintain())?.bitmaps?.units ?? 0) > 0; i++);
      await compare();
    } finally {
      await Promise.all([pgStore.close(), liteStore.close(), q.end()]);
    }
  }, 120_000);

  it('in many names, failing too many meetings for their list, with a title fragment in several words: walked newest first, each meeting probed, counted from its gram', async () => {
    // `ing` in `planning` and `hiring` (two title words with bits), `ing ` in their pairs with the separator after:
    // their meetings merged as the page is walked, each probed for `zq` (1,600 names, 1,200 meetings failing it) until
    // the page's end, the total from `zq`'s gram's bits, not every meeting of the words gathered and probed.
    const { q, pgStore, liteStore } = await seeded('titled', (s) => {
      const ids = seedManyNames(s, 4096 + 600);
      s.prepare("UPDATE meetings SET title = CASE rowid % 3 WHEN 0 THEN 'Planning ' || rowid WHEN 1 THEN 'Hiring: ' || rowid ELSE title END").run();
      return ids;
    });
    const statements: string[] = [];
    const query = pg.Client.prototype.query;
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const config = args[0] as { text?: string } | string;
      statements.push(typeof config === 'string' ? config : (config.text ?? ''));
      return (query as (...a: unknown[]) => unknown).apply(this, args) as never;
    });
    try {
      for (const title of ['ing', 'ING ', 'ing: '])
        for (const filter of [{ participant: 'zq' }, { participant: 'zq', from: '2026-01-20' }])
          for (const offset of [0, 7, 150]) {
            const f = { ...filter, query: title };
            const page = { limit: 10, offset };
            const list = async (s: Store) => {
              const r = await s.meetings.list(f, page);
              return { f, offset, total: r.pagination.total, ids: r.meetings.map((m) => m.id) };
            };
            statements.length = 0;
            const found = await list(pgStore);
            expect(found.total, JSON.stringify(f)).toBeGreaterThan(160);
            expect(found).toEqual(await list(liteStore));
            // Without dates: the words' rows not gathered first.
            if (filter.from === undefined) expect(statements.filter((t) => t.includes('named AS MATERIALIZED')), JSON.stringify(f)).toEqual([]);
          }
    } finally {
      spy.mockRestore();
      await Promise.all([pgStore.close(), liteStore.close(), q.end()]);
    }
  }, 120_000);

  it('in many names, failing too many meetings for their list: those read from its gram when the matches cost more, as every participant matched gives', async () => {
    for (const strays of [3, 40]) {
      const name = `strays${strays}`;
      const { ids, q, pgStore, liteStore } = await seeded(name, (s) => seedGramStrays(s, 4096 + 600, strays));
      try {
        /** The meetings holding the fragment, by LIKE over every participant (SQLite's copy, or PostgreSQL's after deletes). */
        const holders = async (fragment: string) =>
          (
            await q.query<{ id: string }>("SELECT DISTINCT meeting_id AS id FROM participants WHERE name ILIKE $1 OR email ILIKE $1", [`%${fragment}%`])
          ).rows.map((r) => r.id);
        const failing = async (fragment: string) => {
          const holding = new Set(await holders(fragment));
          const existing = (await q.query<{ id: string }>('SELECT id FROM meetings')).rows.map((r) => r.id);
          return existing.filter((id) => !holding.has(id)).sort();
        };
        /** The meetings compileTags leaves out for a search willing to read `most`, those deleted since left out. */
        const excepted = async (participant: string, most: number) => {
          const except = (await compileTags(q, { participant }, { lacking: async () => most }))?.except;
          const existing = new Set((await q.query<{ id: string }>('SELECT id FROM meetings')).rows.map((r) => r.id));
          return except?.filter((id) => existing.has(id)).sort();
        };
        // ` lee`'s rarest triple has `strays` names lacking it: within MAX_GRAM_STRAYS, their meetings probed; past it, none read.
        expect(await failing('zq')).toHaveLength(1200);
        expect(await excepted('zq', 25_000)).toEqual(await failing('zq'));
        expect(await excepted(' lee', 25_000)).toEqual(strays <= MAX_GRAM_STRAYS ? await failing(' lee') : undefined);
        // More than the search would read: none (each match is then checked).
        expect(await excepted('zq', 1199)).toBeUndefined();
        expect(await compileTags(q, { participant: 'zq' }, { lacking: async () => 25_000, exceptions: false })).toBeUndefined();
        // The searches: the same answers as each match probed or joined to every participant holding it, and SQLite's
        // totals; the meetings it fails read for a common word (`the`, in 4 passages of 5), not for a rare one (`zebra`).
        const statements: string[] = [];
        const query = q.query.bind(q) as (...args: unknown[]) => unknown;
        (q as { query: unknown }).query = (...args: unknown[]) => {
          const text = args[0];
          statements.push(typeof text === 'string' ? text : (text as { text: string }).text);
          return query(...args);
        };
        const readsGram = async (f: SearchFilter) => {
          statements.length = 0;
          await searchTranscripts(q, f, { limit: 5, offset: 0 });
          return statements.filter((t) => t.includes('lack AS MATERIALIZED')).length;
        };
        // (Its own gram's, 2 characters, read first as far as the names' scan would read them, MAX_PARTICIPANT_EXCEPTIONS:
        // 1,200 are past it. Then as far as the search would read them: only for `the`.)
        expect([await readsGram({ query: 'the', participant: 'zq' }), await readsGram({ query: 'zebra', participant: 'zq' })]).toEqual([2, 1]);
        const compare = async (lite: boolean, options: SearchOptions = {}) => {
          for (const participant of strays <= MAX_GRAM_STRAYS ? ['zq', ' lee', 'ZQ1'] : [' lee'])
            for (const words of ['the', 'the and', 'zebra', 'plan7'])
              for (const more of [{}, { folderPath: 'Legal' }, { from: '2026-01-10T12:00:00.000Z', to: '2026-02-25' }])
                for (const page of [{ limit: 5, offset: 0 }, { limit: 5, offset: 1998 }]) {
                  const f = { ...more, query: words, participant };
                  const hits = (r: Awaited<ReturnType<typeof searchTranscripts>>) => ({ total: r.pagination.total, hits: r.hits.map((h) => [h.meeting_id, h.offset, h.snippet]) });
                  const found = hits(await searchTranscripts(q, f, page, options));
                  if (words !== 'zebra') expect(found.total, JSON.stringify(f)).toBeGreaterThan(0);
                  for (const way of [{ participants: 'probed' }, { participants: 'joined' }] as SearchOptions[])
                    expect({ f, page, way, ...hits(await searchTranscripts(q, f, page, way)) }).toEqual({ f, page, way, ...found });
                  if (lite) expect({ f, page, total: found.total }).toEqual({ f, page, total: (await liteStore.search.transcripts(f, page)).pagination.total });
                }
        };
        await compare(true);
        // Past the strays' bound, ` lee` is checked on each match as before: once is enough.
        if (strays > MAX_GRAM_STRAYS) continue;
        for (let i = 0; i < 100 && ((await pgStore.admin.maintain())?.bitmaps?.units ?? 0) > 0; i++);
        expect((await q.query("SELECT count(*)::int AS n FROM search_bitmap_terms WHERE kind = 'w' AND built > 0")).rows[0].n).toBeGreaterThan(0);
        // With statistics, a common word's matches are counted from the bitmaps, the meetings it fails taken away there.
        await q.query('ANALYZE');
        await compare(true);
        await compare(false, { window: 'bits' });
        // Meetings deleted (their numbers' bits now 0, named among those it fails), a stray's meeting given the fragment,
        // the first numbered meeting's participants taken away, and a meeting without participants, numbered last.
        await q.query("DELETE FROM meetings WHERE id = ANY($1::text[])", [[1, 3, 4, 25, 26, 700, 1998].map((i) => ids[i])]);
        await q.query("INSERT INTO participants (id, meeting_id, name, email, position) VALUES ('par_added', $1, 'Ivy Lee', NULL, 9)", [ids[53]]);
        await q.query('DELETE FROM participants WHERE meeting_id = (SELECT meeting_id FROM meeting_numbers WHERE meeting_id IN (SELECT id FROM meetings) ORDER BY n LIMIT 1)');
        await q.query("INSERT INTO meetings (id, title, started_at, note, created_at, updated_at) VALUES ('mtg_last', 'Last', '2026-06-01T00:00:00.000Z', '', 'x', 'x')");
        await q.query("INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES ('mtg_last', 'note', 'mtg_last', 'the plan7 and')");
        expect((await q.query('SELECT meeting_id FROM meeting_numbers ORDER BY n DESC LIMIT 1')).rows[0].meeting_id).toBe('mtg_last');
        expect(await excepted('zq', 25_000)).toEqual(await failing('zq'));
        expect(await excepted(' lee', 25_000)).toEqual(await failing(' lee'));
        await compare(false);
      } finally {
        await Promise.all([pgStore.close(), liteStore.close(), q.end()]);
      }
    }
  }, 240_000);

  it("in many names and most meetings, exactly its gram: read from the gram's passage bits once built (migration 0027), as every participant matched gives", async () => {
    // With `Wxyz<i> Tan` beside `Zq<i> Lee` in 400 meetings, those where `plan7` is said (for `wxyz`, below).
    const { ids, q, pgStore, liteStore } = await seeded('passage_grams', (s) => {
      const meetings = seedManyNames(s, 4096 + 600);
      for (let i = 1; i < meetings.length; i += 5) makeParticipant(s, meetings[i]!, { name: `Wxyz${i} Tan`, email: null, position: 1 });
      return meetings;
    });
    const query = pg.Client.prototype.query;
    try {
      // `zq` (its own gram, in 800 of the 2,000 meetings), ` lee` (longer: its gram ` le` no other name holds) and `zq1`;
      // and `1 LEE`, in few enough names for tags (200: `Zq<i> Lee` for an `i` ending in 1), its gram `1 l`; and `wxyz`,
      // of 4 characters in too many words for tags (400) and failing most meetings, its gram `wxy` read before its names.
      const gramOf = (text: string) => `q${Buffer.from(text).toString('hex')}`;
      const asked = { lacking: async () => 25_000, passageGram: true };
      const grams = [['zq', 'zq'], [' lee', ' le'], ['ZQ1', 'zq1'], ['1 LEE', '1 l'], ['wxyz', 'wxy']] as const;
      // Their grams' bits not kept yet: the meetings they fail instead.
      for (const [fragment] of grams) expect((await compileTags(q, { participant: fragment }, asked))?.passageGram).toBeUndefined();
      // Every statement of the process's clients (a search's own merge connections among them).
      const statements: string[] = [];
      vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
        const text = args[0];
        statements.push(typeof text === 'string' ? text : (text as { text: string }).text);
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as never);
      const hits = (r: Awaited<ReturnType<typeof searchTranscripts>>) => ({ total: r.pagination.total, hits: r.hits.map((h) => [h.meeting_id, h.offset, h.snippet]) });
      /**
       * The searches' answers against each match's meeting probed and SQLite's totals; how many counted from a gram's bits
       * (`counted`), and how many tested matches walked in them (`walked`).
       */
      const compare = async (lite = true) => {
        const fromGrams = { counted: 0, walked: 0 };
        for (const participant of grams.map(([fragment]) => fragment))
          for (const words of ['the', 'the and', 'plan7'])
            for (const more of [{}, { folderPath: 'Legal' }, { from: '2026-01-10T12:00:00.000Z', to: '2026-02-25' }])
              // (Past the window for `the and` alone: each page read costs as much.)
              for (const page of words === 'the and' ? [{ limit: 5, offset: 0 }, { limit: 5, offset: 1998 }] : [{ limit: 5, offset: 0 }]) {
                const f = { ...more, query: words, participant };
                statements.length = 0;
                const found = hits(await searchTranscripts(q, f, page));
                if (statements.some((t) => t.includes("kind = 'g'") && t.includes('WITH kb AS'))) fromGrams.counted++;
                else if (statements.some((t) => t.includes('get_bit(b.bits'))) fromGrams.walked++;
                expect(found.total, JSON.stringify(f)).toBeGreaterThan(0);
                expect({ f, page, ...hits(await searchTranscripts(q, f, page, { participants: 'probed' })) }).toEqual({ f, page, ...found });
                if (lite) expect({ f, page, total: found.total }).toEqual({ f, page, total: (await liteStore.search.transcripts(f, page)).pagination.total });
              }
        return fromGrams;
      };
      // Not built yet: the meetings it fails read for the common words, the rare one's matches probed (`1 LEE`: its names' tags).
      expect(await compare()).toEqual({ counted: 0, walked: 0 });
      for (let i = 0; i < 100 && ((await pgStore.admin.maintain())?.bitmaps?.units ?? 0) > 0; i++);
      const kept = (await q.query<{ term: string }>("SELECT term FROM search_bitmap_terms WHERE kind = 'g' AND built > 0")).rows.map((r) => r.term);
      expect(kept).toEqual(expect.arrayContaining(grams.map(([, gram]) => gramOf(gram))));
      for (const [fragment, gram] of grams)
        expect((await compileTags(q, { participant: fragment }, asked))?.passageGram).toEqual({ tag: gramOf(gram) });
      // `wxyz`'s names and e-mails not scanned: its gram answered first (the meetings it fails are too many to leave out),
      // read with its words (too many for tags), in their statement.
      statements.length = 0;
      await compileTags(q, { participant: 'wxyz' }, asked);
      expect(statements.filter((t) => t.includes('FROM participant_handles x'))).toEqual([]);
      expect(statements.filter((t) => t.includes('WITH f AS (SELECT lower('))).toHaveLength(1);
      expect(statements.filter((t) => t.includes('WITH f AS (SELECT lower(') && t.includes('FROM participant_words'))).toHaveLength(1);
      await q.query('ANALYZE');
      // Built: `the` (in 4 passages of 5) and `the and` counted from the gram's bits, the rest of the last block probed;
      // `plan7` (1 passage of 40) walked, each match tested in its block's bits (probed in the last block).
      const built = await compare();
      expect(built.counted).toBeGreaterThanOrEqual(12);
      expect(built.walked).toBeGreaterThanOrEqual(4);
      // The doctor compares the grams' bits with the participants: nothing wrong, then a bit taken away named.
      const bitmapLines = async () => (await pgStore.admin.integrity({ full: true })).search.filter((line) => line.includes('search_bitmaps'));
      expect(await bitmapLines()).toEqual([]);
      // (The bit of a passage of block 0 saying `the`, its meeting holding `zq`.)
      const [passage] = (
        await q.query<{ id: number }>(
          `SELECT min(p.id)::int AS id FROM search_passages p JOIN search_postings x ON x.passage_id = p.id AND x.lexeme = 'the'
           WHERE p.id < 4096 AND p.meeting_id IN (SELECT meeting_id FROM participants WHERE name ILIKE '%zq%' OR email ILIKE '%zq%')`,
        )
      ).rows;
      await q.query("UPDATE search_bitmaps SET bits = bits & ~(B'1'::bit(4096) >> $1) WHERE kind = 'g' AND term = $2 AND block = 0", [passage!.id, gramOf('zq')]);
      expect((await bitmapLines()).join('\n')).toContain(`(g ${gramOf('zq')} 0; kind c`);
      const [theZq, first] = [{ query: 'the', participant: 'zq' }, { limit: 5, offset: 0 }];
      expect((await searchTranscripts(q, theZq, first)).pagination.total).toBe((await searchTranscripts(q, theZq, first, { participants: 'probed' })).pagination.total - 1);
      // The search repair's last step: the bitmaps (and the names' grams) dropped, then built again by the rounds.
      await q.query('SELECT syntheo_clear_search_bitmaps()');
      expect((await q.query('SELECT count(*)::int AS n FROM search_handle_grams')).rows[0].n).toBe(0);
      for (let i = 0; i < 100 && ((await pgStore.admin.maintain())?.bitmaps?.units ?? 0) > 0; i++);
      expect(await bitmapLines()).toEqual([]);
      expect((await searchTranscripts(q, theZq, first)).pagination.total).toBe((await searchTranscripts(q, theZq, first, { participants: 'probed' })).pagination.total);
      // A meeting of the newest block's passages given `zq` (migration 0031: those passages recorded as changed): the
      // gram's bits of that block not read until a round takes them away and adds them again.
      const [newest] = (
        await q.query<{ id: string }>(
          `SELECT p.meeting_id AS id FROM search_passages p WHERE p.id >= 4096 AND p.id < (SELECT upto FROM search_bitmap_tail)
             AND p.meeting_id NOT IN (SELECT meeting_id FROM participants WHERE name ILIKE '%zq%' OR email ILIKE '%zq%') ORDER BY p.id LIMIT 1`,
        )
      ).rows;
      await q.query("INSERT INTO participants (id, meeting_id, name, email, position) VALUES ('par_bo_zq', $1, 'Bo Zq', NULL, 3)", [newest!.id]);
      expect((await q.query('SELECT count(*)::int AS n FROM search_bitmap_tail_stale')).rows[0].n).toBeGreaterThan(0);
      expect(await compare(false)).toEqual(built);
      for (let i = 0; i < 100 && ((await pgStore.admin.maintain())?.bitmaps?.units ?? 0) > 0; i++);
      expect((await q.query('SELECT count(*)::int AS n FROM search_bitmap_tail_stale')).rows[0].n).toBe(0);
      expect(await bitmapLines()).toEqual([]);
      expect(await compare(false)).toEqual(built);
      // Participants changed in the built block (a meeting without any given `zq`, one of `Zq<i> Lee`'s taken away):
      // its block marked stale, its rows counted with each match's meeting probed, then its bits built again.
      await q.query("INSERT INTO participants (id, meeting_id, name, email, position) VALUES ('par_zq', $1, 'Al Zq', NULL, 3)", [ids[4]]);
      await q.query('DELETE FROM participants WHERE meeting_id = $1', [ids[5]]);
      expect((await q.query('SELECT count(*)::int AS n FROM search_bitmap_stale')).rows[0].n).toBeGreaterThan(0);
      expect(await compare(false)).toEqual(built);
      for (let i = 0; i < 100 && ((await pgStore.admin.maintain())?.bitmaps?.units ?? 0) > 0; i++);
      expect((await q.query('SELECT count(*)::int AS n FROM search_bitmap_stale')).rows[0].n).toBe(0);
      expect(await bitmapLines()).toEqual([]);
      for (const participant of ['zq', '1 LEE'])
        for (const query of ['the', 'plan7']) {
          const f = { query, participant };
          expect({ f, ...hits(await searchTranscripts(q, f, first)) }).toEqual({ f, ...hits(await searchTranscripts(q, f, first, { participants: 'probed' })) });
        }
    } finally {
      vi.restoreAllMocks();
      await Promise.all([pgStore.close(), liteStore.close(), q.end()]);
    }
  }, 240_000);

  /**
   * A database of its own (`name`, seeded by `fill`) where `fragment` fails `failing` meetings: its exceptions are those
   * LIKE finds failing, and lists (as `asked`) and searches of `queries`, with each filter, answer as SQLite does.
   */
  async function failsAsSqlite(name: string, fill: (s: Sqlite) => string[], fragment: string, asked: string, failing: number, filters: object[], queries: string[]) {
    const { ids, q, pgStore, liteStore } = await seeded(name, fill);
    try {
      const lite = openDatabase(join(files.dir, `${name}.db`), { create: false });
      let lacking: string[];
      try {
        const held = holding(lite.sqlite, fragment);
        lacking = ids.filter((id) => !held.includes(id)).sort();
      } finally {
        lite.close();
      }
      expect(lacking).toHaveLength(failing);
      expect((await compileTags(q, { participant: fragment }))?.except).toEqual(lacking);
      for (const filter of filters) {
        const f = { ...filter, participant: asked };
        const page = { limit: 10, offset: 5 };
        const list = async (s: Store) => {
          const r = await s.meetings.list(f, page);
          return { f, total: r.pagination.total, ids: r.meetings.map((m) => m.id) };
        };
        expect(await list(pgStore)).toEqual(await list(liteStore));
        for (const query of queries) {
          const sf = { ...f, query };
          expect({ sf, total: (await pgStore.search.transcripts(sf, page)).pagination.total }).toEqual({ sf, total: (await liteStore.search.transcripts(sf, page)).pagination.total });
        }
      }
    } finally {
      await Promise.all([pgStore.close(), liteStore.close(), q.end()]);
    }
  }

  it('in every name and no e-mail (a space): the few meetings it fails found from the names lacking it, as SQLite does', async () => {
    await failsAsSqlite('spaces', (s) => seedSpaces(s, 600), ' ', ' ', 395, [{}, { folderPath: 'Legal' }, { from: '2026-01-02', to: '2026-02-05' }], ['the', 'zebra']);
  }, 120_000);

  it('in every e-mail and no name: the few meetings it fails found from the e-mails lacking it, those without an @ among them, as SQLite does', async () => {
    // Bo Kim's 10, Cy Ng's 10, Di Ray's 10 (e-mails without an @) and the 10 without participants.
    await failsAsSqlite('oddmails', (s) => seedOddEmails(s, 300), '.test', '.TEST', 40, [{}, { folderPath: 'Legal' }, { from: '2026-01-01', to: '2026-01-02T12:00:00Z' }], ['the']);
  }, 120_000);

  it('keeps the tag of a meeting without participants as they come and go, and migrates the meetings written before', async () => {
    const hx = async (q: pg.Pool, id: string) =>
      (await q.query<{ n: number }>("SELECT (SELECT count(*) FROM meeting_tags WHERE tag = 'hx' AND meeting_id = $1)::int AS n", [id])).rows[0]!.n;
    const store = await openStore(url, { create: false });
    try {
      expect((await pool.query("SELECT count(*)::int AS n FROM meeting_tags WHERE tag = 'hx'")).rows[0].n).toBe(40);
      await pool.query("INSERT INTO meetings (id, title, started_at, note, created_at, updated_at) VALUES ('mtg_new', 'New', '2027-01-01T00:00:00.000Z', '', 'x', 'x')");
      await pool.query("INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES ('mtg_new', 'note', 'mtg_new', 'the plan')");
      expect(await hx(pool, 'mtg_new')).toBe(1);
      // Its passage carries the tag too.
      expect((await pool.query("SELECT count(*)::int AS n FROM search_tags t JOIN search_passages p ON p.id = t.passage_id WHERE t.tag = 'hx' AND p.meeting_id = 'mtg_new'")).rows[0].n).toBe(1);
      await pool.query("INSERT INTO participants (id, meeting_id, name, email) VALUES ('par_new', 'mtg_new', 'Ann Lee', 'a@example.test')");
      expect(await hx(pool, 'mtg_new')).toBe(0);
      await pool.query("DELETE FROM participants WHERE id = 'par_new'");
      expect(await hx(pool, 'mtg_new')).toBe(1);
      expect((await store.admin.integrity({ full: true })).search).toEqual([]);
      await pool.query("DELETE FROM meetings WHERE id = 'mtg_new'");
    } finally {
      await store.close();
    }
    const old = await cluster.createDatabase('old');
    await pgDatabaseMigratedTo(old, '0016_tag_versions');
    const q = new pg.Pool({ connectionString: old, max: 2 });
    try {
      for (const id of ['mtg_a', 'mtg_b']) await q.query("INSERT INTO meetings (id, title, started_at, note, created_at, updated_at) VALUES ($1, 'Plan', '2026-03-01T10:00:00.000Z', '', 'x', 'x')", [id]);
      await q.query("INSERT INTO participants (id, meeting_id, name) VALUES ('par_1', 'mtg_b', 'Ann')");
      await (await openStore(old, { create: false })).close();
      expect((await q.query("SELECT meeting_id FROM meeting_tags WHERE tag = 'hx'")).rows.map((r) => r.meeting_id)).toEqual(['mtg_a']);
    } finally {
      await q.end();
    }
  }, 120_000);
});
