// The title words of migration 0012: list_meetings answers a `query` of 3+ characters without a separator from the
// `gw<word>` grams of meeting_grams (each word of the lower-cased title and id, a word longer than 64 characters as
// chunks of 64 every 32) and the distinct words of title_words, instead of rechecking every title the trigram index
// proposes. The grams must be exactly those words (the reference here splits the database's lower() in JavaScript),
// title_words must hold every one, and lists, pages and totals must be what ILIKE over every row gives.
// filter-tags.test.ts compares word fragments with the other filters under concurrent writers. The words of ASCII letters
// are kept as bits too (migration 0030): a list with such a word and another filter is counted from them.
import { beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { needs } from '../support/system-tools.js';
import { addTitledMeeting, expectPlannedOnce, flipTagBit, genericStatements, undoSearchBitmaps, undoTitleWords, storeForBlock, listedByRows, listsAsRows } from '../support/postgres.js';
import { openStore } from '../../src/db/engine.js';
import { compileTags } from '../../src/db/postgres/meetings.js';
import { openPostgres } from '../../src/db/postgres/open.js';
import { meetingTagBitsDrift } from '../../src/db/postgres/bitmaps.js';
import { PARTICIPANT_SEPARATORS } from '../../src/db/queries/participant-words.js';
import type { MeetingFilter } from '../../src/db/queries/meetings.js';

const LONG = `${'a'.repeat(70)}tail${'b'.repeat(20)}`;
const NEEDLE = `${'x'.repeat(40)}needle${'y'.repeat(60)}`;
const TITLES = [
  'Design review',
  'Redesign: pricing',
  'DESIGNER sync',
  'Weekly Sync',
  'Caf\u00e9 plan',
  'Cafe\u0301 plan',
  'x%_\\y design',
  LONG,
  NEEDLE,
  '\u03a9mega \u03c9',
  'KELVIN \u212a-test',
  'Budget #1869',
  'Kickoff kickoff7',
];
const FRAGMENTS = [
  'design',
  'DESIGN',
  'sign',
  'esig',
  'sync',
  'weekly',
  'review',
  'tail',
  'needle',
  `x${'needle'}y`,
  'a'.repeat(32),
  'aatail',
  'mega',
  '\u03c9me',
  'kelvin',
  '1869',
  '#186',
  'mtg',
  'num1',
  'nothing',
  'caf\u00e9',
  // Upper case beyond ASCII (the titles' words are lower-cased as the database lower-cases).
  'CAF\u00c9',
  '\u03a9ME',
  'Design review',
  '%_\\',
  'x%',
  'kick',
  'KICKOFF7',
];

describe.skipIf(needs('postgresql'))('PostgreSQL title words (migration 0012)', () => {
  const pgs = storeForBlock(4);

  beforeAll(async () => {
    await pgs.pool.query("INSERT INTO folders (id, path, name, created_at) VALUES ('fld_a', 'Team', 'Team', 'x'), ('fld_b', 'Sales', 'Sales', 'x')");
    await addMeetings(0, 80);
  }, 60_000);

  async function addMeetings(from: number, to: number): Promise<void> {
    for (let i = from; i < to; i++) {
      const at = new Date(Date.UTC(2026, 0, 1) + (i % 30) * 86_400_000).toISOString();
      // 40 meetings titled `Item num1<k>`: `num1` is in 40 words, more than MAX_TITLE_WORDS, each in one meeting.
      const title = i % 2 === 0 ? `Item num1${i}` : TITLES[((i - 1) / 2) % TITLES.length]!;
      await addTitledMeeting(pgs.pool, { id: `mtg_${i}`, index: i, title, at, folderId: i % 3 === 0 ? 'fld_a' : i % 3 === 1 ? 'fld_b' : null, withAnna: i % 4 === 1 });
    }
  }

  const SEPARATORS = new RegExp(`[${PARTICIPANT_SEPARATORS.replace(/[\\\]^-]/g, '\\$&')}]+`, 'u');
  /** The words of a lower-cased title and id, each longer than 64 characters as its chunks of 64 every 32. */
  function wordsOf(lowered: string[]): string[] {
    const out = new Set<string>();
    for (const word of lowered.join(' ').split(SEPARATORS)) {
      const chars = [...word];
      if (chars.length === 0) continue;
      for (let s = 0; s < Math.max(chars.length - 32, 1); s += 32) out.add(chars.slice(s, s + 64).join(''));
    }
    return [...out];
  }

  /** The `gw` grams against the reference, and the words that title_words lacks (both must be empty). */
  async function drift(): Promise<{ grams: string[]; missingWords: string[] }> {
    const lowered = await pgs.pool.query<{ id: string; started_at: string; t: string; i: string }>('SELECT id, started_at, lower(title) AS t, lower(id) AS i FROM meetings');
    const want = lowered.rows.flatMap((m) => wordsOf([m.t, m.i]).map((w) => `gw${w} ${m.started_at} ${m.id}`)).sort();
    const have = (await pgs.pool.query<{ r: string }>("SELECT tag || ' ' || started_at || ' ' || meeting_id AS r FROM meeting_grams WHERE tag LIKE 'gw%'")).rows.map((r) => r.r).sort();
    const words = new Set((await pgs.pool.query<{ word: string }>('SELECT word FROM title_words')).rows.map((r) => r.word));
    const needed = new Set(lowered.rows.flatMap((m) => wordsOf([m.t, m.i])));
    return {
      grams: [...want.filter((w) => !have.includes(w)).map((w) => `missing ${w}`), ...have.filter((h) => !want.includes(h)).map((h) => `extra ${h}`)],
      missingWords: [...needed].filter((w) => !words.has(w)),
    };
  }


  const OTHERS: MeetingFilter[] = [{}, { folderPath: 'Team' }, { participant: 'kowal' }, { from: '2026-01-15T00:00:00.000Z' }, { folderPath: 'Sales', participant: 'anna', from: '2026-01-05T00:00:00.000Z' }];

  /** Every fragment alone and with other filters: whole lists, pages on both sides of the middle, totals. How many matched. */
  const compareLists = (fragments: readonly string[] = FRAGMENTS, others: readonly MeetingFilter[] = OTHERS): Promise<number> => listsAsRows(pgs.pool, pgs.store, fragments, others);

  it('holds each word of the lower-cased title and id as a gram (long words as chunks), through inserts, edits and deletes', async () => {
    expect(await drift()).toEqual({ grams: [], missingWords: [] });
    await pgs.pool.query("UPDATE meetings SET title = 'Quarterly design sync' WHERE id IN ('mtg_1', 'mtg_2')");
    await pgs.pool.query(`UPDATE meetings SET title = $1 WHERE id = 'mtg_3'`, [`${'q'.repeat(100)}zebra`]);
    await pgs.pool.query("UPDATE meetings SET started_at = '2025-12-01T00:00:00.000Z' WHERE id = 'mtg_5'");
    await pgs.pool.query("DELETE FROM meetings WHERE id = 'mtg_7'");
    expect(await drift()).toEqual({ grams: [], missingWords: [] });
    expect((await pgs.store.meetings.list({ query: 'zebra' }, { limit: 5, offset: 0 })).meetings.map((m) => m.id)).toEqual(['mtg_3']);
    expect((await pgs.store.meetings.list({ query: 'quarterly' }, { limit: 5, offset: 0 })).pagination.total).toBe(2);
    await pgs.pool.query("UPDATE meetings SET title = 'Item num11' WHERE id = 'mtg_3'");
    // The word stays in title_words, but no gram: it matches nothing.
    expect((await pgs.store.meetings.list({ query: 'zebra' }, { limit: 5, offset: 0 })).pagination.total).toBe(0);
    await addMeetings(7, 8);
    expect(await drift()).toEqual({ grams: [], missingWords: [] });
    // The words of ASCII letters are kept as bits too (migration 0030), through the same writes; the others are not.
    expect(await meetingTagBitsDrift(pgs.pool)).toBeUndefined();
    const bitRows = async (tag: string) => (await pgs.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM meeting_tag_bits WHERE tag = $1', [tag])).rows[0]!.n;
    expect(await bitRows('gwquarterly')).toBeGreaterThan(0);
    expect(await bitRows('gwdesign')).toBeGreaterThan(0);
    expect(await bitRows('gw#1869')).toBe(0);
    expect(await bitRows('gwcaf\u00e9')).toBe(0);
  });

  it('reads a fragment without a separator as the grams of the words holding it; other fragments as before', async () => {
    const tags = async (query: string) => compileTags(pgs.pool, { query });
    const design = await tags('DESIGN');
    expect(design!.groups.map((g) => [...g].sort())).toEqual([['gwdesign', 'gwdesigner', 'gwredesign']]);
    expect(design!.title).toBeUndefined();
    expect(await tags('nothing')).toEqual({ groups: [[]], range: {}, none: true });
    // Across words, the pairs of title words (migration 0033, title-pairs.test.ts).
    expect((await tags('Design review'))!.groups).toEqual([['gpdesign review']]);
    // Longer than 32 characters, or in two Unicode forms: titles checked.
    for (const query of ['a'.repeat(33), 'caf\u00e9']) {
      const t = await tags(query);
      expect(t!.groups, query).toEqual([]);
      expect(t!.title, query).toBeDefined();
    }
    // In more than 32 words (MAX_TITLE_WORDS) that are few, in few meetings (RARE_TITLE_WORDS): their grams all the same
    // (`num1`: 40 words, 40 meetings; a word kept in title_words when its title changed is read too, its gram gone).
    const num1 = await tags('num1');
    expect(num1!.groups).toHaveLength(1);
    expect(num1!.groups[0]!.length).toBeGreaterThanOrEqual(40);
    expect(num1!.groups[0]!.every((tag) => /^gwnum1\d+$/.test(tag))).toBe(true);
    expect(num1!.title).toBeUndefined();
    // With their patterns: each meeting's title is checked instead when another filter drives.
    expect(num1!.rareWords).toMatchObject({ group: num1!.groups[0], id: '%num1%' });
    // Past either bound: titles checked.
    for (const rareTitleWords of [{ words: 39, meetings: 2_000 }, { words: 500, meetings: 39 }]) {
      const t = await compileTags(pgs.pool, { query: 'num1' }, { rareTitleWords });
      expect(t!.groups, JSON.stringify(rareTitleWords)).toEqual([]);
      expect(t!.title, JSON.stringify(rareTitleWords)).toBeDefined();
    }
  });

  it('lists, pages and totals every fragment as ILIKE over every row does, alone and with other filters', async () => {
    // The words holding a fragment read by a plan made once when three ASCII letters or digits in a row give the trigram
    // index something to find (`design`, `1869`...), else planned for their values (`ΩME`, `ωme`).
    const [once, planned] = ['FROM title_words WHERE word LIKE (SELECT like_escape(lower($1)', 'FROM title_words WHERE word LIKE (lower($1) COLLATE "C")'];
    const spied = genericStatements(once, planned);
    try {
      expect(await compareLists()).toBeGreaterThan(40);
      expectPlannedOnce(spied, once, planned);
    } finally {
      spied.spy.mockRestore();
    }
  }, 120_000);

  it("a fragment's few title words alone, kept as bits (migration 0030), are counted from their bits, not merged", async () => {
    // `design`: gwdesign, gwdesigner, gwredesign (MERGED_TITLE_WORDS at most). A meeting's bit of the one it holds
    // turned off by hand (a delta XORed in) lowers the total by one; turned on again, puts it back.
    const total = async () => (await pgs.store.meetings.list({ query: 'design' }, { limit: 2, offset: 0 })).pagination.total;
    const before = await total();
    const only = await pgs.pool.query<{ meeting_id: string }>(
      "SELECT meeting_id FROM meeting_grams WHERE tag = 'gwdesign' AND meeting_id NOT IN (SELECT meeting_id FROM meeting_grams WHERE tag IN ('gwdesigner', 'gwredesign')) LIMIT 1",
    );
    const flip = () => flipTagBit(pgs.pool, 'gwdesign', only.rows[0]!.meeting_id);
    await flip();
    expect(await total()).toBe(before - 1);
    await flip();
    expect(await total()).toBe(before);
    expect(await meetingTagBitsDrift(pgs.pool)).toBeUndefined();
  });

  it("a fragment's words not of letters, beside its words of letters, have their bits made from their rows where its words are walked", async () => {
    // `kick`: `kickoff` (kept as bits) and `kickoff7` (not: made from its rows, MADE_BITS). Alone, with dates, and beside
    // filters of one tag each or a participant fragment's names (the title checked instead where another drives:
    // rareWords); beside dates and another filter, or a participant fragment in two words (`a`), compiled again without.
    const listed = { probeMany: true, counted: true } as const;
    const kick = await compileTags(pgs.pool, { query: 'kick' });
    expect(kick!.groups.map((g) => [...g].sort())).toEqual([['gwkickoff', 'gwkickoff7']]);
    expect(kick!.made).toEqual(['gwkickoff7']);
    expect(kick!.rareWords).toBeUndefined();
    expect((await compileTags(pgs.pool, { query: 'kick', from: '2026-01-10T00:00:00.000Z' }))!.made).toEqual(['gwkickoff7']);
    const beside = await compileTags(pgs.pool, { query: 'kick', participant: 'anna', folderPath: 'Team' }, listed);
    expect(beside!.made).toEqual(['gwkickoff7']);
    expect([...beside!.rareWords!.group].sort()).toEqual(['gwkickoff', 'gwkickoff7']);
    expect((await compileTags(pgs.pool, { query: 'kick', participant: 'Anna Kowalski' }, listed))!.made).toEqual(['gwkickoff7']);
    for (const other of [{ participant: 'a' }, { participant: 'anna', from: '2026-01-10T00:00:00.000Z' }]) {
      const again = await compileTags(pgs.pool, { query: 'kick', ...other }, listed);
      expect(again!.made, JSON.stringify(other)).toBeUndefined();
      expect(again!.rareWords, JSON.stringify(other)).toBeUndefined();
    }
    // Every meeting titled `Kickoff kickoff7` holds both: one whose title holds only `kickoff7` is counted from the made
    // bits alone, and a bit of `kickoff` turned off by hand where a meeting holds only it lowers the total by one, alone
    // and beside a participant's word. A folder of two meetings drives its list: the title checked there.
    await pgs.pool.query("INSERT INTO folders (id, path, name, created_at) VALUES ('fld_k', 'Tiny', 'Tiny', 'x')");
    await pgs.pool.query(
      "INSERT INTO meetings (id, title, started_at, folder_id, created_at, updated_at) VALUES ('mtg_k1', 'Kickoff7 only', '2026-01-03T00:00:00.000Z', 'fld_k', 'x', 'x'), ('mtg_k2', 'Kickoff alone', '2026-01-04T00:00:00.000Z', NULL, 'x', 'x'), ('mtg_k3', 'Kickoff7 too', '2026-01-05T00:00:00.000Z', 'fld_a', 'x', 'x'), ('mtg_k4', 'Budget', '2026-01-06T00:00:00.000Z', 'fld_k', 'x', 'x')",
    );
    await pgs.pool.query("INSERT INTO participants (id, meeting_id, name) VALUES ('par_k1', 'mtg_k1', 'Anna Kowalski'), ('par_k2', 'mtg_k2', 'Anna Kowalski')");
    try {
      const others: MeetingFilter[] = [{}, { from: '2026-01-04T00:00:00.000Z' }, { participant: 'anna' }, { folderPath: 'Team' }, { folderPath: 'Tiny' }, { participant: 'a' }, { participant: 'Anna Kowalski', folderPath: 'Team' }];
      expect(await compareLists(['kick', 'KICKOFF', 'ckoff7'], others)).toBe(18);
      for (const other of [{}, { participant: 'anna' }]) {
        const filter = { query: 'kick', ...other };
        const total = async () => (await pgs.store.meetings.list(filter, { limit: 2, offset: 0 })).pagination.total;
        const before = await total();
        expect(before).toBe((await listedByRows(pgs.pool, filter)).length);
        const flip = () => flipTagBit(pgs.pool, 'gwkickoff', 'mtg_k2');
        await flip();
        expect(await total(), JSON.stringify(other)).toBe(before - 1);
        await flip();
        expect(await total()).toBe(before);
      }
    } finally {
      await pgs.pool.query("DELETE FROM meetings WHERE id IN ('mtg_k1', 'mtg_k2', 'mtg_k3', 'mtg_k4')");
      await pgs.pool.query("DELETE FROM folders WHERE id = 'fld_k'");
    }
  });

  it("a fragment's few words beside other filters and dates are walked within them, counted from the calendar cover's bits less its edge days' meetings outside", async () => {
    // The meetings start at midnight on 30 days from 1 January 2026. The first range cuts its first and last days: the
    // first day's meetings are in the cover's bits and outside the range, taken away (dateTerm's `outside`).
    const ranges = [
      { from: '2026-01-05T12:00:00.000Z', to: '2026-01-20T06:00:00.000Z' },
      { from: '2026-01-01', to: '2026-01-31' },
      { to: '2026-01-09T00:00:00.000Z' },
      { from: '2026-01-29T00:00:00.001Z' },
    ];
    const others: MeetingFilter[] = ranges.flatMap((r) => [{ participant: 'anna', ...r }, { folderPath: 'Team', ...r }, { participant: 'Anna Kowalski', ...r }]);
    // A meeting of the first range's first day, before its time, in every filter: counted by the cover, taken away.
    await addTitledMeeting(pgs.pool, { id: 'mtg_edge', index: 900, title: 'Design edge', at: '2026-01-05T06:00:00.000Z', folderId: 'fld_a', withAnna: true });
    try {
      expect(await compareLists(['design', 'sign', 'sync', 'review', 'kick'], others)).toBe(36);
    } finally {
      await pgs.pool.query("DELETE FROM meetings WHERE id = 'mtg_edge'");
    }
    // Counted from the bits: a bit of `design` turned off by hand, where a meeting in the range holds the word, lowers the total by one.
    const filter = { query: 'design', participant: 'anna', ...ranges[0] };
    const listed = await listedByRows(pgs.pool, filter);
    const held = (await pgs.pool.query<{ id: string }>("SELECT id FROM meetings WHERE id = ANY($1::text[]) AND lower(title) ~ '(^|[^a-z])design([^a-z]|$)' ORDER BY id LIMIT 1", [listed])).rows[0]!.id;
    const total = async () => (await pgs.store.meetings.list(filter, { limit: 2, offset: 0 })).pagination.total;
    expect(await total()).toBe(listed.length);
    const flip = () => flipTagBit(pgs.pool, 'gwdesign', held);
    await flip();
    try {
      expect(await total()).toBe(listed.length - 1);
    } finally {
      await flip();
    }
    expect(await total()).toBe(listed.length);
  });

  it('a database migrated from 0010 gets the words of its meetings (grams, counts, title_words) from migration 0012', async () => {
    const old = await pgs.cluster.createDatabase();
    const db = await openPostgres(old, { create: true });
    // 0013 undone too: the migrator runs only migrations newer than the last one applied.
    await undoSearchBitmaps(db.pool);
    await undoTitleWords(db.pool);
    await db.pool.query(
      "INSERT INTO meetings (id, title, started_at, created_at, updated_at) SELECT 'mtg_' || i, CASE i % 3 WHEN 0 THEN 'Design review ' || i WHEN 1 THEN 'Redesign' ELSE 'plain' END, 'x', 'x', 'x' FROM generate_series(1, 30) i",
    );
    expect((await db.pool.query("SELECT count(*)::int AS n FROM meeting_grams WHERE tag LIKE 'gw%'")).rows[0].n).toBe(0);
    await db.close();
    const again = await openStore(old, { create: false });
    const q = new pg.Pool({ connectionString: old, max: 2 });
    try {
      const differ = await q.query<{ n: number }>(
        '(SELECT count(*)::int AS n FROM (SELECT * FROM meeting_grams EXCEPT SELECT * FROM meeting_gram_rows) x) UNION ALL (SELECT count(*)::int FROM (SELECT * FROM meeting_gram_rows EXCEPT SELECT * FROM meeting_grams) y)',
      );
      expect(differ.rows.map((r) => r.n)).toEqual([0, 0]);
      expect((await q.query("SELECT sum(n)::int AS n FROM meeting_tag_counts WHERE tag = 'gwredesign'")).rows[0].n).toBe(10);
      expect((await q.query("SELECT count(*)::int AS n FROM title_words WHERE word IN ('design', 'redesign', 'review', 'plain', 'mtg')")).rows[0].n).toBe(5);
      const listed = await again.meetings.list({ query: 'design' }, { limit: 100, offset: 0 });
      expect(listed.pagination.total).toBe(20);
      expect(await again.admin.integrity({ full: true })).toMatchObject({ search: [] });
    } finally {
      await q.end();
      await again.close();
    }
  });

  it('takes copies of a word past its bound for too many words, and lists the same meetings', async () => {
    // title_words has no unique key (two writers may each add a word): copies of `zebrafish` written before the words of
    // titles added after them, as many rows as make too many words. The fragment is then matched on the titles.
    await pgs.pool.query("INSERT INTO title_words (word) SELECT 'zebrafish' FROM generate_series(1, 1002)");
    await pgs.pool.query(
      "INSERT INTO meetings (id, title, started_at, folder_id, created_at, updated_at) VALUES ('mtg_zz1', 'Zebra sync', '2026-01-20T00:00:00.000Z', 'fld_a', 'x', 'x'), ('mtg_zz2', 'Zebrafish plan', '2026-01-21T00:00:00.000Z', NULL, 'x', 'x')",
    );
    try {
      expect(await compareLists(['zebr', 'ZEBRA'], [{}, { folderPath: 'Team' }])).toBe(4);
      expect((await pgs.store.meetings.list({ query: 'zebr' }, { limit: 200, offset: 0 })).pagination.total).toBe(2);
    } finally {
      await pgs.pool.query("DELETE FROM meetings WHERE id IN ('mtg_zz1', 'mtg_zz2')");
      await pgs.pool.query("DELETE FROM title_words WHERE word LIKE 'zebra%' OR word LIKE 'zz%'");
    }
  });

  it('a word missing from title_words is found by the doctor and put back by the search repair', async () => {
    await pgs.pool.query("DELETE FROM title_words WHERE word = 'weekly'");
    expect((await pgs.store.meetings.list({ query: 'weekly' }, { limit: 5, offset: 0 })).pagination.total).toBe(0);
    expect((await pgs.store.admin.integrity({ full: true })).search.join('\n')).toMatch(/title words of the newest 500 meetings \(title_words\): 1 missing/);
    await pgs.store.admin.repairSearch();
    expect((await pgs.store.admin.integrity({ full: true })).search).toEqual([]);
    expect(await drift()).toEqual({ grams: [], missingWords: [] });
    expect(await compareLists()).toBeGreaterThan(40);
  }, 120_000);
});
