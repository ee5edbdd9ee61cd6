// list_meetings `query` of 1-2 characters beyond ASCII (`é`, `会議`, an emoji, an NFD `e` + U+0301) read from
// meeting_terms' grams (migration 0014) instead of a LIKE/GLOB over every title: the same answers (rows, order,
// totals, every page) as the old scan condition, anySpelling over `m.title`, evaluated over every meeting row,
// alone and with the other filters, through seeded random writes (re-titled, re-timed, deleted, written again),
// after the repair, and on a database that had such titles before the migration.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sqlite } from '../../src/db/open.js';
import { openDatabase } from '../../src/db/open.js';
import { compileMeetingFilter, listMeetings, rangeSql, type MeetingFilter } from '../../src/db/queries/meetings.js';
import { anySpelling } from '../../src/db/queries/fragments.js';
import { fillListIndexes, gramToken, gramsOf, titleWordsOf } from '../../src/db/queries/list-index.js';
import { checkIntegrity, repairSearchIndex } from '../../src/db/queries/integrity.js';
import { ensureFolderPath } from '../../src/db/queries/folders.js';
import { databaseMigratedTo, tempDir, testDbs } from '../support/db.js';
import { makeMeeting, makeParticipant, makeSeries } from '../support/factories.js';
import { seeded } from '../support/seeded.js';
import { expectListPages } from '../support/lists.js';

const db = testDbs();
const nfd = (x: string) => x.normalize('NFD');

const TITLE_WORDS = [
  'Café', nfd('Café'), 'CAFÉ', nfd('CAFÉ'), 'été', 'Øst', 'øst', 'İstanbul', 'i\u0307', 'KAYAK', '会議', '週次会議', '議事録', '🚀', '😀👍', 'ΣΟΦΙΑ', 'σοφίας',
  '\u212Aelvin', 'ǅemal', 'straße', 'x\uD83Dy', '\uFFFD', 'z\uFFFE', '\uFFFF', 'a\\é\\', 'é%', 'e\u0301a', 'o\u0301a', '한국어', nfd('한국'), 'Ñu', nfd('ñu'), 'design', 'a', 'E', '_',
];
// 1-2 characters (NFC), each beyond ASCII somewhere: cases, both forms, CJK pairs, astral characters, LIKE's own characters.
const FRAGMENTS = [
  'é', 'É', nfd('é'), 'éa', nfd('éa'), 'ÉT', 'té', 'Øs', 'ø', 'İ', 'i\u0307', '会議', '議', '会', '🚀', '😀👍', '👍', 'Σ', 'ς', 'σο', '\u212A', 'ǅ', 'ǆe',
  'ß', '한국', '한', '국어', 'é%', 'é_', '%é', 'ñu', nfd('Ñ'), 'a😀', 'ö', 'é\\', '\\é', '\uD83D', '\uFFFD', '\uFFFE', 'a\uFFFF',
];
const NAMES = ['Yuki Tanaka', 'José Núñez', 'Ada', 'Sam Berg'];
const TIMES = ['2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.001Z', '2026-03-02T00:00:00.000Z', '2025-12-31T23:59:59.999Z', '1969-07-20T20:17:40.000Z'];
const FOLDERS = ['Legal', 'Legal/Contracts', 'Sales', 'Sales/EMEA'];

/** The answer as before migration 0014: anySpelling over every title, the other filters' own conditions, newest first. */
function scanned(s: Sqlite, filter: MeetingFilter): string[] {
  const { query, ...rest } = filter;
  const c = compileMeetingFilter(s, rest);
  if (c.none) return [];
  const range = rangeSql(c.range, 'm.started_at');
  const where = [...c.parts.map((p) => p.sql), ...range.sql];
  const params = [...c.parts.flatMap((p) => p.params), ...range.params];
  if (query !== undefined) {
    const old = anySpelling(query, ['m.title']);
    where.push(old.sql);
    params.push(...old.values);
  }
  return (s.prepare(`SELECT m.id FROM meetings m ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY m.started_at DESC, m.id DESC`).all(...params) as { id: string }[]).map((r) => r.id);
}

function expectSameAnswers(s: Sqlite, filter: MeetingFilter): void {
  const want = scanned(s, filter);
  expectListPages(s, filter, want, [1, 3, 200]);
}

