// list_meetings `participant` fragments in many names and e-mails read from meeting_terms' participant grams (migration
// 0025): the same answers (rows, order, totals, every page) as LIKE over every meeting's participants, alone and with
// the other filters, through seeded random writes to participants and meetings, after the repair (the grams computed in
// JavaScript), and on a database that had participants before the migration. Fragments whose rarest triple is held by
// names lacking them (strays) take the checked way; too many strays, the old one.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sqlite } from '../../src/db/open.js';
import { openDatabase } from '../../src/db/open.js';
import { compileMeetingFilter, listMeetings, rangeSql, type MeetingFilter } from '../../src/db/queries/meetings.js';
import { gramsOf, peopleGramsOf, peopleGramToken, titleWordsOf } from '../../src/db/queries/list-index.js';
import { holdsFragment, MAX_GRAM_STRAYS } from '../../src/db/queries/participant-words.js';
import { checkIntegrity, repairSearchIndex } from '../../src/db/queries/integrity.js';
import { ensureFolderPath } from '../../src/db/queries/folders.js';
import { databaseMigratedTo, tempDir, testDbs } from '../support/db.js';
import { makeMeeting, makeParticipant } from '../support/factories.js';
import { seeded } from '../support/seeded.js';
import { expectListPages } from '../support/lists.js';
import { newId } from '../../src/db/ids.js';

const db = testDbs();

const TIMES = ['2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.001Z', '2026-03-02T00:00:00.000Z', '2025-12-31T23:59:59.999Z', '1969-07-20T20:17:40.000Z'];
const FOLDERS = ['Legal', 'Legal/Contracts', 'Sales'];
const FIRST = ['Ana', 'ANNA', 'Jan', 'Hannah', 'José', 'Zoë', 'Li', 'Ab_Cd', 'Per%cent', 'O\'Brien'];
const LAST = ['Berg', 'Bergman', 'Núñez', 'Erg', 'Rossi', 'Ross', 'Abcab', 'Cab', 'Bca'];

/**
 * Names and e-mails: many hold `abcab` (over MAX_PARTICIPANT_WORDS words and names, so its grams are read), and a few
 * hold each of its triples without it (its strays: `bca` the fewest); `xyzxy`'s triples each have more strays than
 * MAX_GRAM_STRAYS.
 */
function pool(): { name: string; email: string | null }[] {
  const people: { name: string; email: string | null }[] = [];
  for (let i = 0; i < 40; i++) people.push({ name: `${FIRST[i % FIRST.length]} ${LAST[i % LAST.length]} ${i}`, email: i % 7 === 0 ? null : `abcab${i}@Example.test` });
  for (let i = 0; i < 10; i++) people.push({ name: `Abc ${i}`, email: `abc${i}@x.test` });
  for (let i = 0; i < 4; i++) people.push({ name: `Bca ${i}`, email: `BCA${i}@x.test` });
  for (let i = 0; i < 8; i++) people.push({ name: `Cab ${i}`, email: `cab${i}@x.test` });
  for (let i = 0; i < 40; i++) people.push({ name: `Xyzxy ${i}`, email: `xyz${i}@y.test` });
  for (let i = 0; i < MAX_GRAM_STRAYS + 2; i++) people.push({ name: `Yzx ${i}`, email: `zxy${i}@y.test` });
  return people;
}

/** The answer of LIKE over every meeting's participants and the other filters' own conditions, newest first. */
function scanned(s: Sqlite, filter: MeetingFilter): string[] {
  const { participant, ...rest } = filter;
  const c = compileMeetingFilter(s, rest);
  const range = rangeSql(c.range, 'm.started_at');
  const where = [...c.parts.map((p) => p.sql), ...range.sql];
  const params = [...c.parts.flatMap((p) => p.params), ...range.params];
  if (participant !== undefined) {
    const held = holdsFragment(participant, ['p.name', 'p.email']);
    where.push(`EXISTS (SELECT 1 FROM participants p WHERE p.meeting_id = m.id AND ${held.sql})`);
    params.push(...held.values);
  }
  return s.prepare(`SELECT m.id FROM meetings m ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY m.started_at DESC, m.id DESC`).pluck().all(...params) as string[];
}

function expectSameAnswers(s: Sqlite, filter: MeetingFilter): void {
  const want = scanned(s, filter);
  expectListPages(s, filter, want, [1, 7, 500]);
}

