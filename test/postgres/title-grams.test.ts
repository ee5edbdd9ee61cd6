// The title grams beyond ASCII (migration 0009): list_meetings answers a `query` of 1-2 characters with no ASCII
// character (`é`, `会議`, an emoji) from meeting_grams instead of reading every title. The grams must be exactly
// each character and pair of adjacent characters of the lower-cased title and id (the reference here computes them
// from the database's lower() alone, without the view), on new meetings, after edits, on a database migrated from
// 0008, through `db copy`'s fill and the doctor's repair; and lists, pages and totals must be what ILIKE over every
// row gives. filter-tags.test.ts compares the same fragments with the other filters under concurrent writers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { needs } from '../support/system-tools.js';
import { addTitledMeeting, forgetMigrationsFrom, pgDatabaseMigratedTo, titleGramBits, undoSearchBitmaps, undoTitleWords, undoWordCounts, storeForBlock, listsAsRows } from '../support/postgres.js';
import { openStore } from '../../src/db/engine.js';
import { compileTags } from '../../src/db/postgres/meetings.js';
import { openPostgres, PG_MIGRATIONS_DIR } from '../../src/db/postgres/open.js';
import type { MeetingFilter } from '../../src/db/queries/meetings.js';

const TITLES = [
  'R\u00e9union \u00e9t\u00e9',
  'Re\u0301union',
  '\u00c9T\u00c9',
  '\u00d8resund',
  '\u00f8l',
  '\u00dcber m\u00fcller',
  'Mu\u0308ller',
  '\u4f1a\u8b70 plan',
  '\u8b70\u4e8b\u9332',
  '\u{1f680} launch \u{1f680}\u{1f680}',
  '\u{1f600}',
  '\u0130stanbul',
  'KELVIN \u212a',
  'stra\u00dfe',
  '\u03a9mega \u03c9',
  'plain ascii',
  // The pairs of `n a` (`n `, ` a`), apart.
  'Jan bar ask',
  'x%_\\y',
];
const FRAGMENTS = [
  '\u00e9',
  '\u00c9',
  'e\u0301',
  '\u00e9t',
  '\u00e9\u00e9',
  '\u00f8',
  '\u00d8',
  '\u00fc',
  '\u00dc',
  'u\u0308',
  'U\u0308',
  '\u4f1a',
  '\u8b70',
  '\u4f1a\u8b70',
  '\u8b70\u4e8b',
  '\u4e8b\u4f1a',
  '\u{1f680}',
  '\u{1f680}\u{1f680}',
  '\u{1f600}',
  '\u0130',
  '\u0131',
  '\u212a',
  '\u00df',
  '\u03a9',
  '\u03c9',
  '\u03c9m',
  ' \u{1f680}',
  '\u0301',
];

/** Every gram of a meeting, from the database's lower() of its title and id and nothing else. */
function gramsOf(lowered: string[]): string[] {
  const tag = (gram: string) => {
    const b = Buffer.from(gram, 'utf8');
    return `${b.every((x) => x < 0x80) ? 'g' : 'gu'}${b.toString('hex')}`;
  };
  const out = new Set<string>();
  for (const text of lowered) {
    const chars = [...text];
    chars.forEach((c, i) => {
      out.add(tag(c));
      if (i + 1 < chars.length) out.add(tag(c + chars[i + 1]!));
    });
  }
  return [...out].sort();
}