function world(s: Sqlite, seed: number) {
  const r = seeded(seed);
  const series = [makeSeries(s), makeSeries(s)];
  for (const f of FOLDERS) ensureFolderPath(s, f);
  const paths = () => (s.prepare('SELECT path FROM folders').all() as { path: string }[]).map((x) => x.path);
  const ids = () => (s.prepare('SELECT id FROM meetings ORDER BY rowid').all() as { id: string }[]).map((x) => x.id);
  const title = () => Array.from({ length: 1 + r.int(3) }, () => r.one(TITLE_WORDS)).join(r.one([' ', '', '-']));
  const add = () => {
    const id = makeMeeting(s, { title: title(), startedAt: r.one(TIMES), folderPath: r.next() < 0.7 ? r.one(paths()) : null, seriesId: r.next() < 0.3 ? r.one(series) : null });
    if (r.next() < 0.5) makeParticipant(s, id, { name: r.one(NAMES) });
  };
  const ops: (() => void)[] = [
    add,
    add,
    add,
    () => ids().length && s.prepare('UPDATE meetings SET title = ? WHERE id = ?').run(title(), r.one(ids())),
    () => ids().length && s.prepare('UPDATE meetings SET started_at = ? WHERE id = ?').run(r.one(TIMES), r.one(ids())),
    () => ids().length && s.prepare('DELETE FROM meetings WHERE id = ?').run(r.one(ids())),
    () => ids().length && s.prepare('UPDATE meetings SET folder_id = (SELECT id FROM folders WHERE path = ?) WHERE id = ?').run(r.one(paths()), r.one(ids())),
    () => {
      // The same row written again with another title: its delete triggers need not fire.
      const id = ids().length ? r.one(ids()) : undefined;
      if (!id) return;
      const m = s.prepare('SELECT * FROM meetings WHERE id = ?').get(id) as Record<string, unknown>;
      s.prepare(`INSERT OR REPLACE INTO meetings (${Object.keys(m).join(', ')}) VALUES (${Object.keys(m).map(() => '?').join(', ')})`).run(
        ...Object.entries(m).map(([k, v]) => (k === 'title' ? title() : v)),
      );
    },
  ];
  const filters = (): MeetingFilter[] =>
    FRAGMENTS.flatMap((query) => {
      const f: MeetingFilter = { query };
      if (r.next() < 0.4) f.folderPath = r.one(paths());
      if (r.next() < 0.2) f.seriesId = r.one(series);
      if (r.next() < 0.2) f.participant = r.one(['berg', 'yuki', 'núñ']);
      if (r.next() < 0.3) [f.from, f.to] = [TIMES[3]!, TIMES[r.int(3)]!];
      return [{ query }, f];
    });
  return { step: () => ops[r.int(ops.length)]!(), filters };
}