/** How a fragment is read: from one gram (`exact`), with strays checked (`loose`), or not from the grams. */
function way(s: Sqlite, participant: string): 'exact' | 'loose' | 'other' {
  const part = compileMeetingFilter(s, { participant }, { grams: true }).parts[0];
  if (part?.terms?.includes('"q') !== true) return 'other';
  return part.looseTerms === undefined ? 'exact' : 'loose';
}

function world(s: Sqlite, seed: number) {
  const r = seeded(seed);
  for (const f of FOLDERS) ensureFolderPath(s, f);
  const people = pool();
  const paths = () => s.prepare('SELECT path FROM folders').pluck().all() as string[];
  const ids = () => s.prepare('SELECT id FROM meetings ORDER BY rowid').pluck().all() as string[];
  const participants = () => s.prepare('SELECT id FROM participants ORDER BY rowid').pluck().all() as string[];
  const join = (id: string) => makeParticipant(s, id, r.one(people));
  // Everyone once, so that the designed fragments are in their many names from the start.
  for (const p of people) makeParticipant(s, makeMeeting(s, { startedAt: r.one(TIMES) }), p);
  const add = () => {
    const id = makeMeeting(s, { title: r.one(['Design review', 'Budget', 'Sync']), startedAt: r.one(TIMES), folderPath: r.next() < 0.6 ? r.one(paths()) : null });
    for (let i = r.int(5); i > 0; i--) join(id);
  };
  const some = <T,>(xs: T[], f: (x: T) => void) => xs.length > 0 && f(r.one(xs));
  const ops: (() => void)[] = [
    add,
    add,
    () => some(ids(), join),
    () => some(participants(), (p) => s.prepare('UPDATE participants SET name = ? WHERE id = ?').run(r.one(people).name, p)),
    () => some(participants(), (p) => s.prepare('UPDATE participants SET email = ? WHERE id = ?').run(r.one(people).email, p)),
    () => some(participants(), (p) => s.prepare('UPDATE participants SET meeting_id = ? WHERE id = ?').run(r.one(ids()), p)),
    () => some(participants(), (p) => s.prepare('DELETE FROM participants WHERE id = ?').run(p)),
    () => some(ids(), (m) => s.prepare('UPDATE meetings SET started_at = ? WHERE id = ?').run(r.one(TIMES), m)),
    () => some(ids(), (m) => s.prepare('DELETE FROM meetings WHERE id = ?').run(m)),
    () =>
      some(ids(), (id) => {
        // The same row written again: its delete triggers need not fire.
        const m = s.prepare('SELECT * FROM meetings WHERE id = ?').get(id) as Record<string, unknown>;
        s.prepare(`INSERT OR REPLACE INTO meetings (${Object.keys(m).join(', ')}) VALUES (${Object.keys(m).map(() => '?').join(', ')})`).run(
          ...Object.entries(m).map(([k, v]) => (k === 'title' ? 'Design again' : v)),
        );
      }),
  ];
  // Fragments of the names and e-mails (1-7 characters, some upper-cased), and the designed ones.
  const fragments = () => {
    const handles = people.flatMap((p) => [p.name, ...(p.email === null ? [] : [p.email])]);
    const cut = () => {
      const h = r.one(handles);
      const at = r.int(h.length);
      const f = h.slice(at, at + 1 + r.int(7));
      return r.next() < 0.3 ? f.toUpperCase() : f;
    };
    return [...new Set(['abcab', 'ABCAB1', 'xyzxy', 'bcab', '@example.test', 'b', 'e', 'n ', '%', '_', '\\', 'ñ', ...Array.from({ length: 30 }, cut)])];
  };
  const filters = (): MeetingFilter[] =>
    fragments().flatMap((participant) => {
      const f: MeetingFilter = { participant };
      if (r.next() < 0.4) f.folderPath = r.one(paths());
      if (r.next() < 0.3) [f.from, f.to] = [TIMES[3]!, TIMES[r.int(3)]!];
      if (r.next() < 0.3) f.query = r.one(['Design', 'ud', 'e', 'sync again']);
      return [{ participant }, f];
    });
  return { step: () => ops[r.int(ops.length)]!(), filters, fragments };
}

