// list_meetings `query` fragments of 3+ characters inside one word of a title or id, read from the words' tokens in
// meeting_terms (migration 0027) with the other filters in one FTS5 query: the same answers (rows, order, totals, every
// page) as meeting_titles' trigram condition over every meeting, alone and with the other filters, through seeded
// random writes (new titles, rows written again, deletes), after the repair (the words computed in JavaScript), and on a
// database that had meetings before the migration. Fragments across words, in more than 32 words, longer than half a
// chunk, or in a database where a title holds a NUL take the trigram index as before.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sqlite } from '../../src/db/open.js';
import { openDatabase } from '../../src/db/open.js';
import { compileMeetingFilter, listMeetings, rangeSql, type MeetingFilter } from '../../src/db/queries/meetings.js';
import { NUL_TITLE_TOKEN, titleWords, titleWordsOf, titleWordToken, tokenCount } from '../../src/db/queries/list-index.js';
import { checkIntegrity, repairSearchIndex } from '../../src/db/queries/integrity.js';
import { ensureFolderPath } from '../../src/db/queries/folders.js';
import { setIndexesAside } from '../../src/db/queries/bulk-index.js';
import { databaseMigratedTo, tempDir, testDbs } from '../support/db.js';
import { makeMeeting, makeParticipant } from '../support/factories.js';
import { seeded } from '../support/seeded.js';
import { expectListPages } from '../support/lists.js';

const db = testDbs();
const nfd = (x: string) => x.normalize('NFD');

/** Words of titles: cases, both Unicode forms, CJK, astral characters, LIKE's and FTS5's own characters, numbers. */
const WORDS = ['Design', 'design', 'REDESIGN', 'Review', 'reviews', 'Café', nfd('Café'), 'straße', 'ΣΟΦΙΑ', 'σοφίας', '週次会議', '🚀Launch', 'Plan%B', 'a\\b', 'x*y', '#1869', '#18', 'Kickoff', 'Q3', 'öl'];
/** What may stand between words: every separator of the words (migration 0010's), and characters that are none. */
const BETWEEN = [' ', '-', '.', '_', '/', '(', ')', "'", '"', '+', ';', ':', '\t', '@', ',', '  ', ' - ', '#', '!', '&'];
/** Letters for long words, whose chunks (64 every 32) a fragment crosses. */
const LETTERS = 'abcdefghij';
const NAMES = ['Yuki Tanaka', 'Sam Berg', 'Ines Kowalski'];
const TIMES = ['2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.001Z', '2026-03-02T00:00:00.000Z', '2025-12-31T23:59:59.999Z', '1969-07-20T20:17:40.000Z'];
const FOLDERS = ['Legal', 'Legal/Contracts', 'Sales'];

/** The answer as before migration 0027: the trigram condition and the other filters' own conditions over every meeting, newest first. */
function scanned(s: Sqlite, filter: MeetingFilter): string[] {
  const c = compileMeetingFilter(s, filter);
  const range = rangeSql(c.range, 'm.started_at');
  const where = [...c.parts.map((p) => p.sql), ...range.sql];
  const params = [...c.parts.flatMap((p) => p.params), ...range.params];
  return s.prepare(`SELECT m.id FROM meetings m ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY m.started_at DESC, m.id DESC`).pluck().all(...params) as string[];
}

function expectSameAnswers(s: Sqlite, filter: MeetingFilter): void {
  expectListPages(s, filter, scanned(s, filter), [3, 500]);
}

/** How a title fragment is read: from its words' tokens, by trigrams, or known to be in no meeting. */
function way(s: Sqlite, query: string): 'words' | 'trigrams' | 'none' {
  const c = compileMeetingFilter(s, { query });
  if (c.none) return 'none';
  return c.parts[0]!.terms === undefined ? 'trigrams' : 'words';
}

