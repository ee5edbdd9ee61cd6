// The pairs of title words of migration 0033: list_meetings answers a `query` across two words (a word's end, its
// separators, and maybe the next word's start) from the `gv` and `gp` grams of meeting_grams and the distinct pairs of
// title_pairs, instead of rechecking every title the trigram index or two pairs of characters propose. The grams must
// be exactly the pairs (the reference here splits the database's lower() in JavaScript), title_pairs must hold every
// one, and lists, pages and totals must be what ILIKE over every row gives.
import { beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { needs } from '../support/system-tools.js';
import { addTitledMeeting, flipTagBit, listsAsRows, pgDatabaseMigratedTo, storeForBlock } from '../support/postgres.js';
import { openStore } from '../../src/db/engine.js';
import { compileTags } from '../../src/db/postgres/meetings.js';
import { meetingTagBitsDrift } from '../../src/db/postgres/bitmaps.js';
import { PARTICIPANT_SEPARATORS } from '../../src/db/queries/participant-words.js';
import type { MeetingFilter } from '../../src/db/queries/meetings.js';

const LONG_WORD = `${'a'.repeat(40)}ending`;
const TITLES = [
  'Incident review #12',
  'People Incident review',
  'Incident reviewer sync',
  'Incident  review',
  'Incident - review',
  'Planning #2041',
  'Planning',
  'Hiring: plan',
  'Hiring, planning',
  `${LONG_WORD} next`,
  'run a          b',
  'Caf\u00e9 plan',
  'd\u00e9j\u00e0 vu',
  'KELVIN \u212a-test',
  'x%_\\y design',
  'Design review2 notes',
  'Design r2d2',
  'Design reviewing',
  'tab\there',
  'odd\u0001 word',
  '  leading and trailing  ',
];
const FRAGMENTS = [
  'ing ',
  'ING ',
  'ing #',
  'g #',
  'g #2',
  'g #20',
  'Incident review',
  'incident REVIEW',
  'nt rev',
  't r',
  'Incident  review',
  'Incident - review',
  't - r',
  't -',
  'ing: ',
  'ing: p',
  'ing, plan',
  'ending next',
  'ending nex',
  `${'a'.repeat(32)}ending `,
  'a          b',
  'a        ',
  'a         ',
  'f\u00e9 plan',
  'caf\u00e9 ',
  'j\u00e0 vu',
  'n \u212a',
  'n k',
  'N K-TEST',
  '%_\\y design',
  'y design',
  'n review',
  'n r2',
  'n r2d2',
  'n reviewing',
  'b\there',
  'odd\u0001 w',
  'd wo',
  'and trailing ',
  'trailing  ',
  'mtg_',
  'mtg_1',
  'mtg_12',
  'nothing here',
  'w #',
];

describe.skipIf(needs('postgresql'))('PostgreSQL pairs of title words (migration 0033)', () => {
  const pgs = storeForBlock(4);

  beforeAll(async () => {
    await pgs.pool.query("INSERT INTO folders (id, path, name, created_at) VALUES ('fld_a', 'Team', 'Team', 'x')");
    await addMeetings(0, 90);
  }, 60_000);

  async function addMeetings(from: number, to: number): Promise<void> {
    for (let i = from; i < to; i++) {
      const at = new Date(Date.UTC(2026, 0, 1) + (i % 30) * 86_400_000).toISOString();
      const title = i % 3 === 0 ? `Item ${i}` : TITLES[i % TITLES.length]!;
      await addTitledMeeting(pgs.pool, { id: `mtg_${i}`, index: i, title, at, folderId: i % 2 === 0 ? 'fld_a' : null, withAnna: i % 4 === 1 });
    }
  }

  const SEPARATORS = new RegExp(`([^${PARTICIPANT_SEPARATORS.replace(/[\\\]^-]/g, '\\$&')}]+)([${PARTICIPANT_SEPARATORS.replace(/[\\\]^-]/g, '\\$&')}]*)`, 'gu');
  /** The pairs of a lower-cased title or id, as the migration makes them. */
  function pairsOf(lowered: string): string[] {
    const words = [...lowered.matchAll(SEPARATORS)].map((m) => ({ word: [...m[1]!], run: [...m[2]!] }));
    const out = new Set<string>();
    words.forEach(({ word, run }, i) => {
      const end = word.slice(-32).join('');
      if (run.length > 0) out.add(`gv${end}${run.slice(0, 8).join('')}`);
      const next = words[i + 1]?.word.join('');
      if (next !== undefined && run.length <= 8) out.add(`gp${end}${run.join('')}${/^[a-z]{1,32}$/.test(next) ? next : `${[...next][0]}\u0001`}`);
    });
    return [...out];
  }

  /** The `gv` and `gp` grams against the reference, and the pairs that title_pairs lacks (both must be empty). */
  async function drift(): Promise<{ grams: string[]; missing: string[] }> {
    const lowered = await pgs.pool.query<{ id: string; started_at: string; t: string; i: string }>('SELECT id, started_at, lower(title) AS t, lower(id) AS i FROM meetings');
    const pairs = (m: { t: string; i: string }) => [...new Set([...pairsOf(m.t), ...pairsOf(m.i)])];
    const want = lowered.rows.flatMap((m) => pairs(m).map((tag) => `${tag} ${m.started_at} ${m.id}`)).sort();
    const have = (
      await pgs.pool.query<{ r: string }>("SELECT tag || ' ' || started_at || ' ' || meeting_id AS r FROM meeting_grams WHERE (tag >= 'gp' AND tag < 'gq') OR (tag >= 'gv' AND tag < 'gw')")
    ).rows
      .map((r) => r.r)
      .sort();
    const kept = new Set((await pgs.pool.query<{ tag: string }>('SELECT tag FROM title_pairs')).rows.map((r) => r.tag));
    return {
      grams: [...want.filter((w) => !have.includes(w)).map((w) => `missing ${w}`), ...have.filter((h) => !want.includes(h)).map((h) => `extra ${h}`)],
      missing: [...new Set(lowered.rows.flatMap(pairs))].filter((tag) => !kept.has(tag)),
    };
  }

  const OTHERS: MeetingFilter[] = [{}, { folderPath: 'Team' }, { participant: 'kowal' }, { from: '2026-01-15T00:00:00.000Z' }];

  /** Every fragment alone and with other filters: whole lists, pages on both sides of the middle, totals. How many matched. */
  const compareLists = (fragments: readonly string[], others: readonly MeetingFilter[] = OTHERS): Promise<number> => listsAsRows(pgs.pool, pgs.store, fragments, others);

  it('holds each pair of the lower-cased title and id as a gram, through inserts, edits and deletes', async () => {
    expect(await drift()).toEqual({ grams: [], missing: [] });
    expect(pairsOf('incident  review #12')).toEqual(['gvincident  ', 'gpincident  review', 'gvreview ', 'gpreview #\u0001']);
    await pgs.pool.query("UPDATE meetings SET title = 'Quarterly design sync' WHERE id IN ('mtg_1', 'mtg_2')");
    await pgs.pool.query("UPDATE meetings SET started_at = '2025-12-01T00:00:00.000Z' WHERE id = 'mtg_5'");
    await pgs.pool.query("DELETE FROM meetings WHERE id = 'mtg_7'");
    expect(await drift()).toEqual({ grams: [], missing: [] });
    expect((await pgs.store.meetings.list({ query: 'quarterly design' }, { limit: 5, offset: 0 })).meetings.map((m) => m.id)).toEqual(['mtg_2', 'mtg_1']);
    await pgs.pool.query("UPDATE meetings SET title = 'Item 2' WHERE id = 'mtg_2'");
    // The pair stays in title_pairs, but not its meeting's gram.
    expect((await pgs.store.meetings.list({ query: 'quarterly design' }, { limit: 5, offset: 0 })).meetings.map((m) => m.id)).toEqual(['mtg_1']);
    await addMeetings(7, 8);
    expect(await drift()).toEqual({ grams: [], missing: [] });
    // The pairs whose first word is of ASCII letters are kept as bits, through the same writes; the others are not.
    expect(await meetingTagBitsDrift(pgs.pool)).toBeUndefined();
    const bitRows = async (tag: string) => (await pgs.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM meeting_tag_bits WHERE tag = $1', [tag])).rows[0]!.n;
    expect(await bitRows('gpincident review')).toBeGreaterThan(0);
    expect(await bitRows('gvplanning ')).toBeGreaterThan(0);
    expect(await bitRows('gpcaf\u00e9 plan')).toBe(0);
    expect(await bitRows('gpr2d2 \u0001')).toBe(0);
  });

  it("reads a fragment across two words as the pairs holding it, unless a next word not kept whole may hold it", async () => {
    const tags = async (query: string) => compileTags(pgs.pool, { query });
    const ing = await tags('ING ');
    expect(ing!.groups.map((g) => [...g].sort())).toEqual([['gvleading ', 'gvplanning ', 'gvtrailing  ']]);
    expect(ing!.title).toBeUndefined();
    expect((await tags('Incident review'))!.groups.map((g) => [...g].sort())).toEqual([['gpincident review', 'gpincident reviewer']]);
    // One character of a next word not kept whole (a number) is known: `g #`.
    expect((await tags('g #'))!.groups).toEqual([['gpplanning #\u0001']]);
    expect(await tags('nothing here')).toEqual({ groups: [[]], range: {}, none: true });
    // Two characters of a next word held as its first character only (`#2041`, `r2d2`): titles checked.
    for (const query of ['g #2', 'n r2', 'n review']) {
      const t = await tags(query);
      expect(t!.title, query).toBeDefined();
      expect(t!.groups.flat().some((tag) => /^g[pv]/.test(tag)), query).toBe(false);
    }
    // Not of that shape: more than 8 separators, a separator first, two runs of separators, or beyond printable ASCII
    // (ILIKE folds KELVIN SIGN in a pattern otherwise than lower() in a title).
    for (const query of ['a          b', ' review', 'review #12 x', 'caf\u00e9 p', 'n \u212a', 'odd\u0001 w'])
      expect((await tags(query))!.groups.flat().some((tag) => /^g[pv]/.test(tag)), query).toBe(false);
  });

  it('lists, pages and totals every fragment across words as ILIKE over every row does, alone and with other filters', async () => {
    expect(await compareLists(FRAGMENTS)).toBeGreaterThan(60);
  }, 180_000);

  it('lists random fragments across two words of the titles and ids as ILIKE does', async () => {
    const rows = (await pgs.pool.query<{ title: string; id: string }>('SELECT title, id FROM meetings ORDER BY id')).rows;
    let seed = 11;
    const rnd = (k: number) => {
      seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
      return seed % k;
    };
    const fragments = new Set<string>();
    for (const r of rows) {
      const text = [...(rnd(4) === 0 ? r.id : r.title)];
      const at = text.map((c, i) => (PARTICIPANT_SEPARATORS.includes(c) ? i : -1)).filter((i) => i > 0);
      if (at.length === 0) continue;
      const i = at[rnd(at.length)]!;
      const fragment = text.slice(Math.max(0, i - 1 - rnd(5)), i + 1 + rnd(5)).join('');
      fragments.add(rnd(3) === 0 ? fragment.toUpperCase() : fragment);
    }
    expect(fragments.size).toBeGreaterThan(30);
    expect(await compareLists([...fragments], [{}])).toBe(fragments.size);
  }, 180_000);

  it("a fragment's pairs kept as bits are counted from them, and the doctor names a pair title_pairs lacks", async () => {
    // A meeting's bit of `gvplanning ` turned off by hand lowers the total of `ing ` by one (it holds no `gvhiring `);
    // turned on, puts it back.
    const total = async () => (await pgs.store.meetings.list({ query: 'ing ' }, { limit: 2, offset: 0 })).pagination.total;
    const before = await total();
    const only = await pgs.pool.query<{ meeting_id: string }>(
      "SELECT meeting_id FROM meeting_grams WHERE tag = 'gvplanning ' AND meeting_id NOT IN (SELECT meeting_id FROM meeting_grams WHERE tag = 'gvhiring ') LIMIT 1",
    );
    const flip = () => flipTagBit(pgs.pool, 'gvplanning ', only.rows[0]!.meeting_id);
    await flip();
    expect(await total()).toBe(before - 1);
    await flip();
    expect(await total()).toBe(before);
    // A pair gone from title_pairs: its meetings are not found, the doctor says so, and the repair puts it back.
    await pgs.pool.query("DELETE FROM title_pairs WHERE tag = 'gvplanning '");
    expect(await total()).toBeLessThan(before);
    const found = await pgs.store.admin.integrity({ full: true });
    expect(found.search.join('\n')).toMatch(/pairs of title words of the newest \d+ meetings \(title_pairs\): 1 missing/);
    await pgs.store.admin.repairSearch();
    expect(await total()).toBe(before);
    expect(await drift()).toEqual({ grams: [], missing: [] });
  }, 120_000);

  it('a database migrated to 0032 gets the pairs of its meetings (grams, counts, bits, title_pairs) from migration 0033', async () => {
    const old = await pgs.cluster.createDatabase();
    await pgDatabaseMigratedTo(old, '0032_pair_bits');
    const q = new pg.Pool({ connectionString: old, max: 2 });
    try {
      await q.query(
        "INSERT INTO meetings (id, title, started_at, created_at, updated_at) SELECT 'mtg_' || i, CASE i % 3 WHEN 0 THEN 'Incident review ' || i WHEN 1 THEN 'Planning #' || i ELSE 'plain' END, 'x', 'x', 'x' FROM generate_series(1, 30) i",
      );
      expect((await q.query("SELECT count(*)::int AS n FROM meeting_grams WHERE tag >= 'gp' AND tag < 'gq'")).rows[0].n).toBe(0);
      const again = await openStore(old, { create: false });
      try {
        const differ = await q.query<{ n: number }>(
          '(SELECT count(*)::int AS n FROM (SELECT * FROM meeting_grams EXCEPT SELECT * FROM meeting_gram_rows) x) UNION ALL (SELECT count(*)::int FROM (SELECT * FROM meeting_gram_rows EXCEPT SELECT * FROM meeting_grams) y)',
        );
        expect(differ.rows.map((r) => r.n)).toEqual([0, 0]);
        expect((await q.query("SELECT sum(n)::int AS n FROM meeting_tag_counts WHERE tag = 'gpincident review'")).rows[0].n).toBe(10);
        expect((await q.query("SELECT count(*)::int AS n FROM title_pairs WHERE tag IN ('gpincident review', 'gvplanning ', 'gpplanning #\u0001', 'gvmtg_')")).rows[0].n).toBe(4);
        expect(await meetingTagBitsDrift(q)).toBeUndefined();
        expect((await again.meetings.list({ query: 'ing #' }, { limit: 100, offset: 0 })).pagination.total).toBe(10);
        expect(await again.admin.integrity({ full: true })).toMatchObject({ search: [] });
      } finally {
        await again.close();
      }
    } finally {
      await q.end();
    }
  }, 120_000);
});