describe('list_meetings participant fragments in many names from meeting_terms participant grams (migration 0025)', () => {
  for (const seed of [1, 2])
    it(`answers as LIKE over every meeting's participants, alone and with other filters, through random writes (seed ${seed})`, () => {
      const s = db();
      const w = world(s, seed);
      for (let i = 0; i < 150; i++) w.step();
      const ways = new Map<string, number>();
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 40; i++) w.step();
        for (const f of w.filters()) expectSameAnswers(s, f);
        for (const f of w.fragments()) ways.set(way(s, f), (ways.get(way(s, f)) ?? 0) + 1);
      }
      // Each way was taken: one gram, strays checked, and the old ways.
      expect(ways.get('exact')).toBeGreaterThan(10);
      expect(ways.get('loose')).toBeGreaterThan(2);
      expect(ways.get('other')).toBeGreaterThan(10);
      repairSearchIndex(s);
      expect(checkIntegrity(s, { full: true }).search).toEqual([]);
      for (const f of w.filters()) expectSameAnswers(s, f);
    });

  it('reads a long fragment from its triple with the fewest strays, and checks the meetings holding it only through them', () => {
    const s = db();
    for (const p of pool()) makeParticipant(s, makeMeeting(s, {}), p);
    // A meeting with a stray of `abcab` (`BCA0`) and none holding it, and one with a stray and a holder.
    const strayOnly = makeMeeting(s, { title: 'stray only' });
    makeParticipant(s, strayOnly, { name: 'Bca 0', email: 'BCA0@x.test' });
    const both = makeMeeting(s, { title: 'both' });
    makeParticipant(s, both, { name: 'Bca 1', email: 'BCA1@x.test' });
    makeParticipant(s, both, { name: 'Ana Berg 0', email: 'abcab0@Example.test' });
    const part = compileMeetingFilter(s, { participant: 'abcab' }, { grams: true }).parts[0]!;
    expect(part.terms).toContain(`"${peopleGramToken('bca')}" NOT (`);
    expect(part.looseTerms).toContain(`"${peopleGramToken('bca')}" AND (`);
    const list = listMeetings(s, { participant: 'abcab' }, { limit: 100, offset: 0 });
    expect(list.meetings.map((m) => m.id)).toContain(both);
    expect(list.meetings.map((m) => m.id)).not.toContain(strayOnly);
    expect(list.pagination.total).toBe(scanned(s, { participant: 'abcab' }).length);
    // `xyzxy`: every triple has more strays than the bound, so not from the grams; `person`-like `on1` has none.
    expect(way(s, 'xyzxy')).toBe('other');
    expect(way(s, 'abcab1@')).toBe('other'); // in fewer names than MAX_PARTICIPANT_WORDS: their tags
    expect(way(s, 'Example.')).toBe('exact');
    expectSameAnswers(s, { participant: 'xyzxy' });
    expectSameAnswers(s, { participant: 'Example.' });
    // A fragment of more triples than are counted (MAX_GRAM_TRIPLES): some of them, spread over it.
    for (let i = 0; i < 40; i++) makeParticipant(s, makeMeeting(s, {}), { name: `Long ${i}`, email: `a-very-long-mailbox-name.of-someone${i}@example.test` });
    expect(way(s, 'very-long-mailbox-name.of-some')).toBe('exact');
    expectSameAnswers(s, { participant: 'very-long-mailbox-name.of-some' });
  });

  it('reads a fragment of 1-3 characters in several words from its gram, in one word from its tag, as LIKE answers', () => {
    const s = db();
    const w = world(s, 3);
    for (let i = 0; i < 200; i++) w.step();
    // `ro` is in two words (ross, rossi), `AN` in four (ana, anna, hannah, bergman), `ez` in one (núñez), `qq` in none.
    for (const [participant, read] of [['ro', 'exact'], ['AN', 'exact'], ['ez', 'other'], ['qq', 'other']] as const) {
      expect({ participant, read: way(s, participant) }).toEqual({ participant, read });
      for (const f of [{}, { folderPath: 'Legal' }, { from: TIMES[3], to: TIMES[0] }, { query: 'Design' }]) expectSameAnswers(s, { ...f, participant });
    }
    // Lists compared with the words' tags read (grams: false): the same pages and totals.
    for (const f of w.filters()) {
      const page = { limit: 7, offset: 1 };
      expect({ f, ...listMeetings(s, f, page) }).toEqual({ f, ...listMeetings(s, f, page, { grams: false }) });
    }
  });

  it('keeps the grams of each ASCII run of 1-3 characters, in the triggers (SQL) and the fill (JavaScript)', () => {
    const s = db();
    const handles = ['José Núñez', 'ZOË', 'a\\b%c_d', '"quoted"', '会議 Ab', 'x😀y', 'tab\there', '', 'é', 'ab', 'Ω1'];
    const ids = handles.map((name, i) => {
      const id = makeMeeting(s, { title: `T${i}` });
      makeParticipant(s, id, { name, email: i % 2 ? `${name.replace(/\s/g, '')}@Mail.test` : null });
      return id;
    });
    const view = s.prepare('SELECT m.title, m.id, v.grams FROM meetings m JOIN meeting_list_terms v ON v.meeting_id = m.id').all() as { title: string; id: string; grams: string }[];
    const tokens = (x: string) => new Set(x.toLowerCase().split(' ').filter((g) => g !== ''));
    for (const m of view) {
      const people = s.prepare('SELECT name FROM participants WHERE meeting_id = ? UNION ALL SELECT email FROM participants WHERE meeting_id = ? AND email IS NOT NULL').pluck().all(m.id, m.id) as string[];
      expect(tokens(m.grams), m.title).toEqual(tokens(gramsOf(m.title, m.id)! + titleWordsOf(m.title, m.id)! + peopleGramsOf(people)!));
    }
    expect(peopleGramsOf(['ab\0cd'])).toBeNull();
    const countIn = (x: Sqlite, gram: string) => x.prepare('SELECT count(*) FROM meeting_terms WHERE meeting_terms MATCH ?').pluck().get(`"${peopleGramToken(gram)}"`) as number;
    const count = (gram: string) => countIn(s, gram);
    const grams = ['j', 'jos', 'os', 'z', 'zo', '\\b%', '%c_', '"qu', 'ab', 'x', 'y', 'ere', 'e', '@ma', '1', 'cd'];
    const before = grams.map(count);
    expect(before.filter((n) => n > 0).length).toBeGreaterThan(12);
    repairSearchIndex(s);
    expect(grams.map(count)).toEqual(before);
    // Each gram in exactly the meetings one of whose names and e-mails holds it (cut at a NUL, as LIKE reads them).
    const holders = (gram: string) =>
      (s.prepare('SELECT meeting_id, name, email FROM participants').all() as { meeting_id: string; name: string; email: string | null }[])
        .filter((p) => [p.name, p.email ?? ''].some((h) => h.split('\0')[0]!.replace(/[A-Z]/g, (c) => c.toLowerCase()).includes(gram)))
        .reduce((set, p) => set.add(p.meeting_id), new Set<string>()).size;
    expect(grams.map(count)).toEqual(grams.map(holders));
    expect(ids.length).toBe(handles.length);
    // A name holding a NUL: its grams up to the NUL, from the view (JavaScript would read past it).
    const t = db();
    const nul = makeMeeting(t, { title: 'nul' });
    makeParticipant(t, nul, { name: 'ab\0cd' });
    makeParticipant(t, makeMeeting(t, { title: 'other' }), { name: 'xy' });
    const grams0 = ['ab', 'b', 'cd', 'xy'];
    expect(grams0.map((g) => countIn(t, g))).toEqual([1, 1, 0, 1]);
    repairSearchIndex(t);
    expect(grams0.map((g) => countIn(t, g))).toEqual([1, 1, 0, 1]);
  });

  it('backfills the grams of meetings written before the migration', () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = join(dir, 'old.db');
      const old = databaseMigratedTo(path, 24);
      const now = '2026-03-01T10:00:00.000Z';
      const meeting = old.prepare("INSERT INTO meetings (id, title, started_at, note, created_at, updated_at) VALUES (?, 'Old', ?, '', ?, ?)");
      const person = old.prepare('INSERT INTO participants (id, meeting_id, name, email, role, position) VALUES (?, ?, ?, ?, NULL, 0)');
      const people = pool();
      people.forEach((p, i) => {
        const id = `mtg_${String(i).padStart(3, '0')}`;
        meeting.run(id, `2026-03-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00.000Z`, now, now);
        person.run(newId('participant'), id, p.name, p.email);
      });
      old.close();
      const migrated = openDatabase(path, { create: false });
      try {
        const s = migrated.sqlite;
        expect(way(s, 'abcab')).toBe('loose');
        expect(way(s, 'Example.')).toBe('exact');
        for (const participant of ['abcab', 'Example.', 'b', 'xyzxy']) expectSameAnswers(s, { participant });
        expect(checkIntegrity(s, { full: true }).search).toEqual([]);
      } finally {
        migrated.close();
      }
    } finally {
      cleanup();
    }
  });
});