function world(s: Sqlite, seed: number) {
  const r = seeded(seed);
  for (const f of FOLDERS) ensureFolderPath(s, f);
  const paths = () => s.prepare('SELECT path FROM folders').pluck().all() as string[];
  const ids = () => s.prepare('SELECT id FROM meetings ORDER BY rowid').pluck().all() as string[];
  const long = () => Array.from({ length: 60 + r.int(80) }, () => LETTERS[r.int(LETTERS.length)]).join('');
  // 40 words holding `qzw`, more than a fragment is read from.
  const many = () => `qzw${r.int(40)}`;
  const word = () => (r.next() < 0.1 ? long() : r.next() < 0.15 ? many() : r.one(WORDS));
  const title = () => Array.from({ length: 1 + r.int(4) }, word).reduce((t, w) => t + r.one(BETWEEN) + w);
  const add = () => {
    const id = makeMeeting(s, { id: r.id('mtg'), title: title(), startedAt: r.one(TIMES), folderPath: r.next() < 0.6 ? r.one(paths()) : null });
    if (r.next() < 0.6) makeParticipant(s, id, { name: r.one(NAMES) });
  };
  const some = (f: (id: string) => void) => ids().length > 0 && f(r.one(ids()));
  const ops: (() => void)[] = [
    add,
    add,
    add,
    () => some((id) => s.prepare('UPDATE meetings SET title = ? WHERE id = ?').run(title(), id)),
    () => some((id) => s.prepare('UPDATE meetings SET started_at = ? WHERE id = ?').run(r.one(TIMES), id)),
    () => some((id) => s.prepare('DELETE FROM meetings WHERE id = ?').run(id)),
    () =>
      some((id) => {
        // The same row written again with another title: its delete triggers need not fire.
        const m = s.prepare('SELECT * FROM meetings WHERE id = ?').get(id) as Record<string, unknown>;
        s.prepare(`INSERT OR REPLACE INTO meetings (${Object.keys(m).join(', ')}) VALUES (${Object.keys(m).map(() => '?').join(', ')})`).run(
          ...Object.entries(m).map(([k, v]) => (k === 'title' ? title() : v)),
        );
      }),
  ];
  // Pieces of the titles and ids there are (3-12 code points, some upper-cased or in NFD), and the designed ones.
  const fragments = () => {
    const texts = (s.prepare('SELECT title, id FROM meetings').all() as { title: string; id: string }[]).flatMap((m) => [m.title, m.id]);
    const cut = (most: number) => {
      const points = Array.from(r.one(texts));
      const at = r.int(points.length);
      const f = points.slice(at, at + 3 + r.int(most - 2)).join('');
      return r.next() < 0.3 ? f.toUpperCase() : r.next() < 0.2 ? nfd(f) : f;
    };
    const longWords = texts.flatMap((t) => t.split(/[^a-j]+/)).filter((w) => w.length > 64);
    // Exactly half a chunk, across a chunk's edge of a long word (characters 50-81 of a word of 82 or more).
    const across = longWords.filter((w) => w.length >= 82).map((w) => w.slice(49, 81).toUpperCase());
    return [
      ...new Set([
        'design', 'DESIGN', 'esig', 'caf', nfd('café'), 'σοφ', 'ΣΟΦΊ', '会議', '🚀La', '%b', 'a\\b', 'x*y', '#18', '186', 'mtg', 'qzw', 'qzw1', 'zzzq',
        'n r', 'design review', '1869#', ...across.slice(0, 3), ...longWords.slice(0, 2).map((w) => w.slice(0, 40)), ...Array.from({ length: 30 }, () => cut(10)),
      ]),
    ].filter((f) => Array.from(f).length >= 3);
  };
  const filters = (): MeetingFilter[] =>
    fragments().flatMap((query) => {
      const f: MeetingFilter = { query };
      if (r.next() < 0.4) f.folderPath = r.one(paths());
      if (r.next() < 0.4) f.participant = r.one(['berg', 'Yuki', 'e', 'Ines Kowalski']);
      if (r.next() < 0.3) [f.from, f.to] = [TIMES[3]!, TIMES[r.int(3)]!];
      return [{ query }, f];
    });
  return { step: () => ops[r.int(ops.length)]!(), filters, fragments };
}

