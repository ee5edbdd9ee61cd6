import pg from 'pg';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { needs } from '../support/system-tools.js';
import { clusterForBlock } from '../support/postgres.js';
import { drawer, vocabulary } from '../support/questions.js';
import { generate } from '../../bench/generate.js';
import { fillPostgres } from '../../bench/postgres.js';
import { openStore } from '../../src/db/engine.js';
import { searchTranscripts, type SearchOptions } from '../../src/db/postgres/search.js';
import type { Store } from '../../src/db/store.js';

// Seeded random questions, every filter drawn at random and combined, asked of both engines at a size where
// PostgreSQL's search bitmaps hold whole blocks of 4,096 passages (five blocks: four built, the newest not). The
// matrix and the parity test ask fixed questions; the paths PostgreSQL chooses between (bits or rows, planned once
// or at each call, a walk or the bits, a name group or one tag, months or days) depend on the values, so questions
// drawn from the data reach the combinations nobody wrote down. Totals must agree (pages of a search are ranked
// by each engine's own BM25), and PostgreSQL's page must be the same whichever way it reads the window (walked, from
// the bits, dates and names checked on the meetings); a list's page must be the same meetings in the same order.
//
// The same searches are asked again after notes and summaries are rewritten in two of the built blocks: the blocks
// are then stale, their bits hold passages that are gone, and their rows must be read instead, within the few stale
// blocks a plan made once allows; then with two more blocks marked stale, beyond them (each call planned for its
// values).

