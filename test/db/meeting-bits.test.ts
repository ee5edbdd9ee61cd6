// list_meetings' totals from the bitmaps of meeting_terms' dense tokens (migration 0028, src/db/queries/meeting-bits.ts):
// every count must be FTS5's own over the same query, whatever the expression, the dates, and the meetings added,
// deleted, re-titled, re-timed or re-tagged since the generation was built; and the lists' totals and pages with the
// bitmaps must be those without.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, type Sqlite } from '../../src/db/open.js';
import {
  buildMeetingBits,
  countFromMeetingBits,
  MAX_CHANGED,
  MEETING_BLOCK,
  meetingBitsRound,
  parseMatch,
  resetMeetingBits,
  SCANNED_CHANGES,
  wrongMeetingBits,
  type MeetingBitsRound,
} from '../../src/db/queries/meeting-bits.js';
import { openStore } from '../../src/db/engine.js';
import { listMeetings, type MeetingFilter } from '../../src/db/queries/meetings.js';
import { checkIntegrity, repairSearchIndex } from '../../src/db/queries/integrity.js';
import { tempDir, testDbs } from '../support/db.js';
import { makeMeeting, makeParticipant } from '../support/factories.js';

const db = testDbs();
const MEETINGS = 2 * MEETING_BLOCK + 700;
const WORDS = ['design', 'review', 'hiring', 'planning', 'pricing', 'marketing', 'onboarding', 'sync', 'retro', 'xyzzy'];
const NAMES = ['Anna Kowalski', 'Ben Ortiz', 'Chen Wei', 'Dana Scully', 'Eve Ng', 'Farid Haddad', 'Gus Grissom', 'Hana Sato', 'Ines Kowalski', 'Jon Snow'];

/** The seeded meetings, written once (~10 s) into a file each test copies. */
const template = tempDir();
const TEMPLATE = join(template.dir, 'seeded.db');
beforeAll(() => {
  const d = openDatabase(TEMPLATE, { create: true });
  seed(d.sqlite);
  d.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  d.close();
});
afterAll(() => template.cleanup());

/** Connections the tests opened beside testDbs' (closed after each test). */
const opened: Sqlite[] = [];
afterEach(() => opened.splice(0).forEach((c) => c.open && c.close()));

/** A copy of the seeded database, and its meetings' ids in the order they were written. */
function seeded(): { s: Sqlite; ids: string[] } {
  const s = db();
  const path = s.name;
  s.close();
  copyFileSync(TEMPLATE, path);
  for (const suffix of ['-wal', '-shm']) rmSync(path + suffix, { force: true });
  const copy = openDatabase(path, { create: false }).sqlite;
  opened.push(copy);
  return { s: copy, ids: copy.prepare('SELECT id FROM meetings ORDER BY rowid').pluck().all() as string[] };
}

/** A random number generator of its own (the same meetings every run). */
function randomOf(seed: number): () => number {
  let x = seed;
  return () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** MEETINGS meetings over two years, written in no order of time (keys are numbered in key order), a few names each. */
function seed(s: Sqlite, next = randomOf(7)): void {
  s.transaction(() => {
    for (let i = 0; i < MEETINGS; i++) addMeeting(s, next, Date.UTC(2025, 0, 1) + Math.floor(next() * 730 * 86_400_000));
  })();
}

function addMeeting(s: Sqlite, next: () => number, at: number): string {
  const pick = <T>(xs: T[]) => xs[Math.floor(next() ** 1.6 * xs.length)]!;
  // And in 1 meeting of 40 a word of its own or nearly (`xyz` is in `xyzzy` and ~200 such words: too many for FTS5's OR).
  const title = `${pick(WORDS)} ${pick(WORDS)} proj${Math.floor(next() * 400)}${next() < 1 / 40 ? ` xyz${Math.floor(next() * 1000)}` : ''}`;
  const m = makeMeeting(s, { title, folderPath: pick(['Sales', 'Ops', 'Ops/Infra', 'Legal']), startedAt: new Date(at).toISOString() });
  const names = new Set(Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(NAMES)));
  [...names].forEach((name, position) => makeParticipant(s, m, { name, position }));
  return m;
}

const ftsCount = (s: Sqlite, match: string, lo?: bigint, hi?: bigint) =>
  s
    .prepare(`SELECT count(*) FROM meeting_terms WHERE meeting_terms MATCH ?${lo === undefined ? '' : ' AND rowid >= ?'}${hi === undefined ? '' : ' AND rowid <= ?'}`)
    .pluck()
    .get(match, ...(lo === undefined ? [] : [lo]), ...(hi === undefined ? [] : [hi])) as number;

