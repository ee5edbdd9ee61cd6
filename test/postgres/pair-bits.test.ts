// The pairs of words side by side kept as bits (migration 0032): a search ranks the exact phrase first within its
// window, and reads a passage's words for it only where the bits of the phrase's pairs' buckets say it may hold it. The
// bits are built by the rounds, a block at a time, again for a stale block, and for the newest block below its `upto`;
// a passage the bits do not answer for (past `upto`, in a stale block) is read. The phrase's passages must rank first
// whatever the bits' state, and bits written wrong by hand must hide one (they are read), and be named by the doctor.
import { describe, expect, it } from 'vitest';
import { needs } from '../support/system-tools.js';
import { buildSearchBitmaps, storeForBlock } from '../support/postgres.js';
import { RANK_WINDOW } from '../../src/db/queries/search.js';

/** Passages holding `alpha` and `beta` apart (not the phrase), one in every SPREAD ids from 0: blocks 0-2 whole, the newest (3) in part. */
const APART = 1_700;
const SPREAD = 8;
/** Passage ids holding the phrase, each of its own meeting (`exact_<id>`): blocks 1, 2 and the newest, 3. */
const EXACT = [5_001, 9_001, 12_801, 13_201];
/** The highest passage id written first (the last apart), and a phrase's written later past it, in the newest block. */
const TOP = (APART - 1) * SPREAD;
const PAST = TOP + 201;
/** A passage apart in the newest block, rewritten to hold the phrase (its meeting `exact_<id>` then). */
const REWRITTEN = TOP - 2 * SPREAD;
const PAGE = { offset: 0, limit: 10 };

