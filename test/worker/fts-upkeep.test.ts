// The worker merges the full-text indexes between jobs: on a database written meeting by meeting, its sweeps
// (store.admin.maintain()) bring every FTS5 index to one segment, with nothing to import.
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { FTS_INDEXES, ftsShape } from '../../src/db/queries/fts-upkeep.js';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import type { Logger } from '../../src/log.js';
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
