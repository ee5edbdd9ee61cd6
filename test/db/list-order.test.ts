// list_meetings read from the keyed indexes of migration 0011 (meeting_keys, meeting_titles and
// meeting_terms, rowid = start time * 8192 + slot): seeded random writes through plain SQL (meetings
// added, re-titled, re-timed, deleted, written again with INSERT OR REPLACE; folders moved;
// participants added, renamed, removed), many meetings in the same millisecond, and after each round
// every filter alone and combined, at several pages, against a brute-force answer: the filters' own
// conditions evaluated over every meeting row, sorted by (started_at desc, id desc), and for short
// ASCII title fragments a substring test in JavaScript.
import { describe, expect, it } from 'vitest';
import type { Sqlite } from '../../src/db/open.js';
import { compileMeetingFilter, listMeetings, rangeSql, type MeetingFilter } from '../../src/db/queries/meetings.js';
import { fillListIndexes, gramToken, gramsOf, titleWordsOf } from '../../src/db/queries/list-index.js';
import { checkIntegrity, repairSearchIndex } from '../../src/db/queries/integrity.js';
import { ensureFolderPath } from '../../src/db/queries/folders.js';
import { testDbs } from '../support/db.js';
import { makeMeeting, makeParticipant, makeSeries } from '../support/factories.js';
import { seeded } from '../support/seeded.js';
import { expectListPages } from '../support/lists.js';

const db = testDbs();

const TITLE_WORDS = ['Design', 'design', 'DESIGN', 'Budget', 'in', 'IN', 'Café', 'Café'.normalize('NFD'), 'Núñez', 'e', 'E', '%', '_', '50%_off', 'review', 'Q', 'x'];
const NAMES = ['Yuki Tanaka', 'Omar Haddad', 'José Núñez', 'Anne-Marie O\'Neil', 'Ada', 'Sam Berg', 'Kim Berg 2'];
// Few distinct instants: many meetings share a millisecond, and some are before 1970.
const TIMES = ['2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.001Z', '2026-03-02T00:00:00.000Z', '2025-12-31T23:59:59.999Z', '1969-07-20T20:17:40.000Z', '2026-03-01T09:59:59.999Z'];
const FOLDERS = ['Legal', 'Legal/Contracts', 'Legal/Contracts/2026', 'Sales', 'Sales/EMEA'];
const folderPaths = (s: Sqlite) => (s.prepare('SELECT path FROM folders ORDER BY path').all() as { path: string }[]).map((x) => x.path);
const FRAGMENTS = ['e', 'E', 'in', 'de', 'design', 'café', 'CAFÉ'.normalize('NFD'), '%', '_', '%_', 'q', 'mt', 'zz', 'núñ', 'é'];

/** What list_meetings must answer: every filter's own SQL condition over all meeting rows, no index walked. */
function bruteForce(s: Sqlite, filter: MeetingFilter): string[] {
  const c = compileMeetingFilter(s, filter);
  if (c.none) return [];
  const range = rangeSql(c.range, 'm.started_at');
  const where = [...c.parts.map((p) => p.sql), ...range.sql];
  const params = [...c.parts.flatMap((p) => p.params), ...range.params];
  return (s.prepare(`SELECT m.id FROM meetings m ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY m.started_at DESC, m.id DESC`).all(...params) as { id: string }[]).map((r) => r.id);
}