describe('list_meetings fragments of 1-2 characters beyond ASCII from meeting_terms (migration 0014)', () => {
  for (const seed of [1, 2])
    it(`answers as the scan over every title, alone and with other filters, through random writes (seed ${seed})`, () => {
      const s = db();
      const w = world(s, seed);
      for (let i = 0; i < 40; i++) w.step();
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 15; i++) w.step();
        for (const f of w.filters()) expectSameAnswers(s, f);
      }
      repairSearchIndex(s);
      expect(checkIntegrity(s, { full: true }).search).toEqual([]);
      for (const f of w.filters()) expectSameAnswers(s, f);
    });

  it('indexes each code point and pair beyond ASCII: a gram finds exactly the meetings whose title holds it, in the triggers (SQL) and the fill (JavaScript)', () => {
    const s = db();
    const titles = ['Café', nfd('Café'), 'CAFÉ', '週次会議', '会議室', '🚀 launch', 'x😀👍y', 'Øst', 'İ', 'ΣΟΦΙΑ', 'é%_é', '', 'plain ascii', `Long ${'会議 '.repeat(3_000)}é`, 'tab\té', '\u212A'];
    for (const t of titles) makeMeeting(s, { title: t });
    const count = s.prepare('SELECT count(*) AS n FROM meeting_terms WHERE meeting_terms MATCH ?');
    const rows = s.prepare('SELECT id, title FROM meetings').all() as { id: string; title: string }[];
    const lower = (x: string) => x.replace(/[A-Z]/g, (c) => c.toLowerCase());
    const grams = ['é', 'É', 'e\u0301', '会議', '議', '会', '🚀', '😀', '😀👍', 'x😀', '👍y', 'ø', 'Ø', 'İ', 'Σ', 'σ', 'é%', '%_', '_é', '\té', '\u212A', 'fé', 'é '];
    const counts = () => grams.map((g) => (count.get(`"${gramToken(g)}"`) as { n: number }).n);
    const byTriggers = counts();
    // Code points, not UTF-16 units: an astral character is one, as in SQLite.
    expect(byTriggers).toEqual(grams.map((g) => rows.filter((m) => lower(m.title).includes(lower(g))).length));
    expect(byTriggers.filter((n) => n > 0).length).toBeGreaterThan(15);
    const view = s.prepare('SELECT m.title, m.id, v.grams FROM meetings m JOIN meeting_list_terms v ON v.meeting_id = m.id').all() as { title: string; id: string; grams: string }[];
    for (const m of view) expect(new Set(m.grams.toLowerCase().split(' ').filter((g) => g !== '')), m.title).toEqual(new Set((gramsOf(m.title, m.id)! + titleWordsOf(m.title, m.id)!).split(' ').filter((g) => g !== '')));
    fillListIndexes(s);
    expect(counts()).toEqual(byTriggers);
  });

  it('finds an NFD spelling of 3+ code points only where the title holds it, not where it holds its pairs apart', () => {
    const s = db();
    const at = (i: number) => `2026-04-0${i}T10:00:00.000Z`;
    const exact = makeMeeting(s, { title: 'Caféa', startedAt: at(1) });
    const decomposed = makeMeeting(s, { title: nfd('Caféa'), startedAt: at(2) });
    makeMeeting(s, { title: `${nfd('Café')} ${nfd('óa')}`, startedAt: at(3) }); // e+U+0301 and U+0301+a, never e+U+0301+a
    makeMeeting(s, { title: 'Cafe a', startedAt: at(4) });
    const upper = makeMeeting(s, { title: nfd('CAFÉA'), startedAt: at(5) });
    for (const query of ['éa', 'ÉA', nfd('éa')]) {
      expect(listMeetings(s, { query }, { limit: 10, offset: 0 }).meetings.map((m) => m.id), query).toEqual([upper, decomposed, exact]);
      expect(listMeetings(s, { query }, { limit: 1, offset: 1 }), query).toMatchObject({ meetings: [{ id: decomposed }], pagination: { total: 3 } });
    }
  });

  it('walks the title keys with a participant fragment in more names than a filter lists, each meeting probed', () => {
    const s = db();
    // 'at Q' in 585 names (more than MAX_PARTICIPANT_HANDLES): each meeting is probed; 'éa' is matched exactly by its
    // grams and, for its NFD spelling of 3 code points, by the meetings holding its pairs, checked (the union of both).
    const titles = ['Caféa', nfd('Caféa'), `${nfd('Café')} ${nfd('óa')}`, 'Cafe a', nfd('CAFÉA'), 'Plain'];
    for (let i = 0; i < 780; i++) {
      const id = makeMeeting(s, { title: titles[i % titles.length]!, startedAt: new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 3) * 3_600_000).toISOString() });
      makeParticipant(s, id, { name: i % 4 === 3 ? 'Zed Other' : `Pat Q${i}` });
    }
    const probe = compileMeetingFilter(s, { participant: 'at Q' }).parts[0]!.probe;
    expect(probe).toBeDefined();
    const held = new Set(s.prepare("SELECT meeting_id FROM participants WHERE name LIKE '%at Q%'").pluck().all() as string[]);
    for (const filter of [{ query: 'éa' }, { query: 'ÉA', from: '2026-01-03' }, { query: 'afé' }, { query: 'Plain', to: '2026-01-05' }]) {
      const all = listMeetings(s, filter, { limit: 1000, offset: 0 }).meetings.map((m) => m.id).filter((id) => held.has(id));
      expect(all.length, filter.query).toBeGreaterThan(20);
      for (const offset of [0, 1, 19, all.length - 5, all.length]) {
        const list = listMeetings(s, { ...filter, participant: 'at Q' }, { limit: 20, offset });
        expect({ filter, offset, total: list.pagination.total, ids: list.meetings.map((m) => m.id) }).toEqual({ filter, offset, total: all.length, ids: all.slice(offset, offset + 20) });
      }
    }
  });

  it('backfills the grams of meetings written before the migration', () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = join(dir, 'old.db');
      const old = databaseMigratedTo(path, 13);
      const now = '2026-03-01T10:00:00.000Z';
      const insert = old.prepare("INSERT INTO meetings (id, title, started_at, note, created_at, updated_at) VALUES (?, ?, ?, '', ?, ?)");
      ['週次会議', 'Café', nfd('Café'), '🚀 Launch', 'Plain'].forEach((title, i) => insert.run(`mtg_${i}`, title, `2026-03-0${i + 1}T10:00:00.000Z`, now, now));
      old.close();
      const migrated = openDatabase(path, { create: false });
      try {
        const s = migrated.sqlite;
        const ids = (query: string) => listMeetings(s, { query }, { limit: 10, offset: 0 }).meetings.map((m) => m.id);
        expect(ids('会議')).toEqual(['mtg_0']);
        expect(ids('É')).toEqual(['mtg_2', 'mtg_1']);
        expect(ids('🚀')).toEqual(['mtg_3']);
        expect((s.prepare('SELECT count(*) AS n FROM meeting_terms WHERE meeting_terms MATCH ?').get(`"${gramToken('会議')}"`) as { n: number }).n).toBe(1);
        expect(checkIntegrity(s, { full: true }).search).toEqual([]);
      } finally {
        migrated.close();
      }
    } finally {
      cleanup();
    }
  });
});