/** A title word's token in meeting_terms (migration 0027). */
const wordToken = (word: string) => `w${Buffer.from(word, 'utf8').toString('hex')}`;

/** Tokens without bits: words of a few meetings (`proj7`), of one (`xyz` + digits), a name's word held by none. */
function rareTerms(s: Sqlite): string[] {
  const words = new Set((s.prepare('SELECT title FROM meetings').pluck().all() as string[]).flatMap((t) => t.split(' ')).filter((w) => /^xyz\d/.test(w)));
  return [...[...words].sort().slice(0, 40), 'proj7', 'proj300'].map(wordToken).concat('p7a7a7a');
}

const denseTerms = (s: Sqlite) => s.prepare('SELECT term FROM meeting_bits_terms WHERE gen = (SELECT max(gen) FROM meeting_bits_gens) ORDER BY term').pluck().all() as string[];

/**
 * Random queries over `terms`: AND, OR and NOT nested, with parentheses left out at random (FTS5's precedence then
 * decides, and the parser must decide alike).
 */
function randomQueries(terms: string[], next: () => number, n: number): string[] {
  const tree = (depth: number): string => {
    if (depth === 0 || next() < 0.3) return `"${terms[Math.floor(next() * terms.length)]}"`;
    const op = ['AND', 'OR', 'NOT'][Math.floor(next() * 3)]!;
    const [a, b] = [tree(depth - 1), tree(depth - 1)];
    return next() < 0.5 ? `(${a} ${op} ${b})` : `${a} ${op} ${b}`;
  };
  return Array.from({ length: n }, () => tree(3));
}

/** Key bounds of random date ranges (and none, and one side only). */
function randomRanges(next: () => number): [bigint | undefined, bigint | undefined][] {
  const key = (ms: number) => BigInt(ms) * 8192n;
  const at = () => Date.UTC(2025, 0, 1) + Math.floor(next() * 760 * 86_400_000) - 15 * 86_400_000;
  const ranges: [bigint | undefined, bigint | undefined][] = [[undefined, undefined]];
  for (let i = 0; i < 6; i++) {
    const [a, b] = [at(), at()].sort((x, y) => x - y);
    ranges.push([key(a!), key(b!) + 8191n]);
  }
  ranges.push([key(at()), undefined], [undefined, key(at())]);
  return ranges;
}

/** Every query in every range counted from the bits and by FTS5: the disagreements, and how many the bits answered. */
function disagreements(s: Sqlite, queries: string[], ranges: [bigint | undefined, bigint | undefined][]): { wrong: string[]; answered: number } {
  const wrong: string[] = [];
  let answered = 0;
  for (const q of queries)
    for (const [lo, hi] of ranges) {
      // Whatever FTS5 would walk (the fixture's doclists are short): from the bits whenever they can.
      const bits = countFromMeetingBits(s, q, lo, hi, { walkedPerRow: 0 });
      if (bits === undefined) continue;
      answered++;
      const fts = ftsCount(s, q, lo, hi);
      if (bits !== fts) wrong.push(`${q} [${lo}, ${hi}]: ${bits} from the bits, ${fts} by FTS5`);
    }
  return { wrong, answered };
}

const FILTERS: MeetingFilter[] = [
  { participant: 'kowalski', query: 'ing' },
  // In too many title words for FTS5's OR (~200): counted from `xyzzy`'s bits and the other words' meetings.
  { participant: 'kowalski', query: 'xyz' },
  { folderPath: 'Ops', query: 'xyz', from: '2025-05-01', to: '2026-02-01' },
  { participant: 'Anna', query: 'design' },
  { query: 'ing', folderPath: 'Ops' },
  { participant: 'kowalski', from: '2025-03-01', to: '2025-11-30' },
  { participant: 'Ben', query: 're', from: '2026-01-01' },
];

/** Each filter's total and pages (first, deep) as listed. */
const listed = (s: Sqlite) =>
  FILTERS.flatMap((f) => [0, 1500].map((offset) => { const r = listMeetings(s, f, { offset, limit: 20 }); return [r.pagination.total, r.meetings.map((m) => m.id)]; }));