describe.skipIf(needs('postgresql'))('random questions answered alike by SQLite and PostgreSQL (bitmaps built)', () => {
  const pgBlock = clusterForBlock();
  const SEARCHES = 150;
  const LISTS = 150;
  /** Other questions: SYNTHEO_PARITY_SEED=N npx vitest run test/postgres/random-parity.test.ts */
  const SEED = Number(process.env.SYNTHEO_PARITY_SEED ?? 20261204);

  it('the same totals for random searches (bits as built, two blocks rewritten, four stale) and the same pages for random lists', async () => {
    const file = join(pgBlock.tmp.dir, 'random.db');
    generate({ meetings: 5_000, words: 500_000, longest: 2_000, seed: 23, out: file, progress: false });
    const url = await pgBlock.cluster.createDatabase();
    await fillPostgres(file, url);
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    // searchTranscripts called directly, each way: a merge connection of its own besides the pool's.
    const waysPool = new pg.Pool({ connectionString: url, max: 4 });
    const stores: Store[] = [];
    pgBlock.cleanups.push(async () => {
      for (const s of stores) await s.close();
      await pool.end();
      await waysPool.end();
    });
    const blocks = await pool.query<{ top: number; built: number; words: number; tags: number }>(
      `SELECT (SELECT max(id) >> 12 FROM search_passages)::int AS top, (SELECT min(built) FROM search_bitmap_terms)::int AS built,
              (SELECT count(*) FROM search_bitmap_terms WHERE kind = 'w')::int AS words, (SELECT count(*) FROM search_bitmap_terms WHERE kind = 't')::int AS tags`,
    );
    // Five blocks, the four older ones built for every kept word and tag: bits are read, not only rows.
    expect(blocks.rows[0]).toMatchObject({ top: 4, built: 4 });
    expect(blocks.rows[0]!.words).toBeGreaterThan(50);
    expect(blocks.rows[0]!.tags).toBeGreaterThan(20);

    const sqlite = await openStore(file, { create: false });
    stores.push(sqlite);
    const postgres = await openStore(url, { create: false });
    stores.push(postgres);
    const words = vocabulary(file);
    for (const [kind, values] of Object.entries(words)) if (Array.isArray(values)) expect(values.length, kind).toBeGreaterThan(0);
    const draw = drawer(words, SEED);

    const searches = Array.from({ length: SEARCHES }, () => draw.search());
    const expected: number[] = [];
    for (const s of searches) expected.push((await sqlite.search.transcripts(s.filter, { limit: 10, offset: s.offset })).pagination.total);
    // The questions find things: many searches have matches, some more than a window of 2,000, some none.
    expect(expected.filter((n) => n > 0).length).toBeGreaterThan(SEARCHES / 3);
    expect(expected.filter((n) => n > 2000).length).toBeGreaterThan(5);
    expect(expected.some((n) => n === 0)).toBe(true);

    /**
     * What differs: PostgreSQL's total (and page length) from SQLite's, and PostgreSQL's page read each other way it
     * knows (the window walked or read from the bits; dates and names checked on each match's meeting) from the
     * Store's: one engine, one ranking, so the same hits in the same order.
     */
    const differences = async (state: string) => {
      const out: string[] = [];
      // With each hit's start time: read with the window's page when its plan is made once (the Store's, from the bits),
      // apart otherwise (a walk).
      const hits = (r: { hits: { meeting_id: string; offset: number | null; start_ms: number | null; snippet: string }[]; pagination: { total: number } }) =>
        `${r.pagination.total}: ${r.hits.map((h) => `${h.meeting_id} ${h.offset} ${h.start_ms} ${h.snippet}`).join(' | ')}`;
      for (const [i, s] of searches.entries()) {
        const page = { limit: 10, offset: s.offset };
        const got = await postgres.search.transcripts(s.filter, page);
        const shown = Math.max(0, Math.min(10, expected[i]! - s.offset));
        const said = `${state}: ${JSON.stringify(s.filter)} at ${s.offset}`;
        if (got.pagination.total !== expected[i] || got.hits.length !== shown) out.push(`${said}: SQLite ${expected[i]}, PostgreSQL ${got.pagination.total} (${got.hits.length} hits)`);
        // From the bits, the matches also read from the rarest word's postings whatever their number (driven).
        const ways: SearchOptions[] = [{ window: 'walk' }, { window: 'bits' }, { window: 'bits', driven: true }, ...(s.filter.from !== undefined || s.filter.to !== undefined || s.filter.participant !== undefined ? [{ filters: 'meetings' as const }] : []),
          ...(s.filter.participant !== undefined ? [{ participants: 'probed' as const }, { participants: 'joined' as const }] : [])];
        for (const way of ways) {
          const other = hits(await searchTranscripts(waysPool, s.filter, page, way));
          if (other !== hits(got)) out.push(`${said} ${JSON.stringify(way)}: ${other.slice(0, 300)}, the Store's ${hits(got).slice(0, 300)}`);
        }
      }
      return out;
    };
    expect(await differences('as built')).toEqual([]);

    // New notes and summaries on both engines: their old passages go, new ones come at the end. `db copy` wrote
    // PostgreSQL's notes first, then the summaries, then the transcripts, so the old notes are in block 0 and these
    // summaries in block 1; the triggers mark both stale, and their bits now hold passages that are gone.
    const inBlock = async (kind: string, block: number) =>
      (await pool.query<{ meeting_id: string; ref_id: string }>('SELECT meeting_id, ref_id FROM search_passages WHERE kind = $1 AND id >> 12 = $2 ORDER BY id LIMIT 3', [kind, block])).rows;
    const notes = await inBlock('note', 0);
    const summaries = await inBlock('summary', 1);
    expect([notes.length, summaries.length]).toEqual([3, 3]);
    const texts = Array.from({ length: 6 }, (_, i) => `${draw.search().filter.query} ${words.common[i]} ${words.middling[i]}\n`);
    for (const s of stores) {
      for (const [i, r] of notes.entries()) await s.proposals.apply((await s.proposals.proposeMemoEdit({ meetingId: r.meeting_id, content: texts[i]! })).id, { force: false });
      for (const [i, r] of summaries.entries())
        await s.proposals.apply((await s.proposals.proposeSummaryEdit({ meetingId: r.meeting_id, targetId: r.ref_id, content: texts[3 + i]! })).id, { force: false });
    }
    expected.length = 0;
    for (const s of searches) expected.push((await sqlite.search.transcripts(s.filter, { limit: 10, offset: s.offset })).pagination.total);
    const stale = async () => (await pool.query<{ blocks: number[] }>('SELECT array_agg(block ORDER BY block) AS blocks FROM search_bitmap_stale')).rows[0]!.blocks;
    // Two blocks stale: few enough for the statements planned once, which read those blocks' rows instead of their bits.
    expect((await stale()).filter((b) => b < 4)).toEqual([0, 1]);
    // Some words without a start time (PostgreSQL's pages are compared with its own other ways only).
    expect((await pool.query('UPDATE transcript_words SET start_ms = NULL WHERE idx % 3 = 1')).rowCount).toBeGreaterThan(0);
    expect(await differences('blocks 0 and 1 rewritten')).toEqual([]);
    // Two more marked stale: more than a plan made once allows, so each call is planned for its values.
    await pool.query('INSERT INTO search_bitmap_stale (block) VALUES (2), (3) ON CONFLICT DO NOTHING');
    expect((await stale()).filter((b) => b < 4)).toEqual([0, 1, 2, 3]);
    expect(await differences('blocks 0-3 stale')).toEqual([]);

    const lists = Array.from({ length: LISTS }, () => draw.list());
    const listed: string[] = [];
    let found = 0;
    for (const l of lists) {
      const [a, b] = await Promise.all([sqlite, postgres].map((s) => s.meetings.list(l.filter, { limit: 9, offset: l.offset })));
      if (a!.meetings.length > 0) found++;
      const key = (r: typeof a) => JSON.stringify([r!.pagination.total, r!.meetings.map((m) => m.id)]);
      if (key(a) !== key(b)) listed.push(`${JSON.stringify(l.filter)} at ${l.offset}: SQLite ${key(a)}, PostgreSQL ${key(b)}`);
    }
    expect(found).toBeGreaterThan(LISTS / 3);
    expect(listed).toEqual([]);
  }, 240_000);
});