describe.skipIf(needs('postgresql'))('PostgreSQL pairs of words side by side as bits (migration 0032)', () => {
  const pgs = storeForBlock(4);

  /** The meetings of the passages holding the phrase `alpha beta`, as the reference (every window passage's words read) ranks them first. */
  async function held(): Promise<string[]> {
    const r = await pgs.pool.query<{ meeting_id: string }>(
      `SELECT p.meeting_id FROM (SELECT id FROM search_passages WHERE words @@ plainto_tsquery('simple', 'alpha beta') ORDER BY id DESC LIMIT $1) w
         JOIN search_passages p USING (id) WHERE p.words @@ phraseto_tsquery('simple', 'alpha beta') ORDER BY 1`,
      [RANK_WINDOW],
    );
    return r.rows.map((row) => row.meeting_id);
  }

  /** The meetings of the hits the search ranks first as the phrase's (as many as the reference holds), sorted; and the next hit's. */
  async function rankedFirst(n: number): Promise<{ first: string[]; next: string | undefined }> {
    const { hits } = await pgs.store.search.transcripts({ query: 'alpha beta' }, PAGE);
    return { first: hits.slice(0, n).map((h) => h.meeting_id).sort(), next: hits[n]?.meeting_id };
  }

  /** That the phrase's passages are the first hits, and the one after is not one of them. */
  async function expectPhraseFirst(): Promise<void> {
    const exact = await held();
    const { first, next } = await rankedFirst(exact.length);
    expect(first).toEqual(exact);
    expect(next).toMatch(/^mtg_/);
  }

  /** The phrase's bucket's row of `block`: its bits. */
  const bucketBits = async (block: number) =>
    (await pgs.pool.query<{ bits: string }>("SELECT bits::text AS bits FROM search_bitmaps WHERE kind = 'p' AND term = syntheo_pair_bucket('alpha', 'beta')::text AND block = $1", [block])).rows[0]
      ?.bits;

  it('ranks the phrase first from the bits where they are built, from the words where not (past `upto`, a stale block), and reads the bits', async () => {
    const pool = pgs.pool;
    await pool.query("INSERT INTO meetings (id, title, started_at, note, created_at, updated_at) SELECT 'mtg_' || i, 't', '2026-01-01T00:00:00.000Z', '', 'x', 'x' FROM generate_series(0, 9) i");
    const exactMeetings = [...EXACT, PAST, REWRITTEN].map((id) => `exact_${id}`);
    await pool.query("INSERT INTO meetings (id, title, started_at, note, created_at, updated_at) SELECT m, 't', '2026-01-01T00:00:00.000Z', '', 'x', 'x' FROM unnest($1::text[]) m", [exactMeetings]);
    // Apart: each word twice, never `alpha` then `beta`. Saying them twice, they rank before every phrase passage (once
    // each): the best ranked, looked at first without the bits, are all apart, and the phrase's are looked for through
    // the bits (or, where they do not answer, read) among the rest of the window.
    await pool.query(
      `INSERT INTO search_passages (id, meeting_id, kind, ref_id, text)
       SELECT i * $2, 'mtg_' || (i % 10), 'note', 'mtg_' || (i % 10), CASE WHEN i % 2 = 0 THEN 'beta alpha gamma alpha delta beta' ELSE 'alpha delta beta gamma beta alpha' END
       FROM generate_series(0, $1 - 1) i`,
      [APART, SPREAD],
    );
    await pool.query("INSERT INTO search_passages (id, meeting_id, kind, ref_id, text) SELECT i, 'exact_' || i, 'note', 'exact_' || i, 'gamma alpha beta delta' FROM unnest($1::bigint[]) i", [EXACT]);
    await pool.query('ANALYZE');
    expect((await held()).length).toBe(EXACT.length);

    // Nothing built: every passage of the window read.
    await expectPhraseFirst();
    await buildSearchBitmaps(pool);
    const built = await pool.query<{ built: number; n: number }>("SELECT built, count(*)::int AS n FROM search_bitmap_terms WHERE kind = 'p' GROUP BY built");
    expect(built.rows).toEqual([{ built: 3, n: 1024 }]);
    // Built (blocks 0-2, and the newest below its `upto`): the phrase's passages hold its bucket's bits.
    for (const id of EXACT) expect((await bucketBits(id >> 12))?.[id & 4095]).toBe('1');
    await expectPhraseFirst();

    // The bits are read: the bit of block 1's phrase passage turned off by hand, it is no longer ranked first.
    const [inBlock1] = EXACT;
    const flip = () => pool.query("UPDATE search_bitmaps SET bits = bits # (B'1'::bit(4096) >> $1) WHERE kind = 'p' AND term = syntheo_pair_bucket('alpha', 'beta')::text AND block = 1", [inBlock1! & 4095]);
    await flip();
    expect((await rankedFirst(EXACT.length)).first).not.toContain(`exact_${inBlock1}`);
    // The doctor names it (every built block is in its sample of 3, and the newest's bits below `upto`).
    const bucket = (await pool.query<{ b: number }>("SELECT syntheo_pair_bucket('alpha', 'beta') AS b")).rows[0]!.b;
    const doctor = async () => (await pgs.store.admin.integrity({ full: true })).search.filter((line) => line.includes('search_bitmaps'));
    expect((await doctor()).join('\n')).toContain(`1 of a sample of blocks differ from their postings and tags (p ${bucket} 1;`);
    // Block 1 marked stale (as a writer marks it): its passages read again, the phrase's first.
    await pool.query('INSERT INTO search_bitmap_stale (block) VALUES (1)');
    await expectPhraseFirst();
    // A round builds it again: its bit back, the mark gone.
    await buildSearchBitmaps(pool);
    expect((await bucketBits(1))?.[inBlock1! & 4095]).toBe('1');
    expect((await pool.query('SELECT count(*)::int AS n FROM search_bitmap_stale')).rows[0].n).toBe(0);
    await expectPhraseFirst();
    expect(await doctor()).toEqual([]);

    // A phrase passage written in the newest block past `upto`: read (before a round), then in its bits (after one).
    const upto = async () => Number((await pool.query('SELECT upto FROM search_bitmap_tail')).rows[0].upto);
    expect(await upto()).toBe(TOP + 1);
    await pool.query("INSERT INTO search_passages (id, meeting_id, kind, ref_id, text) VALUES ($1::bigint, 'exact_' || $1::bigint, 'note', 'exact_' || $1::bigint, 'alpha beta')", [PAST]);
    await expectPhraseFirst();
    await buildSearchBitmaps(pool);
    expect(await upto()).toBe(PAST + 1);
    expect((await bucketBits(PAST >> 12))?.[PAST & 4095]).toBe('1');
    await expectPhraseFirst();
    // A passage below `upto` rewritten to hold the phrase (the newest block's passages recorded as changed): read until a
    // round takes the bits from it on away and adds them again.
    await pool.query("UPDATE search_passages SET meeting_id = 'exact_' || id, ref_id = 'exact_' || id, text = 'alpha beta gamma' WHERE id = $1", [REWRITTEN]);
    expect((await held()).length).toBe(EXACT.length + 2);
    await expectPhraseFirst();
    await buildSearchBitmaps(pool);
    expect((await bucketBits(REWRITTEN >> 12))?.[REWRITTEN & 4095]).toBe('1');
    await expectPhraseFirst();
    expect(await doctor()).toEqual([]);
    // Without the pairs' buckets (a repair clears every kept term): read again, the same.
    await pgs.store.admin.repairSearch();
    await expectPhraseFirst();
  }, 120_000);
});