describe('list_meetings totals from the bitmaps of meeting_terms (migration 0028)', () => {
  it('parses FTS5 queries of quoted tokens, AND, OR and NOT, and nothing else', () => {
    expect(parseMatch('"a1" OR "b2" AND "c3" NOT "d4"')).toEqual({ op: 'OR', a: { term: 'a1' }, b: { op: 'AND', a: { term: 'b2' }, b: { op: 'NOT', a: { term: 'c3' }, b: { term: 'd4' } } } });
    expect(parseMatch('("a" OR "b") AND ("c")')).toEqual({ op: 'AND', a: { op: 'OR', a: { term: 'a' }, b: { term: 'b' } }, b: { term: 'c' } });
    // Capitals folded, as FTS5's tokenizer folds them.
    expect(parseMatch('"F6A" AND "b"')).toEqual({ op: 'AND', a: { term: 'f6a' }, b: { term: 'b' } });
    for (const refused of ['"a b"', 'a', '"a" "b"', 'NOT "a"', '"a" AND', '("a"', '"a" NEAR "b"', 'tags : "a"', '"é"', '"a""b"', '"a" OR', '"a-b"'])
      expect(parseMatch(refused), refused).toBeUndefined();
  });

  it('counts as FTS5 does, any query of dense tokens within any dates', () => {
    const { s } = seeded();
    expect(countFromMeetingBits(s, '"p1" OR "p2"')).toBeUndefined();
    buildMeetingBits(s);
    const terms = denseTerms(s);
    // Title words, folders, participants' words and grams, the title's characters: every kind of token the filters read.
    for (const kind of ['f', 'p', 'q', 'w', 'x']) expect(terms.some((t) => t.startsWith(kind)), kind).toBe(true);
    expect(terms.length).toBeGreaterThan(100);
    const next = randomOf(11);
    const { wrong, answered } = disagreements(s, randomQueries(terms, next, 120), randomRanges(next));
    expect(wrong).toEqual([]);
    expect(answered).toBe(120 * 9);
    // Beside tokens without bits, whose few meetings are read from FTS5.
    const rare = rareTerms(s);
    expect(rare.length).toBeGreaterThan(30);
    const mixed = disagreements(s, randomQueries([...terms.slice(0, 30), ...rare], next, 80), randomRanges(next));
    expect(mixed.wrong).toEqual([]);
    // (Not those of rare tokens alone: FTS5 counts them.)
    expect(mixed.answered).toBeGreaterThan(80 * 9 * 0.6);
    // Tokens without bits holding more meetings than a count reads: FTS5 counts.
    const many = Array.from({ length: 41 }, (_, i) => `"${wordToken(`proj${i}`)}"`).join(' OR ');
    expect(countFromMeetingBits(s, `(${many}) AND "${terms[0]}"`)).toBeUndefined();
    // Past SCANNED_CHANGES changes since the generation (here marks of keys after its last one, as a load of newer
    // meetings leaves), FTS5 counts rather than read them all at each count.
    const one = `"${terms[0]}" OR "${terms[1]}"`;
    const mark = s.prepare('INSERT INTO meeting_bits_changed (key, seq) VALUES (?, ?)');
    s.transaction(() => {
      for (let i = 0; i < SCANNED_CHANGES - 1; i++) mark.run(BigInt(Date.UTC(2030, 0, 1)) * 8192n + BigInt(i), 1_000_000 + i);
    })();
    expect(countFromMeetingBits(s, one, undefined, undefined, { walkedPerRow: 0 })).toBe(ftsCount(s, one));
    mark.run(BigInt(Date.UTC(2031, 0, 1)) * 8192n, 2_000_000);
    expect(countFromMeetingBits(s, one, undefined, undefined, { walkedPerRow: 0 })).toBeUndefined();
    // (Past half as many, a new generation is due: the next round begins one.)
    expect(meetingBitsRound(s, { budgetMs: 0 }).began).toBe(true);
  });

  it('counts as FTS5 does after meetings are added, deleted, re-titled, re-timed and re-tagged, then from a new generation', () => {
    const { s, ids } = seeded();
    const next = randomOf(23);
    buildMeetingBits(s);
    const terms = denseTerms(s);
    const queries = randomQueries(terms, next, 40);
    const ranges = randomRanges(next);
    const before = listed(s);
    s.transaction(() => {
      // After the last key (counted by FTS5 over that range), and among the numbered keys (asked one by one).
      for (let i = 0; i < 20; i++) addMeeting(s, next, Date.UTC(2027, 1, 1) + i * 3_600_000);
      for (let i = 0; i < 10; i++) addMeeting(s, next, Date.UTC(2025, 5, 1) + i * 86_400_000);
      for (const id of ids.slice(0, 5)) s.prepare('DELETE FROM meetings WHERE id = ?').run(id);
      for (const id of ids.slice(5, 10)) s.prepare("UPDATE meetings SET title = 'marketing retro' WHERE id = ?").run(id);
      for (const id of ids.slice(10, 15)) s.prepare("UPDATE participants SET name = 'Zed Kowalski' WHERE meeting_id = ?").run(id);
      for (const id of ids.slice(15, 18)) s.prepare("UPDATE meetings SET started_at = '2025-02-02T10:00:00.000Z' WHERE id = ?").run(id);
      for (const id of ids.slice(18, 20)) s.prepare("UPDATE meetings SET folder_id = (SELECT id FROM folders WHERE path = 'Legal') WHERE id = ?").run(id);
    })();
    const changed = disagreements(s, queries, ranges);
    expect(changed.wrong).toEqual([]);
    expect(changed.answered).toBe(40 * 9);
    // Still the same generation; the lists as without the bits.
    expect(s.prepare('SELECT count(*) FROM meeting_bits_gens').pluck().get()).toBe(1);
    const withBits = listed(s);
    s.transaction(() => resetMeetingBits(s))();
    expect(listed(s)).toEqual(withBits);
    expect(withBits).not.toEqual(before);
    // Built again, then more changes among its keys than a count asks of FTS5: FTS5 counts, a new generation begins.
    buildMeetingBits(s);
    s.transaction(() => {
      for (const id of ids.slice(100, 100 + MAX_CHANGED + 1)) s.prepare("UPDATE meetings SET title = title || ' v2' WHERE id = ?").run(id);
    })();
    expect(countFromMeetingBits(s, queries[0]!)).toBeUndefined();
    expect(meetingBitsRound(s, { budgetMs: 0 }).began).toBe(true);
    buildMeetingBits(s);
    expect(s.prepare('SELECT count(*) FROM meeting_bits_gens').pluck().get()).toBe(1);
    expect(s.prepare('SELECT count(*) FROM meeting_bits_changed').pluck().get()).toBe(0);
    // Queries of the new generation's tokens (a title gram near the density bound may have left it: the ids are random),
    // and the earlier ones, from whichever of their tokens are still dense.
    const renewed = disagreements(s, randomQueries(denseTerms(s), next, 40), ranges);
    expect(renewed.wrong).toEqual([]);
    expect(renewed.answered).toBe(40 * 9);
    expect(disagreements(s, queries, ranges).wrong).toEqual([]);
    expect(listed(s)).toEqual(listedWithout(s));
  });

  it('builds in bounded rounds while meetings change, from two connections, to bits that count as FTS5 does', () => {
    const { s, ids } = seeded();
    const other = openDatabase(s.name, { create: false }).sqlite;
    try {
      const next = randomOf(31);
      const queries = randomQueries(['w64657369676e', 'w726576696577', 'p616e6e61', 'x65', 'q6b6f77', 'w73796e63'], next, 30);
      let rounds = 0;
      for (let step = 0; step < 2000; step++) {
        // The two connections' rounds interleave; one's work read before the other wrote is not written.
        const r = meetingBitsRound(step % 2 ? s : other, { budgetMs: 0 });
        rounds++;
        if (step % 7 === 3) s.prepare("UPDATE meetings SET title = 'hiring sync' WHERE id = ?").run(ids[step]!);
        if (step % 11 === 5 && step < 200) addMeeting(s, next, Date.UTC(2025, 0, 1) + Math.floor(next() * 730 * 86_400_000));
        if (!r.more && step > 200) break;
      }
      expect(rounds).toBeLessThan(2000);
      const { wrong, answered } = disagreements(s, queries, randomRanges(next));
      expect(wrong).toEqual([]);
      expect(answered).toBeGreaterThan(0);
      expect(wrongMeetingBits(s)).toEqual([]);
    } finally {
      other.close();
    }
  });

  it("writes nothing of a round whose read another round's write overtook (two processes)", () => {
    const { s } = seeded();
    const other = openDatabase(s.name, { create: false }).sqlite;
    try {
      // Up to the first block's bits: begun, listed, numbered.
      let r: MeetingBitsRound | undefined;
      for (let i = 0; i < 100 && !(r && r.built > 0); i++) r = meetingBitsRound(s, { budgetMs: Infinity });
      const gen = () => s.prepare('SELECT built, term FROM meeting_bits_gens ORDER BY gen DESC LIMIT 1').get() as { built: number; term: string | null };
      // Back to the block's start, as if the round above had not run: a round reads the block whole...
      s.prepare('DELETE FROM meeting_bits').run();
      s.prepare('UPDATE meeting_bits_gens SET built = 0, term = NULL').run();
      let overtaken = -1;
      const late = meetingBitsRound(s, {
        budgetMs: Infinity,
        // ...while the other connection builds that block and the next (another worker's process).
        afterRead: () => {
          for (let i = 0; i < 100 && gen().built < 2; i++) meetingBitsRound(other, { budgetMs: Infinity });
          overtaken = gen().built;
        },
      });
      expect(overtaken).toBe(2);
      // Its write would have counted the first block built again: the second's bits never read.
      expect(late.built).toBe(0);
      expect(gen()).toEqual({ built: 2, term: null });
      for (let i = 0; i < 100 && meetingBitsRound(s, { budgetMs: Infinity }).more; i++);
      const { wrong, answered } = disagreements(s, randomQueries(denseTerms(s), randomOf(41), 40), randomRanges(randomOf(43)));
      expect(wrong).toEqual([]);
      expect(answered).toBeGreaterThan(100);
    } finally {
      other.close();
    }
  });

  it("is built by the worker's upkeep (store.admin.maintain), a bounded round a call", async () => {
    const { s } = seeded();
    const path = s.name;
    s.close();
    const store = await openStore(path, { create: false });
    try {
      const rounds: MeetingBitsRound[] = [];
      for (let i = 0; i < 500 && rounds.at(-1)?.more !== false; i++) rounds.push((await store.admin.maintain())!.meetingBits!);
      expect(rounds[0]!.began).toBe(true);
      expect(rounds.filter((r) => r.built > 0).length).toBeGreaterThan(1);
      expect(rounds.at(-1)!.more).toBe(false);
      const check = openDatabase(path, { create: false }).sqlite;
      opened.push(check);
      expect(check.prepare('SELECT built, numbered FROM meeting_bits_gens').get()).toEqual({ built: 3, numbered: 1 });
      expect(wrongMeetingBits(check)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('is checked by the doctor and emptied by the repair', () => {
    const { s } = seeded();
    buildMeetingBits(s);
    expect(wrongMeetingBits(s)).toEqual([]);
    expect(checkIntegrity(s, { full: false }).search).toEqual([]);
    // A bit of a token set in the first block: named, and its count is off by one.
    const term = 'w64657369676e';
    const bits = Buffer.from(s.prepare('SELECT bits FROM meeting_bits WHERE block = 0 AND term = ?').pluck().get(term) as Buffer);
    const before = countFromMeetingBits(s, `"${term}" AND "${term}"`);
    const at = bits.findIndex((b) => b !== 0xff);
    let k = 0;
    while ((bits[at]! >> k) & 1) k++;
    bits[at] = bits[at]! | (1 << k);
    s.prepare('UPDATE meeting_bits SET bits = ? WHERE term = ? AND block = 0').run(bits, term);
    expect(wrongMeetingBits(s)).toEqual([term]);
    expect(checkIntegrity(s, { full: false }).search).toEqual(['meeting_bits']);
    expect(countFromMeetingBits(s, `"${term}" AND "${term}"`)).toBe(before! + 1);
    repairSearchIndex(s);
    expect(s.prepare('SELECT count(*) FROM meeting_bits').pluck().get()).toBe(0);
    expect(countFromMeetingBits(s, `"${term}" AND "${term}"`)).toBeUndefined();
    expect(checkIntegrity(s, { full: false }).search).toEqual([]);
    // Its tables dropped: named missing, created again by the repair (the state row too, when a generation begins).
    s.exec('DROP TABLE meeting_bits_state; DROP TABLE meeting_bits');
    expect(checkIntegrity(s, { full: false }).missing).toEqual(['table meeting_bits', 'table meeting_bits_state']);
    expect(repairSearchIndex(s).recreated.sort()).toEqual(['table meeting_bits', 'table meeting_bits_state']);
    buildMeetingBits(s);
    expect(countFromMeetingBits(s, `"${term}" AND "${term}"`)).toBe(ftsCount(s, `"${term}"`));
    expect(wrongMeetingBits(s)).toEqual([]);
  });
});

/** The lists with the bitmaps emptied (the caller builds them again after). */
function listedWithout(s: Sqlite): ReturnType<typeof listed> {
  const gens = s.prepare('SELECT * FROM meeting_bits_gens').all();
  s.exec('SAVEPOINT without');
  s.exec('DELETE FROM meeting_bits_gens');
  const lists = listed(s);
  s.exec('ROLLBACK TO without; RELEASE without');
  expect(s.prepare('SELECT * FROM meeting_bits_gens').all()).toEqual(gens);
  return lists;
}
