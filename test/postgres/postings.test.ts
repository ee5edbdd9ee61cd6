// search_postings (migration 0004): search_transcripts counts and windows its matches from it, so it
// must always hold exactly the lexemes of search_passages.words, whoever writes the passages (the app's
// role, the assistants' role through the note trigger, db copy), and while writers run concurrently
// with searches. The reference is the GIN path: `words @@ plainto_tsquery(...)` on the passages.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { needs } from '../support/system-tools.js';
import { bm25, genericStatements, loginRoles, runAs, startPostgres, type PgCluster } from '../support/postgres.js';
import { openPostgresStore } from '../../src/db/postgres/store.js';
import { indexTranscript } from '../../src/db/postgres/transcripts.js';
import { asciiLexemes, listSizes } from '../../src/db/postgres/search.js';
import { seeded } from '../support/seeded.js';
import { RANK_WINDOW, type SearchFilter } from '../../src/db/queries/search.js';
import { parseDateRange } from '../../src/db/queries/meetings.js';
import type { Store } from '../../src/db/store.js';
import { join } from 'node:path';
import { run } from '../cli/cli.js';
import { tempDir } from '../support/db.js';
import { copyDatabase } from '../../src/db/engine.js';

const VOCABULARY = ['budget', 'review', 'launch', 'roadmap', 'hiring', 'café', 'Zürich', 'q3', 'the', 'plan'];

/** A deterministic transcript of `n` words (speaker turns change every 7 words) for seed `s`. */
function transcript(s: number, n: number): { text: string; speaker: string }[] {
  return Array.from({ length: n }, (_, i) => ({ text: VOCABULARY[(s * 7 + i * i + (i >> 3)) % VOCABULARY.length]!, speaker: `S${Math.floor(i / 7) % 3}` }));
}

async function addMeeting(q: pg.ClientBase, id: string, words: { text: string; speaker: string }[], note = ''): Promise<void> {
  await q.query(`INSERT INTO meetings (id, title, started_at, note, created_at, updated_at) VALUES ($1, $1, '2026-01-01T00:00:00.000Z', $2, 'x', 'x')`, [id, note]);
  await q.query(`INSERT INTO transcripts (id, meeting_id, word_count, created_at, updated_at) VALUES ($1, $2, $3, 'x', 'x')`, [`trn_${id}`, id, words.length]);
  await q.query(`INSERT INTO transcript_words (transcript_id, idx, text, speaker) SELECT $1, i - 1, t, s FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS u(t, s, i)`, [
    `trn_${id}`,
    words.map((w) => w.text),
    words.map((w) => w.speaker),
  ]);
  await indexTranscript(q, `trn_${id}`, id);
}

/** Rows of the postings that are not the passages' lexemes, and the other way round (both must be 0), and the number of postings. */
async function drift(q: pg.ClientBase | pg.Pool): Promise<{ extra: number; missing: number; postings: number }> {
  const r = await q.query<{ extra: number; missing: number; postings: number }>(
    `WITH truth AS (SELECT u.lexeme COLLATE "C" AS lexeme, p.id AS passage_id, cardinality(u.positions)::smallint AS n FROM search_passages p, unnest(p.words) u)
     SELECT (SELECT count(*) FROM (SELECT lexeme, passage_id, n FROM search_postings EXCEPT ALL SELECT * FROM truth) x)::int AS extra,
            (SELECT count(*) FROM (SELECT * FROM truth EXCEPT ALL SELECT lexeme, passage_id, n FROM search_postings) x)::int AS missing,
            (SELECT count(*) FROM search_postings)::int AS postings`,
  );
  return r.rows[0]!;
}