describe("a lone meeting_terms token's total from the index's vocabulary (fts5vocab in the temp schema)", () => {
  it('counts a short ASCII fragment, a folder and a series as the filters over every meeting do, through deletes, new titles and rows written again', () => {
    const s = db();
    const r = seeded(7);
    const series = makeSeries(s);
    const words = ['design', 'review', 'Plan', 'sync', 'ops', 'Kick', 'off', 'Q3', 'budget', 'INTRO'];
    const title = () => Array.from({ length: 1 + r.int(3) }, () => r.one(words)).join(' ');
    // More matches than a list reads at once (FEW_KEYS, 500), so that the total is counted, not listed.
    for (let i = 0; i < 1400; i++) makeMeeting(s, { title: title(), folderPath: r.next() < 0.6 ? r.one(FOLDERS) : null, seriesId: r.next() < 0.5 ? series : null });
    const ids = () => s.prepare('SELECT id FROM meetings').pluck().all() as string[];
    const sample = (xs: string[], n: number) => Array.from({ length: n }, () => r.one(xs));
    // The old way: each filter's own condition over every meeting row.
    const scanned = (filter: MeetingFilter): number => {
      const c = compileMeetingFilter(s, filter);
      return s.prepare(`SELECT count(*) FROM meetings m WHERE ${c.parts.map((p) => p.sql).join(' AND ')}`).pluck().get(...c.parts.flatMap((p) => p.params)) as number;
    };
    const filters: MeetingFilter[] = [{ query: 'e' }, { query: 'E' }, { query: 'in' }, { query: 'q3' }, { query: 'zz' }, { folderPath: 'Legal' }, { seriesId: series }];
    const check = () => {
      for (const f of filters) {
        const want = scanned(f);
        const got = listMeetings(s, f, { limit: 5, offset: 0 });
        expect(got.pagination.total, JSON.stringify(f)).toBe(want);
        expect(got.meetings.length, JSON.stringify(f)).toBe(Math.min(5, want));
      }
    };
    check();
    expect(scanned({ query: 'e' })).toBeGreaterThan(500);
    for (let round = 0; round < 3; round++) {
      for (const id of sample(ids(), 150)) s.prepare('DELETE FROM meetings WHERE id = ?').run(id);
      for (const id of sample(ids(), 150)) s.prepare('UPDATE meetings SET title = ? WHERE id = ?').run(title(), id);
      for (const id of sample(ids(), 50)) {
        const m = s.prepare('SELECT * FROM meetings WHERE id = ?').get(id) as Record<string, unknown>;
        s.prepare(`INSERT OR REPLACE INTO meetings (${Object.keys(m).join(', ')}) VALUES (${Object.keys(m).map(() => '?').join(', ')})`).run(
          ...Object.entries(m).map(([k, v]) => (k === 'title' ? title() : v)),
        );
      }
      for (let i = 0; i < 100; i++) makeMeeting(s, { title: title(), folderPath: r.next() < 0.6 ? r.one(FOLDERS) : null });
      check();
    }
    // Merged into one segment, the tombstones applied: the same.
    s.exec("INSERT INTO meeting_terms (meeting_terms) VALUES ('optimize')");
    check();
    // The vocabulary table made in a transaction that rolled back is gone with it: the next count makes it again.
    s.exec('DROP TABLE temp.meeting_terms_vocab');
    expect(() =>
      s.transaction(() => {
        listMeetings(s, { query: 'e' }, { limit: 1, offset: 0 });
        throw new Error('rolled back');
      })(),
    ).toThrow('rolled back');
    check();
  });
});
