// The worker's full-text upkeep (store.admin.maintain(), src/db/queries/fts-upkeep.ts) on a real file written one
// meeting per transaction, as imports write: the FTS5 indexes hold many segments; maintain() merges them in
// rounds until it reports no work, the answers stay the same, every index passes FTS5's integrity-check, and
// on a database with nothing to merge it writes nothing.
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openDatabase, type Sqlite } from '../../src/db/open.js';
import { FTS_INDEXES, ftsShape, mergeFtsIndexes, type FtsShape } from '../../src/db/queries/fts-upkeep.js';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import type { Store } from '../../src/db/store.js';
import { tempDir } from '../support/db.js';
import { makeMeeting, makeParticipant, makeTranscript } from '../support/factories.js';
import { seeded } from '../support/seeded.js';

const PAGE = { offset: 0, limit: 50 };
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) c();
});

const VOCABULARY = ['budget', 'review', 'the', 'we', 'a', 'launch', 'pricing', 'hiring', 'roadmap', 'retro', 'incident', 'design'];
const TEAMS = ['Legal', 'Sales', 'Design', 'Data'];
const PEOPLE = ['Ada Lovelace', 'Grace Hopper', 'Alan Kowalski', 'Noor Chen', 'Kim Berg', 'Zoë Núñez'];

/** A database file written meeting by meeting (each statement its own transaction, the triggers live), and a Store on it. */
function writtenMeetingByMeeting(meetings: number, seed = 7): { path: string; sqlite: Sqlite; store: Store } {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  const path = join(dir, 'syntheo.db');
  const db = openDatabase(path, { create: true });
  cleanups.push(() => db.close());
  write(db.sqlite, meetings, seed);
  const store = openSqliteStore(path, { create: false });
  cleanups.push(() => void store.close());
  return { path, sqlite: db.sqlite, store };
}

function write(sqlite: Sqlite, meetings: number, seed: number): void {
  const { next: rand, one: pick } = seeded(seed);
  for (let i = 0; i < meetings; i++) {
    // Ids of the seed and the meeting's number (each a new title word, as random ids are), so that every index's
    // segments come out the same on every run.
    const id = makeMeeting(sqlite, { id: `mtg_${seed}m${String(i).padStart(5, '0')}`, title: `${pick(TEAMS)} ${pick(VOCABULARY)} #${seed}-${i}`, folderPath: `${pick(TEAMS)}/Weekly` });
    for (let p = 0; p < 1 + Math.floor(rand() * 3); p++) makeParticipant(sqlite, id, { name: `${pick(PEOPLE)} ${i % 40}`, email: `p${i % 40}@example.test`, position: p });
    if (i % 2 === 0) makeTranscript(sqlite, id, { texts: Array.from({ length: 40 + Math.floor(rand() * 80) }, () => pick(VOCABULARY)) });
  }
}

const shapes = (sqlite: Sqlite) => Object.fromEntries(FTS_INDEXES.map((index) => [index, ftsShape(sqlite, index)!])) as Record<string, FtsShape>;

/** What users see: searches and lists over every index (passages, titles, 1-2 character grams, participants, folders). */
async function answers(store: Store) {
  return {
    search: await Promise.all(['the', 'budget review', 'design', 'pricing', 'a'].map((query) => store.search.transcripts({ query }, PAGE))),
    searchFiltered: await store.search.transcripts({ query: 'the', participant: 'kowalski', folderPath: 'Legal' }, PAGE),
    titles: await Promise.all(['des', 'e', 'ga', 'Legal launch'].map((query) => store.meetings.list({ query }, PAGE))),
    participants: await Promise.all(['kowalski', 'núñ', 'ko', 'Noor Chen 1'].map((participant) => store.meetings.list({ participant }, PAGE))),
    folder: await store.meetings.list({ folderPath: 'Sales', participant: 'grace' }, PAGE),
  };
}

/** maintain() until a round merges nothing; the number of rounds that did work. */
async function maintainUntilIdle(store: Store): Promise<number> {
  for (let rounds = 0; rounds < 10_000; rounds++) {
    const result = await store.admin.maintain();
    expect(result).not.toBeNull();
    if (result!.merged.length === 0) return rounds;
  }
  throw new Error('maintain() kept merging');
}

function integrityChecks(sqlite: Sqlite): void {
  // Throws (SQLITE_CORRUPT_VTAB) when an index does not match itself or, rank 1, its content.
  for (const index of FTS_INDEXES) sqlite.prepare(`INSERT INTO ${index} (${index}, rank) VALUES ('integrity-check', 1)`).run();
}

const dataVersion = (sqlite: Sqlite) => sqlite.pragma('data_version', { simple: true }) as number;

it('merges the segments of a database written meeting by meeting into one per index, answers unchanged', async () => {
  const { sqlite, store } = writtenMeetingByMeeting(200);
  const before = shapes(sqlite);
  for (const index of FTS_INDEXES) expect(before[index]!.segments, index).toBeGreaterThan(3);
  const expected = await answers(store);
  expect(expected.search[0]!.pagination.total).toBeGreaterThan(50);
  expect(expected.titles[1]!.pagination.total).toBeGreaterThan(0);

  const version = dataVersion(sqlite);
  expect(await maintainUntilIdle(store)).toBeGreaterThan(0);
  expect(dataVersion(sqlite)).not.toBe(version); // the other connection wrote

  const after = shapes(sqlite);
  for (const index of FTS_INDEXES) expect({ index, segments: after[index]!.segments, merging: after[index]!.merging }).toEqual({ index, segments: 1, merging: false });
  integrityChecks(sqlite);
  expect(await answers(store)).toEqual(expected);
  expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
});