describe.skipIf(needs('postgresql'))('PostgreSQL title grams beyond ASCII (migration 0009)', () => {
  const pgs = storeForBlock(4);

  beforeAll(async () => {
    await pgs.pool.query("INSERT INTO folders (id, path, name, created_at) VALUES ('fld_a', 'Team', 'Team', 'x'), ('fld_b', 'Sales', 'Sales', 'x')");
    await addMeetings(0, 90);
  }, 60_000);

  // Ids beyond ASCII too (ids are what their writer gives): one holds `é` decomposed, which `é` typed composed
  // does not match in the id (only the title is compared in both forms).
  const idOf = (i: number) => (i === 7 ? 'mtg_\u00e9\u4f1a' : i === 8 ? 'mtg_e\u0301' : `mtg_${i}`);
  async function addMeetings(from: number, to: number): Promise<void> {
    for (let i = from; i < to; i++) {
      const at = new Date(Date.UTC(2026, 0, 1) + (i % 40) * 86_400_000).toISOString();
      await addTitledMeeting(pgs.pool, { id: idOf(i), index: i, title: TITLES[(i * 7) % TITLES.length]!, at, folderId: i % 3 === 0 ? 'fld_a' : i % 3 === 1 ? 'fld_b' : null, withAnna: i % 4 === 0 });
    }
  }

  /** meeting_grams against the reference, and meeting_tag_counts against meeting_grams (both must be empty). */
  async function drift(): Promise<{ grams: string[]; counts: number }> {
    const lowered = await pgs.pool.query<{ id: string; started_at: string; t: string; i: string }>('SELECT id, started_at, lower(title) AS t, lower(id) AS i FROM meetings');
    const want = lowered.rows.flatMap((m) => gramsOf([m.t, m.i]).map((g) => `${g} ${m.started_at} ${m.id}`)).sort();
    // The words' grams (`gw`, migration 0012) and their pairs' (`gv`, `gp`, 0033) apart: title-words.test.ts, title-pairs.test.ts.
    const have = (await pgs.pool.query<{ r: string }>("SELECT tag || ' ' || started_at || ' ' || meeting_id AS r FROM meeting_grams WHERE tag !~ '^g[wvp]'")).rows.map((r) => r.r).sort();
    const counts = await pgs.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ((SELECT tag, sum(n)::int FROM meeting_tag_counts WHERE tag LIKE 'g%' GROUP BY tag HAVING sum(n) <> 0)
         EXCEPT ALL (SELECT tag, count(*)::int FROM meeting_grams GROUP BY tag)) x`,
    );
    return { grams: [...want.filter((w) => !have.includes(w)).map((w) => `missing ${w}`), ...have.filter((h) => !want.includes(h)).map((h) => `extra ${h}`)], counts: counts.rows[0]!.n };
  }


  const OTHERS: MeetingFilter[] = [{}, { folderPath: 'Team' }, { participant: 'kowal' }, { from: '2026-01-20T00:00:00.000Z' }, { folderPath: 'Sales', from: '2026-01-10T00:00:00.000Z' }];
  const compareLists = (fragments = FRAGMENTS): Promise<number> => listsAsRows(pgs.pool, pgs.store, fragments, OTHERS);

  it('holds each character and pair of the lower-cased title and id, beyond ASCII too, through inserts, edits and deletes', async () => {
    expect(await drift()).toEqual({ grams: [], counts: 0 });
    await pgs.pool.query("UPDATE meetings SET title = '\u00c5se \u00e5' WHERE id IN ('mtg_1', 'mtg_2')");
    await pgs.pool.query("UPDATE meetings SET title = 'plain' WHERE id = 'mtg_3'");
    await pgs.pool.query("UPDATE meetings SET started_at = '2025-12-01T00:00:00.000Z' WHERE id = 'mtg_\u00e9\u4f1a'");
    await pgs.pool.query("DELETE FROM meetings WHERE id = 'mtg_4'");
    expect(await drift()).toEqual({ grams: [], counts: 0 });
    await addMeetings(4, 5);
  });

  it('answers a fragment with no ASCII character from its grams: one gram when it decides, else one a spelling', async () => {
    const tags = async (query: string) => compileTags(pgs.pool, { query });
    // Ø lower-cases to ø; both Unicode forms are the same: the gram alone is the answer (no title check).
    expect(await tags('\u00d8')).toEqual({ groups: [['guc3b8']], range: {}, none: false });
    expect(await tags('\u4f1a\u8b70')).toEqual({ groups: [['gue4bc9ae8adb0']], range: {}, none: false });
    expect(await tags('\u{1f680}')).toEqual({ groups: [['guf09f9a80']], range: {}, none: false });
    // é: composed (c3a9) or decomposed (65 cc81): either gram, each candidate's title checked.
    const e = await tags('\u00e9');
    expect(e!.groups).toHaveLength(1);
    expect(e!.groups[0]).toHaveLength(2);
    expect(e!.groups[0]).toContain('guc3a9');
    expect(e!.groups[0]!.every((tag) => tag.startsWith('gu'))).toBe(true);
    expect(e!.title).toBeDefined();
  });

  it('lists, pages and totals every short fragment beyond ASCII as ILIKE over every row does, alone and with other filters', async () => {
    expect(await compareLists()).toBeGreaterThan(40);
  }, 120_000);

  it('answers an ASCII fragment across words of one character from two of its pairs of characters, as ILIKE over every row does', async () => {
    const tags = async (query: string) => compileTags(pgs.pool, { query });
    // `n a` (in `plain ascii`) is in the pairs of title words (migration 0033, title-pairs.test.ts): exactly `plain ascii`'s.
    expect(await tags('N a')).toEqual({ groups: [['gpplain ascii']], range: {}, none: false });
    // Across three words, `n a ` is not: two of its pairs of characters `n `, ` a`, `a `, each a group, the candidates'
    // titles checked.
    const na = await tags('N a ');
    expect(na!.groups).toHaveLength(2);
    expect(na!.groups.every((g) => g.length === 1 && ['g6e20', 'g2061', 'g6120'].includes(g[0]!))).toBe(true);
    expect(na!.title?.pairs).toBe(true);
    // A pair no title or id holds: none, nothing read.
    expect((await tags('q z'))!.none).toBe(true);
    // A word of two or three characters: across two words, the pairs of title words (0033); across three, pg_trgm's
    // trigrams (no pairs).
    expect((await tags('ain a'))!.groups).toEqual([['gpplain ascii']]);
    expect((await tags('n as'))!.groups).toEqual([['gpplain ascii']]);
    expect((await tags('an bar a'))!.groups).toEqual([]);
    const fragments = ['n a', 'N A', 'N a ', 'n as', 'an bar a', 'x%_', '%_\\', 'n k', 'r m', 'e 4', '_ 1', 'q z', 'p l', 'an a', 'h \u212a'];
    expect(await compareLists(fragments)).toBeGreaterThan(8);
  }, 120_000);

  it('a database migrated from 0008 gets its grams beyond ASCII (and their counts) from migration 0009', async () => {
    const old = await pgs.cluster.createDatabase();
    const db = await openPostgres(old, { create: true });
    // Back to 0008: its function, no 0009 (nor 0010, 0012) in the history.
    await undoTitleWords(db.pool);
    const m8 = readFileSync(join(PG_MIGRATIONS_DIR, '0008_title_grams.sql'), 'utf8');
    const fn = m8.split('--> statement-breakpoint').find((s) => s.includes('CREATE FUNCTION syntheo_title_grams('))!;
    await db.pool.query(fn.replace(/^[\s\S]*?CREATE FUNCTION/, 'CREATE OR REPLACE FUNCTION'));
    await db.pool.query('DROP FUNCTION syntheo_title_grams_beyond_ascii(text, text)');
    // And without what came after 0009 (0013's bitmaps, 0010-0011's word counts): all run again on open.
    await undoSearchBitmaps(db.pool);
    await undoWordCounts(db.pool);
    await forgetMigrationsFrom(db.pool, '0009_non_ascii_grams');
    await db.pool.query(
      "INSERT INTO meetings (id, title, started_at, created_at, updated_at) SELECT 'mtg_' || i, CASE i % 3 WHEN 0 THEN '\u00c9t\u00e9 ' || i WHEN 1 THEN '\u4f1a\u8b70' ELSE 'plain' END, 'x', 'x', 'x' FROM generate_series(1, 30) i",
    );
    expect((await db.pool.query("SELECT count(*)::int AS n FROM meeting_grams WHERE tag LIKE 'gu%'")).rows[0].n).toBe(0);
    await db.close();
    const again = await openStore(old, { create: false });
    try {
      const q = new pg.Pool({ connectionString: old, max: 2 });
      try {
        const grams = await q.query<{ n: number }>("SELECT count(*)::int AS n FROM (SELECT * FROM meeting_grams EXCEPT SELECT * FROM meeting_gram_rows) x");
        expect(grams.rows[0]!.n).toBe(0);
        const missing = await q.query<{ n: number }>("SELECT count(*)::int AS n FROM (SELECT * FROM meeting_gram_rows EXCEPT SELECT * FROM meeting_grams) x");
        expect(missing.rows[0]!.n).toBe(0);
        expect((await q.query("SELECT sum(n)::int AS n FROM meeting_tag_counts WHERE tag = 'guc3a9'")).rows[0].n).toBe(10);
      } finally {
        await q.end();
      }
      const listed = await again.meetings.list({ query: '\u00c9' }, { limit: 100, offset: 0 });
      expect(listed.pagination.total).toBe(10);
      expect((await again.meetings.list({ query: '\u8b70' }, { limit: 5, offset: 0 })).pagination.total).toBe(10);
      expect(await again.admin.integrity({ full: true })).toMatchObject({ search: [] });
    } finally {
      await again.close();
    }
  });

  it('a database at 0021 gets the bits of its ASCII grams from migration 0022, and lists by a gram and a folder count from them', async () => {
    const old = await pgs.cluster.createDatabase();
    await pgDatabaseMigratedTo(old, '0021_calendar_bitmaps');
    const q = new pg.Pool({ connectionString: old, max: 2 });
    try {
      await q.query("INSERT INTO folders (id, path, name, created_at) VALUES ('fld_a', 'Team', 'Team', 'x')");
      await q.query(
        "INSERT INTO meetings (id, title, started_at, folder_id, created_at, updated_at) SELECT 'mtg_' || i, CASE i % 3 WHEN 0 THEN 'Jazz ' || i WHEN 1 THEN '\u4f1a\u8b70 plan' ELSE 'Kay' END, '2026-01-0' || (i % 9 + 1), CASE WHEN i % 2 = 0 THEN 'fld_a' END, 'x', 'x' FROM generate_series(1, 60) i",
      );
      const gramBits = "SELECT count(*)::int AS n FROM meeting_tag_bits WHERE tag >= 'g' AND tag < 'h'";
      expect((await q.query(gramBits)).rows[0].n).toBe(0);
      const again = await openStore(old, { create: false });
      try {
        // Each ASCII gram's meetings, and of the words only those of ASCII letters (`jazz`, `kay`, `plan`, `mtg`: 0030).
        const wrong = await q.query<{ n: number; tags: number }>(
          `WITH held AS (SELECT g.tag, n.n >> 12 AS block, bit_or(B'1'::bit(4096) >> (n.n & 4095)) AS bits FROM meeting_grams g JOIN meeting_numbers n ON n.meeting_id = g.meeting_id
                         WHERE ${titleGramBits('g.tag')} GROUP BY 1, 2),
                kept AS (SELECT tag, block, bit_xor(bits) AS bits FROM meeting_tag_bits WHERE tag >= 'g' AND tag < 'h' GROUP BY 1, 2)
           SELECT (SELECT count(*) FROM held h FULL JOIN kept k USING (tag, block) WHERE h.bits IS DISTINCT FROM k.bits)::int AS n, (SELECT count(*) FROM kept)::int AS tags`,
        );
        expect(wrong.rows[0]!.n).toBe(0);
        expect(wrong.rows[0]!.tags).toBeGreaterThan(20);
        expect((await q.query("SELECT count(*)::int AS n FROM meeting_tag_bits WHERE tag LIKE 'gu%' OR (tag LIKE 'gw%' AND tag !~ '^gw[a-z]+$')")).rows[0].n).toBe(0);
        expect((await q.query("SELECT array_agg(DISTINCT tag ORDER BY tag) AS t FROM meeting_tag_bits WHERE tag LIKE 'gw%'")).rows[0].t).toEqual(['gwjazz', 'gwkay', 'gwmtg', 'gwplan']);
        // `z` in the 20 `Jazz` titles, 10 of them in Team: counted from the bits, paged from the rows.
        const listed = await again.meetings.list({ query: 'z', folderPath: 'Team' }, { limit: 4, offset: 0 });
        expect([listed.pagination.total, listed.meetings.length]).toEqual([10, 4]);
        expect(await again.admin.integrity({ full: true })).toMatchObject({ search: [] });
      } finally {
        await again.close();
      }
    } finally {
      await q.end();
    }
  });

  it('doctor: grams beyond ASCII that drifted are named, and the search repair recomputes them and their counts', async () => {
    await pgs.pool.query('ALTER TABLE meetings DISABLE TRIGGER meetings_grams_au');
    try {
      await pgs.pool.query("UPDATE meetings SET title = '\u8b70\u4e8b \u00f8' WHERE id IN ('mtg_10', 'mtg_11')");
    } finally {
      await pgs.pool.query('ALTER TABLE meetings ENABLE TRIGGER meetings_grams_au');
    }
    expect((await pgs.store.admin.integrity({ full: true })).search.join('\n')).toMatch(/title grams of the newest 500 meetings \(meeting_grams\)/);
    await pgs.store.admin.repairSearch();
    expect((await pgs.store.admin.integrity({ full: true })).search).toEqual([]);
    expect(await drift()).toEqual({ grams: [], counts: 0 });
    expect(await compareLists()).toBeGreaterThan(40);
  }, 120_000);

  it('doctor: counts of tags and grams (meeting_tag_counts) that differ from their rows are named, and the search repair recomputes them', async () => {
    expect((await pgs.store.admin.integrity({ full: true })).search).toEqual([]);
    // One count off by one, one tag counted that no row has, one tag's counts gone.
    await pgs.pool.query("INSERT INTO meeting_tag_counts (tag, n) VALUES ('guc3b8', 1), ('gu00', 2)");
    await pgs.pool.query("DELETE FROM meeting_tag_counts WHERE tag = 'ffld_a'");
    const held = (await pgs.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM meeting_grams WHERE tag = 'guc3b8'")).rows[0]!.n;
    const report = (await pgs.store.admin.integrity({ full: true })).search.join('\n');
    expect(report).toContain(`counts of tags and title grams (meeting_tag_counts): 3 differ from their rows (ffld_a: 0 counted, `);
    expect(report).toContain(`gu00: 2 counted, 0 rows; guc3b8: ${held + 1} counted, ${held} rows)`);
    // A wrong count is a wrong total: `ø` alone is one gram, totalled from its counts.
    expect((await pgs.store.meetings.list({ query: '\u00f8' }, { limit: 1, offset: 0 })).pagination.total).toBe(held + 1);
    await pgs.store.admin.repairSearch();
    expect((await pgs.store.admin.integrity({ full: true })).search).toEqual([]);
    expect((await pgs.store.meetings.list({ query: '\u00f8' }, { limit: 1, offset: 0 })).pagination.total).toBe(held);
    expect(await drift()).toEqual({ grams: [], counts: 0 });
  });

  it('one statement retitling many meetings drops their old grams with an anti join, not a subquery read again for each old gram (migration 0028)', async () => {
    // Before 0028 the refresh's NOT IN was hashed only when the planner expected its subquery to fit in work_mem; past
    // that every old gram rescanned it (1,000 meetings, as `--repair-search` refreshes a call: 178 s). Here work_mem is
    // made small enough for the test's 90 meetings, and the plans of the statements the trigger runs are read through
    // auto_explain (log_nested_statements), sent to this client as notices.
    const c = await pgs.pool.connect();
    const plans: string[] = [];
    const planned = (n: { message?: string }) => plans.push(n.message ?? '');
    c.on('notice', planned);
    const ids = (await c.query<{ id: string }>('SELECT id FROM meetings ORDER BY id')).rows.map((r) => r.id);
    try {
      await c.query("LOAD 'auto_explain'");
      for (const set of ['auto_explain.log_min_duration = 0', 'auto_explain.log_nested_statements = on', "auto_explain.log_format = 'json'", 'client_min_messages = log', "work_mem = '64kB'"])
        await c.query(`SET ${set}`);
      await c.query("UPDATE meetings SET title = title || ' Q2' WHERE id = ANY($1::text[])", [ids]);
    } finally {
      await c.query('RESET ALL');
      c.off('notice', planned);
      c.release();
    }
    const deletes = plans.filter((p) => p.includes('"Operation": "Delete"') && p.includes('"Relation Name": "meeting_grams"'));
    expect(deletes).toHaveLength(1);
    expect(deletes[0]).toMatch(/"Join Type": "Anti"/);
    expect(deletes[0]).not.toMatch(/"Subplan Name": ?"SubPlan/);
    expect(await drift()).toEqual({ grams: [], counts: 0 });
    expect((await pgs.store.meetings.list({ query: 'q2' }, { limit: 1, offset: 0 })).pagination.total).toBe(ids.length);
    expect(await compareLists(['\u00e9', '2 ', 'q'])).toBeGreaterThan(5);
  }, 60_000);
});