function world(s: Sqlite, seed: number) {
  const r = seeded(seed);
  const series = [makeSeries(s), makeSeries(s)];
  for (const f of FOLDERS) ensureFolderPath(s, f);
  const ids = () => (s.prepare('SELECT id FROM meetings ORDER BY rowid').all() as { id: string }[]).map((x) => x.id);
  const title = () => Array.from({ length: 1 + r.int(4) }, () => r.one(TITLE_WORDS)).join(' ');
  const add = () => {
    const id = makeMeeting(s, { title: title(), startedAt: r.one(TIMES), folderPath: r.next() < 0.8 ? r.one(folderPaths(s)) : null, seriesId: r.next() < 0.3 ? r.one(series) : null });
    for (let i = r.int(3); i > 0; i--) makeParticipant(s, id, { name: r.one(NAMES), email: r.next() < 0.3 ? `${r.one(['yuki', 'sam'])}@acme.test` : null });
    return id;
  };
  const ops: (() => void)[] = [
    add,
    add,
    () => ids().length && s.prepare('UPDATE meetings SET title = ? WHERE id = ?').run(title(), r.one(ids())),
    () => ids().length && s.prepare('UPDATE meetings SET started_at = ? WHERE id = ?').run(r.one(TIMES), r.one(ids())),
    () => ids().length && s.prepare('DELETE FROM meetings WHERE id = ?').run(r.one(ids())),
    () => ids().length && s.prepare('UPDATE meetings SET folder_id = (SELECT id FROM folders WHERE path = ?) WHERE id = ?').run(r.one(folderPaths(s)), r.one(ids())),
    () => ids().length && s.prepare('UPDATE meetings SET series_id = ? WHERE id = ?').run(r.one([...series, null]), r.one(ids())),
    () => {
      // The same row written again: its delete triggers need not fire.
      const id = ids().length ? r.one(ids()) : undefined;
      if (!id) return;
      const m = s.prepare('SELECT * FROM meetings WHERE id = ?').get(id) as Record<string, unknown>;
      s.prepare(`INSERT OR REPLACE INTO meetings (${Object.keys(m).join(', ')}) VALUES (${Object.keys(m).map(() => '?').join(', ')})`).run(
        ...Object.entries(m).map(([k, v]) => (k === 'title' ? title() : k === 'started_at' ? r.one(TIMES) : v)),
      );
    },
    () => {
      // An upsert that lands on an existing meeting and changes none of its indexed columns: its rows stay.
      const id = ids().length ? r.one(ids()) : undefined;
      if (!id)
        return;
      s.prepare(
        'INSERT INTO meetings (id, title, started_at, created_at, updated_at) SELECT id, title, started_at, created_at, updated_at FROM meetings WHERE id = ? ON CONFLICT(id) DO UPDATE SET updated_at = excluded.updated_at',
      ).run(id);
    },
    () => {
      const p = s.prepare('SELECT id FROM participants ORDER BY rowid').all() as { id: string }[];
      if (p.length) s.prepare('UPDATE participants SET name = ? WHERE id = ?').run(r.one(NAMES), r.one(p).id);
    },
    () => {
      const p = s.prepare('SELECT id FROM participants ORDER BY rowid').all() as { id: string }[];
      if (p.length) s.prepare('DELETE FROM participants WHERE id = ?').run(r.one(p).id);
    },
    () => {
      // Sales moves under Legal and back: every meeting of the subtree gets new folder tags.
      const sales = s.prepare("SELECT id, parent_id FROM folders WHERE name = 'Sales' OR path = 'Sales'").get() as { id: string; parent_id: string | null } | undefined;
      if (!sales) return;
      const legal = (s.prepare("SELECT id FROM folders WHERE path = 'Legal'").get() as { id: string }).id;
      // Paths first (the folder filter's brute force reads them), then the parent (the tags follow it).
      if (sales.parent_id === null) s.prepare("UPDATE folders SET path = 'Legal/' || path WHERE path = 'Sales' OR path LIKE 'Sales/%'").run();
      else s.prepare("UPDATE folders SET path = substr(path, 7) WHERE path = 'Legal/Sales' OR path LIKE 'Legal/Sales/%'").run();
      s.prepare('UPDATE folders SET parent_id = ? WHERE id = ?').run(sales.parent_id === null ? legal : null, sales.id);
    },
  ];
  return {
    r,
    series,
    step: () => {
      const i = r.int(ops.length);
      ops[i]!();
      // After every write: each tag holds as many meetings in meeting_terms as in meeting_tags, and each meeting has one key.
      const bad = (s.prepare('SELECT tag, count(*) AS n FROM meeting_tags GROUP BY tag').all() as { tag: string; n: number }[]).filter(
        (t) => (s.prepare('SELECT count(*) AS n FROM meeting_terms WHERE meeting_terms MATCH ?').get(`"${t.tag}"`) as { n: number }).n !== t.n,
      );
      const keys = (s.prepare('SELECT count(*) AS n FROM meeting_keys').get() as { n: number }).n;
      const ms = (s.prepare('SELECT count(*) AS n FROM meetings').get() as { n: number }).n;
      if (bad.length || keys !== ms) throw new Error(`op ${i}: ${JSON.stringify(bad)} keys ${keys} meetings ${ms}`);
    },
  };
}

function filters(s: Sqlite, r: ReturnType<typeof seeded>, series: string[]): MeetingFilter[] {
  const paths = (s.prepare('SELECT path FROM folders').all() as { path: string }[]).map((x) => x.path);
  const time = () => r.one(TIMES).slice(0, r.next() < 0.5 ? 10 : 24);
  const out: MeetingFilter[] = [];
  for (let i = 0; i < 24; i++) {
    const f: MeetingFilter = {};
    if (r.next() < 0.6) f.query = r.one(FRAGMENTS);
    if (r.next() < 0.4) f.folderPath = r.one(paths);
    if (r.next() < 0.2) f.seriesId = r.one(series);
    if (r.next() < 0.4) f.participant = r.one(['berg', 'Yuki', 'ñ', 'yu', 'Sam Berg', 'acme', 'nobody']);
    if (r.next() < 0.3) {
      const [a, b] = [time(), time()].sort();
      if (r.next() < 0.7) f.from = a!;
      if (r.next() < 0.7) f.to = b!;
    }
    out.push(f);
  }
  return out;
}