describe('list_meetings title fragments inside a word from meeting_terms title words (migration 0027)', () => {
  for (const seed of [1, 2])
    it(`answers as the trigram index over every title, alone and with other filters, through random writes (seed ${seed})`, () => {
      const s = db();
      const w = world(s, seed);
      for (let i = 0; i < 120; i++) w.step();
      const ways = new Map<string, number>();
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 30; i++) w.step();
        for (const f of w.filters()) expectSameAnswers(s, f);
        for (const f of w.fragments()) ways.set(way(s, f), (ways.get(way(s, f)) ?? 0) + 1);
      }
      // Each way was taken: words, trigrams (across words, too many words, too long) and none.
      expect(ways.get('words')).toBeGreaterThan(30);
      expect(ways.get('trigrams')).toBeGreaterThan(5);
      expect(ways.get('none')).toBeGreaterThan(0);
      expect(way(s, 'qzw')).toBe('trigrams');
      expect(way(s, 'design review')).toBe('trigrams');
      expect(way(s, 'zzzq')).toBe('none');
      repairSearchIndex(s);
      expect(checkIntegrity(s, { full: true }).search).toEqual([]);
      for (const f of w.filters()) expectSameAnswers(s, f);
    });

  it('keeps the words of titles and ids, chunks of long ones, in the triggers (SQL), the fill (JavaScript) and title_words', () => {
    const s = db();
    const long = (n: number) => Array.from({ length: n }, (_, i) => LETTERS[i % 7]).join('');
    const titles = ['Design Review', 'a-b.c_d(e)f/g\'h"i+j;k:l\tm\nn\ro@p,q', '  lead and trail  ', 'Café ' + nfd('Café'), 'ÀÉÎ ǅemal', '😀 x😀y', long(63), long(64), long(65), long(97), `x ${long(130)} y`, '#', '%_\\', 'z\uFFFE'];
    for (const title of titles) makeMeeting(s, { title });
    const rows = s.prepare('SELECT m.title, m.id, t.words, v.grams FROM meetings m JOIN meeting_title_words t ON t.meeting_id = m.id JOIN meeting_list_terms v ON v.meeting_id = m.id').all() as {
      title: string;
      id: string;
      words: string;
      grams: string;
    }[];
    expect(rows.length).toBe(titles.length);
    const kept = new Set(s.prepare('SELECT word FROM title_words').pluck().all() as string[]);
    for (const m of rows) {
      expect(new Set(JSON.parse(m.words) as string[]), m.title).toEqual(new Set(titleWords(m.title, m.id)));
      const wordTokens = (x: string) => new Set(x.toLowerCase().split(' ').filter((g) => g.startsWith('w')));
      expect(wordTokens(m.grams), m.title).toEqual(wordTokens(titleWordsOf(m.title, m.id)!));
      for (const word of titleWords(m.title, m.id)) expect(kept.has(word), word).toBe(true);
    }
    // A word of 65 code points: two chunks; of 130: four (1, 33, 65, 97), each of 64 but the last.
    expect(titleWords(long(65), 'i')).toEqual([long(64), long(65).slice(32), 'i']);
    expect(titleWords(long(130), 'i').map((w) => w.length)).toEqual([64, 64, 64, 34, 1]);
    expect(titleWords('Ab_CD-ef', 'MTG_X')).toEqual(['ab', 'cd', 'ef', 'mtg', 'x']);
    // A fragment of 32 characters anywhere in the long words is found; of 33 it is read by trigrams.
    const id = makeMeeting(s, { title: `x ${long(130)} y` });
    for (const at of [0, 31, 32, 33, 63, 64, 97, 98]) {
      const query = long(130).slice(at, at + 32);
      expect({ at, way: way(s, query) }).toEqual({ at, way: 'words' });
      expect(listMeetings(s, { query }, { limit: 50, offset: 0 }).meetings.map((m) => m.id)).toContain(id);
    }
    expect(way(s, long(33))).toBe('trigrams');
    for (const query of ['design', 'EVIEW', 'ǆem', '😀y', 'ead', long(40)]) expectSameAnswers(s, { query });
    // The fill (repair) computes them in JavaScript, adds the words title_words lacks, and answers the same.
    s.exec('DELETE FROM title_words');
    repairSearchIndex(s);
    const meetings = s.prepare('SELECT title, id FROM meetings').all() as { title: string; id: string }[];
    expect(new Set(s.prepare('SELECT word FROM title_words').pluck().all() as string[])).toEqual(new Set(meetings.flatMap((m) => titleWords(m.title, m.id))));
    expect(checkIntegrity(s, { full: true }).search).toEqual([]);
    for (const query of ['design', 'EVIEW', 'ǆem', '😀y', 'ead', long(40)]) expectSameAnswers(s, { query });
  });

  it('reads fragments by trigrams while a title or id holds a NUL, and by words once none does', () => {
    const s = db();
    const nul = makeMeeting(s, { title: 'ab\0design x' });
    const other = makeMeeting(s, { title: 'Design' });
    expect(tokenCount(s, NUL_TITLE_TOKEN)).toBe(1);
    expect(way(s, 'design')).toBe('trigrams');
    expect(listMeetings(s, { query: 'design' }, { limit: 10, offset: 0 }).meetings.map((m) => m.id).sort()).toEqual([nul, other].sort());
    repairSearchIndex(s);
    expect(tokenCount(s, NUL_TITLE_TOKEN)).toBe(1);
    s.prepare('UPDATE meetings SET title = ? WHERE id = ?').run('ab design x', nul);
    expect(tokenCount(s, NUL_TITLE_TOKEN)).toBe(0);
    expect(way(s, 'design')).toBe('words');
    expect(listMeetings(s, { query: 'design' }, { limit: 10, offset: 0 }).pagination.total).toBe(2);
  });

  it('reads a title word as one token of the FTS5 query with the other filters, and answers as the trigram index', () => {
    const s = db();
    ensureFolderPath(s, 'Legal');
    for (let i = 0; i < 30; i++) {
      const id = makeMeeting(s, { title: `${i % 3 ? 'Design' : 'Budget'} review #${i}`, folderPath: i % 2 ? 'Legal' : null });
      if (i % 5) makeParticipant(s, id, { name: NAMES[i % 3]! });
    }
    const c = compileMeetingFilter(s, { query: 'esign', participant: 'kowalski' });
    expect(c.parts[0]!.terms).toBe(`"${titleWordToken('design')}"`);
    for (const f of [{ query: 'esign' }, { query: 'esign', participant: 'kowalski' }, { query: 'review', folderPath: 'Legal', participant: 'e' }, { query: 'view', participant: 'Ines Kowalski' }])
      expectSameAnswers(s, f);
  });

  it('backfills the words of meetings written before the migration', () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = join(dir, 'old.db');
      const old = databaseMigratedTo(path, 26);
      const now = '2026-03-01T10:00:00.000Z';
      const insert = old.prepare("INSERT INTO meetings (id, title, started_at, note, created_at, updated_at) VALUES (?, ?, ?, '', ?, ?)");
      ['Design review', 'Café ' + nfd('Café'), '週次会議 (draft)', 'Plain', 'redesign-sync'].forEach((title, i) => insert.run(`mtg_${i}x`, title, `2026-03-0${i + 1}T10:00:00.000Z`, now, now));
      old.close();
      const migrated = openDatabase(path, { create: false });
      try {
        const s = migrated.sqlite;
        const ids = (query: string) => listMeetings(s, { query }, { limit: 10, offset: 0 }).meetings.map((m) => m.id);
        expect(way(s, 'design')).toBe('words');
        expect(ids('DESIGN')).toEqual(['mtg_4x', 'mtg_0x']);
        expect(ids('週次会')).toEqual(['mtg_2x']);
        expect(ids('afé')).toEqual(['mtg_1x']);
        expect(ids('g_3')).toEqual(['mtg_3x']);
        for (const query of ['sign', 'draft', 'mtg', 'lai', 'caf', nfd('café')]) expectSameAnswers(s, { query });
        expect(checkIntegrity(s, { full: true }).search).toEqual([]);
      } finally {
        migrated.close();
      }
    } finally {
      cleanup();
    }
  });

  it('fills the words of meetings written with the indexes set aside (bulk writers)', () => {
    const s = db();
    const aside = setIndexesAside(s);
    for (const title of ['Alpha design', 'Beta review', 'Gamma']) makeMeeting(s, { title });
    expect(s.prepare('SELECT count(*) FROM title_words').pluck().get()).toBe(0);
    aside.restore();
    expect(way(s, 'lph')).toBe('words');
    for (const query of ['lph', 'design', 'eta', 'mtg']) expectSameAnswers(s, { query });
    expect(checkIntegrity(s, { full: true }).search).toEqual([]);
  });
});