it('on a database with nothing to merge, maintain() writes nothing', async () => {
  const { sqlite, store } = writtenMeetingByMeeting(60);
  await maintainUntilIdle(store);
  const version = dataVersion(sqlite);
  for (let i = 0; i < 5; i++) expect((await store.admin.maintain())!.merged).toEqual([]);
  expect(dataVersion(sqlite)).toBe(version);
});

it('a few new meetings on a merged index are merged level by level, the large segment left as it is', async () => {
  const { sqlite, store } = writtenMeetingByMeeting(0);
  sqlite.transaction(() => write(sqlite, 800, 3))();
  await maintainUntilIdle(store);
  const merged = shapes(sqlite);
  expect(merged.search_fts!.segments).toBe(1);
  const expected = await answers(store);
  // Six more meetings: small segments, far less than an eighth of the merged one.
  write(sqlite, 6, 99);
  const grown = shapes(sqlite).search_fts!;
  expect(grown.segments).toBeGreaterThan(2);
  expect(grown.pages - grown.largest).toBeLessThan(grown.largest / 8);

  await maintainUntilIdle(store);
  const after = shapes(sqlite).search_fts!;
  expect(after.merging).toBe(false);
  // The small segments merged among themselves, the large one kept (not rewritten for a few pages).
  expect(after.largest).toBe(merged.search_fts!.largest);
  expect(after.levels.every((n) => n <= 1)).toBe(true);
  expect(after.segments).toBeGreaterThanOrEqual(2);
  expect(after.segments).toBeLessThan(grown.segments);
  integrityChecks(sqlite);
  const now = await answers(store);
  expect(now).not.toEqual(expected); // the new meetings are found ...
  expect(now).toEqual(await answersAfterOptimize(sqlite, store)); // ... exactly as from one segment
});

it('never waits for another writer: a busy database ends the round, the next one goes on', async () => {
  const { path, store } = writtenMeetingByMeeting(60);
  const other = openDatabase(path, { create: false });
  cleanups.push(() => other.close());
  other.sqlite.exec('BEGIN IMMEDIATE');
  const started = performance.now();
  expect((await store.admin.maintain())!.merged).toEqual([]);
  expect(performance.now() - started).toBeLessThan(2_000); // busy_timeout is 10 s
  other.sqlite.exec('COMMIT');
  expect((await store.admin.maintain())!.merged.length).toBeGreaterThan(0);
});

it('meetings written between rounds, merges under way: the indexes stay whole and answer as one segment would', async () => {
  const { sqlite, store } = writtenMeetingByMeeting(120);
  let seed = 1000;
  let underWay = 0;
  for (let round = 0; round < 60; round++) {
    // A page a statement: merges stay under way across rounds and writes.
    mergeFtsIndexes(sqlite, { pages: 1, first: round });
    underWay += FTS_INDEXES.filter((index) => ftsShape(sqlite, index)!.merging).length;
    write(sqlite, 1, seed++);
    if (round % 10 === 0) sqlite.prepare("UPDATE meetings SET title = title || ' (moved)' WHERE rowid IN (SELECT rowid FROM meetings ORDER BY random() LIMIT 3)").run();
  }
  expect(underWay).toBeGreaterThan(20);
  await maintainUntilIdle(store);
  integrityChecks(sqlite);
  const merged = await answers(store);
  expect(merged.titles[1]!.pagination.total).toBeGreaterThan(100);
  expect(merged).toEqual(await answersAfterOptimize(sqlite, store));
});

it("puts the connection's busy timeout and automatic checkpoint back, after a busy round too", () => {
  const { path, sqlite } = writtenMeetingByMeeting(30);
  const settings = () => ({ busy: sqlite.pragma('busy_timeout', { simple: true }), autoCheckpoint: sqlite.pragma('wal_autocheckpoint', { simple: true }) });
  const before = settings();
  expect(before).toEqual({ busy: 10_000, autoCheckpoint: 1000 });
  const other = openDatabase(path, { create: false });
  cleanups.push(() => other.close());
  other.sqlite.exec('BEGIN IMMEDIATE');
  expect(mergeFtsIndexes(sqlite)).toEqual([]);
  expect(settings()).toEqual(before);
  other.sqlite.exec('COMMIT');
  expect(mergeFtsIndexes(sqlite).length).toBeGreaterThan(0);
  expect(settings()).toEqual(before);
});

async function answersAfterOptimize(sqlite: Sqlite, store: Store) {
  for (const index of FTS_INDEXES) sqlite.prepare(`INSERT INTO ${index} (${index}) VALUES ('optimize')`).run();
  for (const index of FTS_INDEXES) expect(ftsShape(sqlite, index)!.segments).toBe(1);
  return answers(store);
}
