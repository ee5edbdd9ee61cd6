import { statSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { checkpointIfLarge } from '../../src/db/checkpoint.js';
import { openDatabase } from '../../src/db/open.js';
import { openTestDb } from '../support/db.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

it('rewinds a WAL that readers kept from being rewound, and leaves a small one alone', () => {
  const db = openTestDb();
  cleanups.push(() => db.cleanup());
  const reader = openDatabase(db.path, { create: false });
  cleanups.push(() => reader.close());
  const write = db.sqlite.prepare("INSERT INTO settings (key, value, updated_at) VALUES (?, ?, '2026-01-01T00:00:00.000Z')");
  // Writes while a reader holds an older snapshot: the log grows past what a PASSIVE checkpoint rewinds.
  for (let round = 0; round < 40; round++) {
    reader.sqlite.exec('BEGIN');
    reader.sqlite.prepare('SELECT count(*) FROM settings').get();
    for (let i = 0; i < 20; i++) write.run(`k${round}.${i}`, 'x'.repeat(3000));
    reader.sqlite.exec('COMMIT');
  }
  const wal = `${db.path}-wal`;
  expect(statSync(wal).size).toBeGreaterThan(2_000_000);
  expect(checkpointIfLarge(db.sqlite, 1_000_000)).toEqual({ frames: expect.any(Number), truncated: false });
  const forced = checkpointIfLarge(db.sqlite, 100);
  expect(forced.truncated).toBe(true);
  expect(forced.frames).toBeGreaterThan(100);
  expect(statSync(wal).size).toBe(0);
  expect(db.sqlite.prepare('SELECT count(*) FROM settings').pluck().get()).toBe(800);
});