/** The GIN index's answer: how many passages say every word of `query`. */
async function reference(q: pg.Pool, query: string): Promise<number> {
  return (await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM search_passages WHERE words @@ plainto_tsquery('simple', syntheo_fold($1))`, [query])).rows[0]!.n;
}

describe.skipIf(needs('postgresql'))('search_postings: exact search counts from the postings', () => {
  let cluster: PgCluster;
  let url: string;
  let store: Store;
  let pool: pg.Pool;
  beforeAll(async () => {
    cluster = await startPostgres();
    url = await cluster.createDatabase('postings');
    store = await openPostgresStore(url, { create: true });
    pool = new pg.Pool({ connectionString: url, max: 8 });
  });
  afterAll(async () => {
    await store?.close();
    await pool?.end();
    cluster?.destroy();
  });

  it('follows inserts, re-indexing, summaries, notes and deletes; search totals and pages match the GIN index', async () => {
    const c = await pool.connect();
    try {
      for (let m = 0; m < 12; m++) await addMeeting(c, `mtg_${m}`, transcript(m, 150 + m * 40), m % 3 === 0 ? 'the budget plan, café in Zürich' : '');
      await c.query(`INSERT INTO summaries (id, meeting_id, title, content, created_at, updated_at) VALUES ('sum_1', 'mtg_1', 'Review', 'budget budget review of the launch', 'x', 'x')`);
      // Re-index a transcript's tail (an appended chunk), change a summary and a note, delete a meeting.
      await c.query(`UPDATE transcript_words SET text = 'hiring' WHERE transcript_id = 'trn_mtg_2' AND idx >= 100`);
      await indexTranscript(c, 'trn_mtg_2', 'mtg_2', 100);
      await c.query(`UPDATE summaries SET content = 'roadmap only' WHERE id = 'sum_1'`);
      await c.query(`UPDATE meetings SET note = 'q3 plan' WHERE id = 'mtg_3'`);
      await c.query(`DELETE FROM meetings WHERE id = 'mtg_4'`);
      // A direct UPDATE of a passage's text (not done by Syntheo today) is followed too.
      await c.query(`UPDATE search_passages SET text = text || ' launch' WHERE id IN (SELECT id FROM search_passages ORDER BY id LIMIT 5)`);
    } finally {
      c.release();
    }
    expect(await drift(pool)).toMatchObject({ extra: 0, missing: 0 });
    for (const query of ['budget', 'Budget review', 'the', 'cafe', 'zurich', 'q3 plan', 'hiring the', 'roadmap', 'launch', 'nowhere', 'budget nowhere']) {
      const all = await store.search.transcripts({ query }, { offset: 0, limit: 100 });
      expect(all.pagination.total, query).toBe(await reference(pool, query));
      // Paging past the ranked window is the same order as one long page.
      const second = await store.search.transcripts({ query }, { offset: 7, limit: 5 });
      expect(second.hits, query).toEqual(all.hits.slice(7, 12));
    }
  });

  it('ranks a one-word window by how often each passage says it, as ts_rank_cd does', async () => {
    const c = await pool.connect();
    try {
      // Passages saying "quokka" 1 to 4 times, the newest saying it least.
      await c.query(`INSERT INTO meetings (id, title, started_at, created_at, updated_at) VALUES ('mtg_rank', 'r', '2026-02-01T00:00:00.000Z', 'x', 'x')`);
      for (const times of [4, 2, 3, 1])
        await c.query(`INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES ('mtg_rank', 'note', 'mtg_rank', $1)`, [`${'quokka zebra '.repeat(times)}zebra`]);
    } finally {
      c.release();
    }
    const hits = (await store.search.transcripts({ query: 'zebra' }, { offset: 0, limit: 10 })).hits;
    expect(hits).toHaveLength(4);
    const ranked = (await store.search.transcripts({ query: 'quokka' }, { offset: 0, limit: 4 })).hits.map((h) => h.snippet.split('quokka').length - 1);
    expect(ranked).toEqual([4, 3, 2, 1]);
    const reference = await pool.query<{ n: number }>(
      `SELECT (length(text) - length(replace(text, 'quokka', ''))) / 6 AS n FROM search_passages WHERE words @@ to_tsquery('simple', 'quokka')
       ORDER BY ts_rank_cd(words, to_tsquery('simple', 'quokka')) DESC, id DESC LIMIT 4`,
    );
    expect(reference.rows.map((r) => r.n)).toEqual(ranked);
  });

  it('ranks a word said several times (`wombat wombat`) as ts_rank_cd does, the exact phrase first', async () => {
    const c = await pool.connect();
    try {
      await c.query(`INSERT INTO meetings (id, title, started_at, created_at, updated_at) VALUES ('mtg_twice', 't', '2026-03-01T00:00:00.000Z', 'x', 'x')`);
      // Three times in a row; three, two in a row (twice, punctuation between); twice in a row; twice apart; once.
      for (const text of ['wombat wombat wombat here', 'Wombat, wombat and wombat', 'the wombat WOMBAT', 'wombat then a wombat', 'one wombat', 'wombat and wombat wombat'])
        await c.query(`INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES ('mtg_twice', 'note', 'mtg_twice', $1)`, [text]);
    } finally {
      c.release();
    }
    for (const query of ['wombat wombat', 'WOMBAT wombat wombat', 'wombat']) {
      const found = (await store.search.transcripts({ query }, { offset: 0, limit: 10 })).hits.map((h) => h.snippet.replace(/\*\*/g, ''));
      const reference = await pool.query<{ text: string }>(
        `SELECT text FROM search_passages WHERE words @@ plainto_tsquery('simple', $1)
         ORDER BY words @@ phraseto_tsquery('simple', $1) DESC, ts_rank_cd(words, plainto_tsquery('simple', $1)) DESC, id DESC`,
        [query.toLowerCase()],
      );
      expect(found, query).toEqual(reference.rows.map((r) => r.text));
      expect(found, query).toHaveLength(6);
      // Pages ending before the last passage holding the phrase (the phrase is looked for up to the page's end), and after.
      for (const [limit, offset] of [[1, 0], [2, 1], [1, 3], [2, 3], [3, 3]] as const) {
        const page = (await store.search.transcripts({ query }, { offset, limit })).hits.map((h) => h.snippet.replace(/\*\*/g, ''));
        expect(page, `${query} ${limit} at ${offset}`).toEqual(found.slice(offset, offset + limit));
      }
    }
    // The phrase is found in a passage saying the word as often as the query does, and in no other.
    expect((await store.search.transcripts({ query: 'wombat wombat wombat' }, { offset: 0, limit: 1 })).hits[0]!.snippet).toBe('**wombat** **wombat** **wombat** here');
    // (Punctuation does not part a phrase; the phrases by how often they say it, then the newest.)
    expect((await store.search.transcripts({ query: 'wombat wombat' }, { offset: 0, limit: 10 })).hits.map((h) => h.snippet.replace(/\*\*/g, ''))).toEqual([
      'wombat and wombat wombat',
      'Wombat, wombat and wombat',
      'wombat wombat wombat here',
      'the wombat WOMBAT',
      'wombat then a wombat',
      'one wombat',
    ]);
  });

  it('ranks several words by BM25 of how often each passage says each, the exact phrase first, on pages before, across and past its end', async () => {
    const c = await pool.connect();
    try {
      await c.query(`INSERT INTO meetings (id, title, started_at, created_at, updated_at) VALUES ('mtg_koala', 't', '2026-03-02T00:00:00.000Z', 'x', 'x')`);
      // `emu` is said in more passages than `koala` (a lower IDF). Three passages holding the phrase, the one saying both
      // words twice first; then, without it, the most said first (`koala` weighing more), then the newest: how close the
      // words are does not count (ts_rank_cd ranked `emu koala` first, then `koala x emu`, by their distance).
      const texts = ['koala emu', 'koala emu and koala emu', 'emu koala emu', 'emu koala', 'koala x emu', 'emu x emu x emu', 'koala x x emu', 'koala x koala x emu', 'koala x x x x emu', 'emu emu x koala'];
      for (const text of texts) await c.query(`INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES ('mtg_koala', 'note', 'mtg_koala', $1)`, [text]);
    } finally {
      c.release();
    }
    const query = 'koala emu';
    const reference = await pool.query<{ text: string }>(
      `WITH ${bm25('$1').cte} SELECT p.text FROM search_passages p WHERE p.words @@ plainto_tsquery('simple', $1)
       ORDER BY p.words @@ phraseto_tsquery('simple', $1) DESC, ${bm25('$1').score('p')} DESC, p.id DESC`,
      [query],
    );
    const found = reference.rows.map((r) => r.text);
    expect(found).toEqual(['koala emu and koala emu', 'emu koala emu', 'koala emu', 'koala x koala x emu', 'emu emu x koala', 'koala x x x x emu', 'koala x x emu', 'koala x emu', 'emu koala']);
    // Every page of 1 to 4 hits: the phrase looked for up to the page's end, and past it.
    for (let limit = 1; limit <= 4; limit++)
      for (let offset = 0; offset < found.length; offset++) {
        const page = (await store.search.transcripts({ query }, { offset, limit })).hits.map((h) => h.snippet.replace(/\*\*/g, ''));
        expect(page, `${limit} at ${offset}`).toEqual(found.slice(offset, offset + limit));
      }
  });

  it('finds the phrase in passages ranked below those it looks at first (the best ranked 110 for a page of 1)', async () => {
    const c = await pool.connect();
    try {
      await c.query(`INSERT INTO meetings (id, title, started_at, created_at, updated_at) VALUES ('mtg_dingo', 't', '2026-03-04T00:00:00.000Z', 'x', 'x')`);
      // Two passages holding the phrase, said once each: ranked below the 150 saying both words apart, twice each.
      await c.query(`INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES ('mtg_dingo', 'note', 'mtg_dingo', 'a dingo wallaby')`);
      await c.query(
        `INSERT INTO search_passages (meeting_id, kind, ref_id, text) SELECT 'mtg_dingo', 'note', 'mtg_dingo', 'dingo x dingo x wallaby x wallaby ' || i FROM generate_series(1, 150) i`,
      );
      await c.query(`INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES ('mtg_dingo', 'note', 'mtg_dingo', 'the dingo wallaby')`);
    } finally {
      c.release();
    }
    // The phrase's two first (the newest first), then the others, all ranked alike, the newest first.
    const order = ['the dingo wallaby', 'a dingo wallaby', ...Array.from({ length: 150 }, (_, i) => `dingo x dingo x wallaby x wallaby ${150 - i}`)];
    for (const [limit, offset] of [[1, 0], [1, 1], [2, 0], [3, 1], [2, 150]] as const) {
      const page = (await store.search.transcripts({ query: 'dingo wallaby' }, { offset, limit })).hits.map((h) => h.snippet.replace(/\*\*/g, ''));
      expect(page, `${limit} at ${offset}`).toEqual(order.slice(offset, offset + limit));
    }
  });

  /** The passages saying every word of `query` (in database `on`), as the rule ranks them (the phrase first, then BM25, then the newest). */
  const ruled = async (query: string, on = pool) =>
    (
      await on.query<{ text: string }>(
        `WITH ${bm25('$1').cte} SELECT p.text FROM search_passages p WHERE p.words @@ plainto_tsquery('simple', $1)
         ORDER BY p.words @@ phraseto_tsquery('simple', $1) DESC, ${bm25('$1').score('p')} DESC, p.id DESC`,
        [query],
      )
    ).rows.map((r) => r.text);

  /** That `on` answers `query` (and `filter`) as `found` says (the rule's order): each page of `pages` ([limit, offset]), and the total. */
  async function expectPages(on: Store, query: string, found: string[], pages: readonly (readonly [number, number])[], filter: Omit<SearchFilter, 'query'> = {}): Promise<void> {
    for (const [limit, offset] of pages) {
      const result = await on.search.transcripts({ query, ...filter }, { offset, limit });
      expect({ query, limit, offset, total: result.pagination.total, page: result.hits.map((h) => h.snippet.replace(/\*\*/g, '')) }).toEqual({
        query,
        limit,
        offset,
        total: found.length,
        page: found.slice(offset, offset + limit),
      });
    }
  }

  it("walks a rare word's postings and looks up the other words' for each, by a plan made once: the same pages as the rule", async () => {
    const c = await pool.connect();
    try {
      await c.query(`INSERT INTO meetings (id, title, started_at, created_at, updated_at) VALUES ('mtg_quokka', 't', '2026-03-05T00:00:00.000Z', 'x', 'x')`);
      // `quokka` in 4 passages, `the` and `plan` in 130 more each (and in others' transcripts): 32 times as many or more.
      await c.query(
        `INSERT INTO search_passages (meeting_id, kind, ref_id, text) SELECT 'mtg_quokka', 'note', 'mtg_quokka', 'the plan x the ' || i FROM generate_series(1, 130) i`,
      );
      for (const text of ['the quokka plan', 'plan x quokka the the', 'quokka the plan', 'quokka quokka plan'])
        await c.query(`INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES ('mtg_quokka', 'note', 'mtg_quokka', $1)`, [text]);
    } finally {
      c.release();
    }
    // The window's statement run on a generic connection (rowsGeneric), its other words looked up for each of the rare
    // word's postings; the page's hits read with it (no statement of their own).
    const probed = 'CROSS JOIN LATERAL (SELECT x.n FROM search_postings x';
    const hits = 'WHERE p.id = ANY($1::bigint[])';
    const { of, ran, spy } = genericStatements('FROM search_postings', probed, hits);
    try {
      for (const query of ['the quokka', 'plan quokka the', 'quokka']) {
        const found = await ruled(query);
        expect(found.length, query).toBeGreaterThanOrEqual(3);
        const generic = of('FROM search_postings').length;
        const probes = of(probed).length;
        await expectPages(store, query, found, [[1, 0], [2, 1], [10, 0], [3, 2]]);
        expect(of('FROM search_postings').length - generic, query).toBe(4);
        expect(of(probed).length - probes, query).toBe(query === 'quokka' ? 0 : 4);
      }
      expect(ran(hits)).toBe(0);
    } finally {
      spy.mockRestore();
    }
  });

  it("walks a rare word's postings, the other's probed, with a date range checked on each match's meeting: the same pages as the rule", async () => {
    // A database of its own, analyzed before its Store's first search (the statistics decide how the range is read).
    const own = await cluster.createDatabase('echidna');
    const ownStore = await openPostgresStore(own, { create: true });
    const ownPool = new pg.Pool({ connectionString: own, max: 2 });
    try {
      // `echidna` in 3 passages of a meeting in the range and 2 of one outside it, `platypus` in 100 more of each (32
      // times as many or more).
      for (const [id, day] of [['mtg_echidna_in', '2026-03-07T09:00:00.000Z'], ['mtg_echidna_out', '2026-03-09T09:00:00.000Z']] as const) {
        await ownPool.query(`INSERT INTO meetings (id, title, started_at, created_at, updated_at) VALUES ($1, 't', $2, 'x', 'x')`, [id, day]);
        await ownPool.query(`INSERT INTO search_passages (meeting_id, kind, ref_id, text) SELECT $1, 'note', $1, 'platypus x ' || i FROM generate_series(1, 100) i`, [id]);
      }
      for (const [id, text] of [
        ['mtg_echidna_in', 'platypus echidna'],
        ['mtg_echidna_out', 'echidna platypus platypus'],
        ['mtg_echidna_in', 'echidna x platypus'],
        ['mtg_echidna_out', 'platypus echidna y'],
        ['mtg_echidna_in', 'echidna echidna platypus'],
      ])
        await ownPool.query(`INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES ($1, 'note', $1, $2)`, [id, text]);
      await ownPool.query('ANALYZE');
      // Three days, a group of tags: each match's meeting checked (after the probes), not the days' tags read.
      const range = { from: '2026-03-06T12:00:00.000Z', to: '2026-03-08T12:00:00.000Z' };
      const inside = new Set((await ownPool.query<{ text: string }>(`SELECT text FROM search_passages WHERE meeting_id = 'mtg_echidna_in'`)).rows.map((r) => r.text));
      const probed = 'CROSS JOIN LATERAL (SELECT x.n FROM search_postings x';
      const checked = 'JOIN meetings d ON d.id = dp.meeting_id';
      const { of, ran, spy } = genericStatements(probed, checked, 'FROM search_tags');
      try {
        for (const query of ['platypus echidna', 'echidna platypus']) {
          const found = (await ruled(query, ownPool)).filter((text) => inside.has(text));
          expect(found, query).toHaveLength(3);
          const before = { probed: of(probed).length, checked: of(checked).length };
          await expectPages(ownStore, query, found, [[1, 0], [2, 1], [10, 0]], range);
          // On a generic connection: the other word probed, each match's meeting checked (the same statement).
          expect(of(probed).length - before.probed, query).toBe(3);
          expect(of(checked).length - before.checked, query).toBe(3);
        }
        expect(ran('FROM search_tags')).toBe(0);
      } finally {
        spy.mockRestore();
      }
    } finally {
      await ownStore.close();
      await ownPool.end();
    }
  });

  it("takes a range's first and last days whole into its month, and still checks their meetings' starts exactly (one written without a `T`)", async () => {
    // `kookaburra` in one passage of each meeting: a start without the `T` is its day's (its tags say so), and compares
    // as before the day's first instant; the others at the month's and the day's edges.
    const starts = {
      mtg_kk_space: '2026-05-17 08:00',
      mtg_kk_day: '2026-05-17T08:00:00.000Z',
      mtg_kk_before: '2026-05-16T23:59:59.999Z',
      mtg_kk_first: '2026-05-01T00:00:00.000Z',
      mtg_kk_last: '2026-05-31T23:59:59.999Z',
      mtg_kk_after: '2026-06-01T00:00:00.000Z',
    };
    for (const [id, at] of Object.entries(starts)) {
      await pool.query(`INSERT INTO meetings (id, title, started_at, created_at, updated_at) VALUES ($1, 't', $2, 'x', 'x')`, [id, at]);
      await pool.query(`INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES ($1, 'note', $1, 'a kookaburra laughs')`, [id]);
    }
    for (const range of [{ from: '2026-05-17' }, { to: '2026-05-17' }, { from: '2026-05-17', to: '2026-05-17' }, { from: '2026-05-01', to: '2026-05-31' }, { from: '2026-05-01T00:00:00Z' }]) {
      const { from, to } = parseDateRange(range.from, (range as { to?: string }).to);
      const want = Object.entries(starts)
        .filter(([, at]) => (from === undefined || at >= from) && (to === undefined || at <= to))
        .map(([id]) => id)
        .sort();
      const found = await store.search.transcripts({ query: 'kookaburra', ...range }, { offset: 0, limit: 20 });
      expect({ range, found: found.hits.map((h) => h.meeting_id).sort(), total: found.pagination.total }).toEqual({ range, found: want, total: want.length });
    }
  });

  it('merges two words neither much rarer than the other by a plan made once: the same pages as the rule', async () => {
    const c = await pool.connect();
    try {
      await c.query(`INSERT INTO meetings (id, title, started_at, created_at, updated_at) VALUES ('mtg_numbat', 't', '2026-03-06T00:00:00.000Z', 'x', 'x')`);
      // `numbat` in 60 passages, `bilby` in 70 (fewer than 32 times as many), both in 40 of them, as a phrase in 3.
      const passages = [
        ...Array.from({ length: 37 }, (_, i) => `numbat x bilby ${'bilby '.repeat(i % 3)}${i}`),
        ...Array.from({ length: 20 }, (_, i) => `numbat ${i}`),
        ...Array.from({ length: 30 }, (_, i) => `bilby ${i}`),
        'the numbat bilby',
        'bilby numbat bilby',
        'numbat numbat bilby x',
      ];
      for (const text of passages) await c.query(`INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES ('mtg_numbat', 'note', 'mtg_numbat', $1)`, [text]);
    } finally {
      c.release();
    }
    // The window's statement run on a generic connection (rowsGeneric), the two words' postings joined (merged); the
    // page's hits read with it.
    const merged = 'JOIN search_postings s1 ON s1.lexeme = $2';
    const hits = 'WHERE p.id = ANY($1::bigint[])';
    const { of, ran, spy } = genericStatements(merged, hits);
    try {
      for (const query of ['numbat bilby', 'bilby numbat']) {
        const found = await ruled(query);
        expect(found.length, query).toBe(40);
        const generic = of(merged).length;
        await expectPages(store, query, found, [[1, 0], [2, 1], [10, 0], [5, 36]]);
        expect(of(merged).length - generic, query).toBe(4);
      }
      expect(ran(hits)).toBe(0);
    } finally {
      spy.mockRestore();
    }
  });

  it('ranks nine words (the GIN index, not the postings) and one word of two lexemes as it ranks the others', async () => {
    const words = ['wa', 'wb', 'wc', 'wd', 'we', 'wf', 'wg', 'wh', 'wi'];
    const c = await pool.connect();
    try {
      await c.query(`INSERT INTO meetings (id, title, started_at, created_at, updated_at) VALUES ('mtg_nine', 't', '2026-03-03T00:00:00.000Z', 'x', 'x')`);
      // Each passage says every word once, and one of them 1 to 9 times more (no two rank alike).
      for (const [i, word] of words.entries()) {
        await c.query(`INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES ('mtg_nine', 'note', 'mtg_nine', $1)`, [`${words.join(' ')} ${`${word} `.repeat(1 + i)}`]);
        // A word the parser reads as two lexemes (`9e5` and `x11`).
        await c.query(`INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES ('mtg_nine', 'note', 'mtg_nine', $1)`, [`${'9E5x11 '.repeat(1 + (i % 3))}${word}`]);
      }
    } finally {
      c.release();
    }
    for (const query of [[...words].reverse().join(' '), '9E5x11']) {
      const reference = await pool.query<{ text: string }>(
        `WITH ${bm25('$1').cte} SELECT p.text FROM search_passages p WHERE p.words @@ plainto_tsquery('simple', syntheo_fold($1))
         ORDER BY p.words @@ phraseto_tsquery('simple', syntheo_fold($1)) DESC, ${bm25('$1').score('p')} DESC, p.id DESC`,
        [query],
      );
      const found = (await store.search.transcripts({ query }, { offset: 0, limit: 20 })).hits.map((h) => h.snippet.replace(/\*\*/g, ''));
      expect(found, query).toEqual(reference.rows.map((r) => r.text));
      expect(found, query).toHaveLength(9);
    }
  });

  it('ranks with kept word counts gone wrong (more passages than there are, fewer than none) instead of failing', async () => {
    const page = async () => (await store.search.transcripts({ query: 'koala emu' }, { offset: 0, limit: 20 })).hits.map((h) => h.snippet.replace(/\*\*/g, ''));
    const before = await page();
    expect(before.length).toBeGreaterThan(3);
    for (const wrong of [1e12, -1e12]) {
      await pool.query('INSERT INTO search_word_counts (lexeme, n) VALUES ($1, $2)', ['koala', wrong]);
      try {
        // The same passages, the phrase's first.
        const found = await page();
        expect(found.slice(0, 3).sort(), String(wrong)).toEqual(before.slice(0, 3).sort());
        expect(found.sort(), String(wrong)).toEqual([...before].sort());
      } finally {
        await pool.query('DELETE FROM search_word_counts WHERE lexeme = $1 AND n = $2', ['koala', wrong]);
      }
    }
  });

  it('knows the lexemes of ASCII words as the parser of PostgreSQL makes them, and leaves the others to it', async () => {
    // Words, numbers, words with digits, exponents, leading zeros, hex-looking runs; and 400 random queries of such runs.
    const rnd = seeded(19);
    const chars = 'aeEz09x15';
    const isKnown = (words: string) => asciiLexemes(words) !== undefined;
    const queries = ['the', 'The THE the', 'q3 plan', '2026 budget', '1e5 1E10 1e e5', '00123 0x1F a1b2 123abc', 'x', 'Zürich', 'café', 'a'.repeat(101)];
    // Runs of letters alone and digits alone too, which are the ones known here.
    const run = (alphabet: string) => Array.from({ length: 1 + rnd.int(6) }, () => rnd.one([...alphabet])).join('');
    for (let i = 0; i < 100; i++) queries.push(Array.from({ length: 1 + rnd.int(3) }, () => run(rnd.int(2) ? 'aeEzx' : '0159')).join(' '));
    for (let i = 0; i < 300; i++) queries.push(Array.from({ length: 1 + rnd.int(3) }, () => Array.from({ length: 1 + rnd.int(6) }, () => rnd.one([...chars])).join('')).join(' '));
    for (const words of queries) {
      const held = (await pool.query<{ l: string }>("SELECT DISTINCT x.lexeme AS l FROM unnest(to_tsvector('simple', syntheo_fold($1))) x", [words])).rows.map((r) => r.l);
      const known = asciiLexemes(words);
      if (words.split(' ').every((w) => /^(?:[A-Za-z]+|[0-9]+)$/.test(w) && w.length <= 100)) expect(known?.sort(), words).toEqual(held.sort());
      else expect(known, words).toBeUndefined();
      // (Mixed runs are left to the parser: `9E5x11` is two tokens.)
    }
    expect(queries.filter(isKnown).length).toBeGreaterThan(100);
  });

  it('keeps the statistics of each database apart (the estimates of the key ranges of a search)', async () => {
    await pool.query('ANALYZE search_passages');
    const other = new pg.Pool({ connectionString: await cluster.createDatabase('stats'), max: 1 });
    try {
      const held = await listSizes(pool);
      expect(held.passages).toBeGreaterThan(0);
      // A database without passages, read right after (within the time the statistics are kept): its own, none.
      expect((await listSizes(other)).passages).toBeNaN();
      expect((await listSizes(pool)).passages).toBe(held.passages);
    } finally {
      await other.end();
    }
  });

  it("reads a pool's statistics again once a minute old, answering from those it has meanwhile; a client's before it answers", async () => {
    const other = new pg.Pool({ connectionString: await cluster.createDatabase('stale'), max: 2 });
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const first = await listSizes(other);
      expect(first.passages).toBeNaN();
      /** Passages as the statistics count them (reltuples): `n` rows, analyzed. */
      const passages = async (n: number) => other.query(`DROP TABLE IF EXISTS search_passages; CREATE TABLE search_passages AS SELECT generate_series(1, ${n}) AS id; ANALYZE search_passages`);
      await passages(100);
      // Within the minute: those read.
      expect(await listSizes(other)).toBe(first);
      vi.setSystemTime(Date.now() + 61_000);
      // Past it: those it has, at once, while they are read again.
      expect(await listSizes(other)).toBe(first);
      await vi.waitFor(async () => expect((await listSizes(other)).passages).toBe(100));
      // A client (inside a caller's transaction) reads them again before it answers.
      const client = await other.connect();
      try {
        expect((await listSizes(client)).passages).toBe(100);
        await passages(150);
        vi.setSystemTime(Date.now() + 61_000);
        expect((await listSizes(client)).passages).toBe(150);
      } finally {
        client.release();
      }
    } finally {
      vi.useRealTimers();
      await other.end();
    }
  });

  it('stays exact while writers insert, re-index and delete concurrently with searches', async () => {
    const writers = Array.from({ length: 4 }, async (_, w) => {
      const c = await pool.connect();
      try {
        for (let i = 0; i < 15; i++) {
          const id = `mtg_w${w}_${i}`;
          await c.query('BEGIN');
          await addMeeting(c, id, transcript(w * 100 + i, 80 + i * 5));
          await c.query('COMMIT');
          await c.query('BEGIN');
          await c.query(`UPDATE transcript_words SET text = 'review' WHERE transcript_id = $1 AND idx >= 40`, [`trn_${id}`]);
          await indexTranscript(c, `trn_${id}`, id, 40);
          await c.query('COMMIT');
          if (i % 2 === 0) await c.query('DELETE FROM meetings WHERE id = $1', [id]);
        }
      } finally {
        c.release();
      }
    });
    let done = false;
    const checks: string[] = [];
    const readers = Array.from({ length: 2 }, async () => {
      while (!done) {
        // One statement, one snapshot: the postings' count and the GIN index's agree at every moment.
        const r = await pool.query<{ postings: number; gin: number }>(
          `SELECT (SELECT count(*) FROM search_postings WHERE lexeme = 'review')::int AS postings,
                  (SELECT count(*) FROM search_passages WHERE words @@ to_tsquery('simple', 'review'))::int AS gin`,
        );
        if (r.rows[0]!.postings !== r.rows[0]!.gin) checks.push(JSON.stringify(r.rows[0]));
        await store.search.transcripts({ query: 'review budget' }, { offset: 0, limit: 10 });
      }
    });
    await Promise.all(writers);
    done = true;
    await Promise.all(readers);
    expect(checks).toEqual([]);
    expect(await drift(pool)).toMatchObject({ extra: 0, missing: 0 });
    for (const query of ['review', 'review budget', 'the'])
      expect((await store.search.transcripts({ query }, { offset: 0, limit: 1 })).pagination.total, query).toBe(await reference(pool, query));
  });

  it('a common word past the ranked window: total and the older matches, newest first', async () => {
    const c = await pool.connect();
    try {
      await c.query(`INSERT INTO meetings (id, title, started_at, created_at, updated_at) VALUES ('mtg_many', 'm', '2026-03-01T00:00:00.000Z', 'x', 'x')`);
      await c.query(`INSERT INTO search_passages (meeting_id, kind, ref_id, speaker, text) SELECT 'mtg_many', 'note', 'mtg_many', i::text, 'omnipresent word' FROM generate_series(1, $1::int) i`, [RANK_WINDOW + 30]);
    } finally {
      c.release();
    }
    const r = await store.search.transcripts({ query: 'omnipresent' }, { offset: RANK_WINDOW + 5, limit: 10 });
    expect(r.pagination.total).toBe(RANK_WINDOW + 30);
    // The window holds the newest RANK_WINDOW (speakers 31..2030), all ranked equal, so newest first; then 25..16.
    expect(r.hits.map((h) => Number(h.speaker))).toEqual([25, 24, 23, 22, 21, 20, 19, 18, 17, 16]);
  });

  it("roles: neither role writes the postings directly; the triggers keep them when the app writes passages or an assistant adds a note", async () => {
    const r = await run(['--db', url, 'db', 'roles']);
    expect(r.code).toBe(0);
    // Its own meeting (also when run alone, without the first test's meetings).
    await pool.query("INSERT INTO meetings (id, title, started_at, source, created_at, updated_at) VALUES ('mtg_roles', 'Roles', 'x', 'import', 'x', 'x')");
    const roles = loginRoles(cluster, url, 2);
    const as = (user: string, sql: string) => runAs(url, user, sql);
    for (const user of roles) {
      expect(await as(user, "INSERT INTO search_postings (lexeme, passage_id, n) VALUES ('forged', 1, 1)"), user).toBe('42501');
      expect(await as(user, 'DELETE FROM search_postings'), user).toBe('42501');
      expect(await as(user, "UPDATE search_postings SET n = 9"), user).toBe('42501');
      expect(await as(user, 'TRUNCATE search_postings'), user).toBe('42501');
      expect(await as(user, "SELECT count(*) FROM search_postings WHERE lexeme = 'plan'"), user).toBe('ok');
    }
    expect(await as('worker2', "INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES ('mtg_roles', 'note', 'mtg_roles', 'xylophone quartet')")).toBe('ok');
    expect(await as('worker2', "DELETE FROM search_passages WHERE text = 'xylophone quartet'")).toBe('ok');
    expect(await as('worker2', "INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES ('mtg_roles', 'note', 'mtg_roles', 'xylophone again')")).toBe('ok');
    expect(
      await as('ann2', "INSERT INTO meetings (id, title, started_at, note, source, created_at, updated_at) VALUES ('mtg_ann', 'Rec', 'x', 'xylophone duet', 'import', 'x', 'x')"),
    ).toBe('ok');
    expect(await drift(pool)).toMatchObject({ extra: 0, missing: 0 });
    expect((await store.search.transcripts({ query: 'xylophone' }, { offset: 0, limit: 10 })).pagination.total).toBe(2);
  });

  it('db copy fills the postings once at the end, exactly, and leaves their trigger on', async () => {
    const tmp = tempDir();
    try {
      const a = join(tmp.dir, 'demo.db');
      expect((await run(['--db', a, 'demo'])).code).toBe(0);
      const target = await cluster.createDatabase('copy');
      await copyDatabase(a, target);
      const copied = new pg.Pool({ connectionString: target, max: 1 });
      try {
        const d = await drift(copied);
        expect(d).toMatchObject({ extra: 0, missing: 0 });
        expect(d.postings).toBeGreaterThan(100);
        const trigger = await copied.query<{ on: string }>("SELECT tgenabled AS on FROM pg_trigger WHERE tgname = 'search_passages_postings_ai'");
        expect(trigger.rows).toEqual([{ on: 'O' }]);
        // The trigger works after the copy: a new note's words are found.
        await copied.query("INSERT INTO meetings (id, title, started_at, note, created_at, updated_at) VALUES ('mtg_after', 'After', 'x', 'pangolin', 'x', 'x')");
        expect((await copied.query("SELECT count(*)::int AS n FROM search_postings WHERE lexeme = 'pangolin'")).rows).toEqual([{ n: 1 }]);
        // The primary key (set aside during the copy) is back, with its INCLUDE.
        const key = await copied.query<{ def: string }>("SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = 'search_postings'::regclass AND contype = 'p'");
        expect(key.rows).toEqual([{ def: 'PRIMARY KEY (lexeme, passage_id) INCLUDE (n)' }]);
      } finally {
        await copied.end();
      }
    } finally {
      tmp.cleanup();
    }
  });
});