/** Every page of the answer at a few limits, against the brute-force order and count. */
function expectSameAnswers(s: Sqlite, filter: MeetingFilter): void {
  const want = bruteForce(s, filter);
  if (filter.query !== undefined && /^[\x20-\x7e]{1,2}$/.test(filter.query) && Object.keys(filter).length === 1) {
    // Short ASCII fragments: a substring of the title or the id, ASCII letters in any case.
    const fold = (x: string) => x.replace(/[A-Z]/g, (c) => c.toLowerCase());
    const rows = s.prepare('SELECT id, title FROM meetings ORDER BY started_at DESC, id DESC').all() as { id: string; title: string }[];
    expect(want).toEqual(rows.filter((m) => fold(m.title).includes(fold(filter.query!)) || fold(m.id).includes(fold(filter.query!))).map((m) => m.id));
  }
  expectListPages(s, filter, want, [1, 2, 3, 7, 200]);
}

describe('list_meetings from the keyed indexes (migration 0011)', () => {
  for (const seed of [1, 2, 3])
    it(`answers every filter and page as the brute force does, through random writes (seed ${seed})`, () => {
      const s = db();
      const w = world(s, seed);
      for (let i = 0; i < 30; i++) w.step();
      for (let round = 0; round < 4; round++) {
        for (let i = 0; i < 15; i++) w.step();
        for (const f of filters(s, w.r, w.series)) expectSameAnswers(s, f);
      }
      // The repair builds the same indexes from the rows: the same answers.
      repairSearchIndex(s);
      expect(checkIntegrity(s, { full: true }).search).toEqual([]);
      for (const f of filters(s, w.r, w.series)) expectSameAnswers(s, f);
    });

  it('sorts meetings of one millisecond by id, across page edges, also when they were keyed out of id order', () => {
    const s = db();
    const at = '2026-05-05T05:05:05.005Z';
    const ids = Array.from({ length: 9 }, (_, i) => `mtg_tie${String(8 - i).padStart(2, '0')}`);
    for (const id of ids) makeMeeting(s, { id, title: 'Design tie', startedAt: at });
    makeMeeting(s, { id: 'mtg_after', title: 'Design after', startedAt: '2026-05-05T05:05:05.006Z' });
    makeMeeting(s, { id: 'mtg_before', title: 'Design before', startedAt: '2026-05-05T05:05:05.004Z' });
    const order = ['mtg_after', ...[...ids].sort().reverse(), 'mtg_before'];
    for (const query of ['design', 'de', 'e'])
      for (const limit of [1, 2, 4])
        for (let offset = 0; offset < order.length; offset += limit) {
          const got = listMeetings(s, { query }, { limit, offset });
          expect(got.meetings.map((m) => m.id)).toEqual(order.slice(offset, offset + limit));
          expect(got.pagination.total).toBe(order.length);
        }
  });

  it('keeps the character grams of short fragments equal in the triggers (SQL) and in the fill (JavaScript)', () => {
    const s = db();
    const titles = ['Ab AB ab', 'Ωmega éé', 'Café'.normalize('NFD'), 'Café', '50%_off', '', 'x', 'Привет мир', '😀 ok 😀', 'İstanbul KAYAK', 'tab\there', 'a"b\'c', '[]{}~`^', `Long ${'and planning '.repeat(2_000)}é`];
    for (const t of titles) makeMeeting(s, { title: t });
    const grams = [...new Set((s.prepare('SELECT title, id FROM meetings').all() as { title: string; id: string }[]).flatMap((m) => gramsOf(m.title, m.id)!.split(' ')))].filter((g) => g !== '');
    const count = s.prepare('SELECT count(*) AS n FROM meeting_terms WHERE meeting_terms MATCH ?');
    const counts = () => grams.map((g) => (count.get(`"${g}"`) as { n: number }).n);
    const byTriggers = counts();
    // Each gram is in at least one meeting, and a 1-2 character fragment finds the meetings a substring test finds.
    expect(byTriggers.every((n) => n > 0)).toBe(true);
    const fold = (x: string) => x.replace(/[A-Z]/g, (c) => c.toLowerCase());
    const rows = s.prepare('SELECT id, title FROM meetings').all() as { id: string; title: string }[];
    for (const f of ['a', 'ab', 'e', '%_', '0%', 'ok', ' o', 'x', 'ca', '\t', '"', '~`', 'k'])
      expect((count.get(`"${gramToken(f)}"`) as { n: number }).n, f).toBe(rows.filter((m) => fold(m.title).includes(f) || fold(m.id).includes(f)).length);
    // The view the triggers read (migration 0012's json_each walk) holds exactly the grams JavaScript computes, each
    // meeting (SQL's hex is upper case, JavaScript's lower: the index folds case).
    const view = s.prepare('SELECT m.title, m.id, v.grams FROM meetings m JOIN meeting_list_terms v ON v.meeting_id = m.id').all() as { title: string; id: string; grams: string }[];
    expect(view.length).toBe(titles.length);
    for (const m of view) expect(new Set(m.grams.toLowerCase().split(' ').filter((g) => g !== '')), m.title).toEqual(new Set((gramsOf(m.title, m.id)! + titleWordsOf(m.title, m.id)!).split(' ').filter((g) => g !== '')));
    fillListIndexes(s);
    expect(counts()).toEqual(byTriggers);
  });
});
