// The worker merges the full-text indexes between jobs: on a database written meeting by meeting, its sweeps
// (store.admin.maintain()) bring every FTS5 index to one segment, with nothing to import.
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { FTS_INDEXES, ftsShape } from '../../src/db/queries/fts-upkeep.js';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import type { Logger } from '../../src/log.js';
import { UPKEEP_PAUSE } from '../../src/worker/loop.js';
import { startWorker } from '../../src/worker/start.js';
import { readTuning } from '../../src/worker/tuning.js';
import { tempDir } from '../support/db.js';
import { makeMeeting, makeParticipant, makeTranscript } from '../support/factories.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

it('sweep after sweep, merges the segments that meeting-by-meeting writes left', async () => {
  const tmp = tempDir();
  cleanups.push(tmp.cleanup);
  const path = join(tmp.dir, 'syntheo.db');
  const db = openDatabase(path, { create: true });
  cleanups.push(() => db.close());
  for (let i = 0; i < 80; i++) {
    const id = makeMeeting(db.sqlite, { title: `Weekly sync ${i}`, folderPath: i % 2 ? 'Sales' : 'Legal' });
    makeParticipant(db.sqlite, id, { name: `Person Name${i}` });
    if (i % 2 === 0) makeTranscript(db.sqlite, id, { words: 60 });
  }
  const segments = () => FTS_INDEXES.map((index) => ftsShape(db.sqlite, index)!.segments);
  expect(Math.min(...segments())).toBeGreaterThan(1);

  const store = openSqliteStore(path, { create: false });
  cleanups.push(() => store.close());
  const lines: { msg: string }[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }) }) as unknown as Logger;
  // A 300 ms lease: a sweep every 150 ms.
  const env = { SYNTHEO_WORKER_POLL_MS: '50', SYNTHEO_WORKER_LEASE_MS: '300' };
  const worker = await startWorker({ store, logger, env, tuning: readTuning(env) });
  cleanups.push(() => worker.stop('test over'));

  const deadline = Date.now() + 20_000;
  while (segments().some((n) => n > 1) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(segments()).toEqual(FTS_INDEXES.map(() => 1));
  expect(lines.some((l) => l.msg === 'full-text indexes merged a step')).toBe(true);
});

it('runs the upkeep again soon while a round says work is left, then only at the sweeps; none after the stop', async () => {
  const tmp = tempDir();
  cleanups.push(tmp.cleanup);
  const path = join(tmp.dir, 'syntheo.db');
  openDatabase(path, { create: true }).close();
  const store = openSqliteStore(path, { create: false });
  cleanups.push(() => store.close());
  const logger = pino({ level: 'silent' }) as unknown as Logger;
  // A 60 s lease: a sweep every 15 s, none but the first within this test.
  const env = { SYNTHEO_WORKER_POLL_MS: '50', SYNTHEO_WORKER_LEASE_MS: '60000' };
  const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** A worker whose upkeep rounds say work is left (as the list bitmaps' first build does, ~150 rounds at 100k meetings) `left` times. */
  const run = async (left: number) => {
    const wanted = Math.min(left + 1, 7);
    const calls: number[] = [];
    const maintain = async () => {
      const round = await store.admin.maintain();
      calls.push(performance.now());
      return round && { ...round, meetingBits: round.meetingBits && { ...round.meetingBits, more: left-- > 0 } };
    };
    const worker = await startWorker({ store: { ...store, admin: { ...store.admin, maintain } }, logger, env, tuning: readTuning(env) });
    cleanups.push(() => worker.stop('test over'));
    const deadline = Date.now() + 10_000;
    while (calls.length < wanted && Date.now() < deadline) await settle(20);
    return { calls, worker };
  };

  // The first sweep's round, then one after each of the 6 that said more was left, each after a pause; then none.
  const { calls, worker } = await run(6);
  expect(calls).toHaveLength(7);
  // (A timer fires no sooner than asked, but for rounding.)
  for (let i = 1; i < calls.length; i++) expect(calls[i]! - calls[i - 1]!).toBeGreaterThanOrEqual(UPKEEP_PAUSE.leastMs - 5);
  await settle(400);
  expect(calls).toHaveLength(7);
  await worker.stop('test over');

  // Work left forever: the rounds go on until the worker stops, then none.
  const endless = await run(Infinity);
  expect(endless.calls.length).toBeGreaterThanOrEqual(7);
  await endless.worker.stop('test over');
  const stopped = endless.calls.length;
  await settle(400);
  expect(endless.calls).toHaveLength(stopped);
});
