// The Store conformance suite on the SQLite engine (a fresh database file in a temp folder per test),
// then what only the SQLite engine has: opening on first use, and SQLite's failures mapped.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeWav } from '../support/wav.js';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import { NoDatabaseError, StorageError, SyntheoError } from '../../src/errors.js';
import { describeStoreConformance } from './conformance.js';
import { dataset } from './records.js';

describeStoreConformance('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'syntheo-store-'));
  const store = openSqliteStore(join(dir, 'syntheo.db'), { create: true });
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('the SQLite store', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  function folder(): string {
    const dir = mkdtempSync(join(tmpdir(), 'syntheo-store-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }
  function opened(path: string, options: Parameters<typeof openSqliteStore>[1]) {
    const store = openSqliteStore(path, options);
    cleanups.push(() => store.close());
    return store;
  }

  it('lazy: the file is created on the first call, not when the store is made', async () => {
    const path = join(folder(), 'lazy.db');
    const store = opened(path, { create: true, lazy: true });
    expect(existsSync(path)).toBe(false);
    expect(store.location).toBe(path);
    expect(store.engine).toBe('sqlite');
    expect(await store.meetings.counts()).toEqual({ meetings: 0, folders: 0, pending_proposals: 0, active_imports: 0 });
    expect(existsSync(path)).toBe(true);
  });

  it('a missing file without create: NoDatabaseError on each call, until the file exists (a failed open is not remembered)', async () => {
    const path = join(folder(), 'missing.db');
    const store = opened(path, { create: false, lazy: true });
    await expect(store.meetings.list({}, { offset: 0, limit: 1 })).rejects.toBeInstanceOf(NoDatabaseError);
    await expect(store.settings.read()).rejects.toBeInstanceOf(NoDatabaseError);
    expect(existsSync(path)).toBe(false);
    const writer = opened(path, { create: true });
    await writer.admin.load(dataset());
    expect((await store.meetings.list({}, { offset: 0, limit: 1 })).pagination.total).toBe(4);
  });

  it('a file that is not a database: a storage error, with no SQLite code above the store', async () => {
    const path = join(folder(), 'notes.db');
    writeFileSync(path, 'These are my notes, not a database.\n'.repeat(200));
    const store = opened(path, { create: false, lazy: true });
    const error = await store.meetings.counts().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SyntheoError);
    expect((error as SyntheoError).kind).toBe('storage');
    expect(error).not.toHaveProperty('code');
    expect((error as Error).message).not.toMatch(/SQLITE_/);
  });

  it('the file deleted while open: a write fails as StorageError (nothing vanishes silently), mapped once', async () => {
    const dir = folder();
    const path = join(dir, 'gone.db');
    const store = opened(path, { create: true });
    await store.admin.load(dataset());
    rmSync(path);
    const error = await store.proposals.proposeMemoEdit({ meetingId: 'mtg_alpha', content: 'lost?' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StorageError);
    expect((error as Error).message).toMatch(/moved, renamed or deleted/);
    expect(error).not.toHaveProperty('code');
  });

  it('the file deleted while open: single-statement writes (settings, workers, claims, leases, seeds) fail too', async () => {
    const dir = folder();
    const path = join(dir, 'gone.db');
    const store = opened(path, { create: true });
    await store.admin.load(dataset());
    await store.workers.register({ id: 'wrk_a', concurrency: 1, version: 'test' });
    await store.imports.enqueue({ filePath: writeWav(join(dir, 'a.wav')) });
    await store.imports.enqueue({ filePath: writeWav(join(dir, 'b.wav')) });
    const held = (await store.jobs.claimNext('wrk_a', 60_000))!;
    const lease = { jobId: held.id, workerId: 'wrk_a', leaseMs: 60_000 };
    await store.settings.write('kept', 'yes');
    rmSync(path);
    const writes: [string, () => Promise<unknown>][] = [
      ['settings.write', () => store.settings.write('lost', 'no')],
      ['settings.delete', () => store.settings.delete('kept')],
      ['workers.register', () => store.workers.register({ id: 'wrk_b', concurrency: 1, version: 'test' })],
      ['workers.heartbeat', () => store.workers.heartbeat('wrk_a')],
      ['workers.markStopped', () => store.workers.markStopped('wrk_a')],
      ['jobs.claimNext', () => store.jobs.claimNext('wrk_a', 60_000)],
      ['jobs.renewLease', () => store.jobs.renewLease(lease)],
      ['jobs.fail', () => store.jobs.fail(lease, 'lost')],
      ['jobs.interrupt', () => store.jobs.interrupt(lease, 'importing', { signal: 'SIGTERM', graceMs: 1000 })],
      ['proposals.seed', () => store.proposals.seed({ id: 'prp_x', meetingId: 'mtg_alpha', kind: 'memo', targetId: null, content: 'x', baseContent: '', proposedBy: 'demo', createdAt: '2026-01-01T00:00:00.000Z' })],
    ];
    const outcomes = [];
    for (const [name, write] of writes)
      outcomes.push([name, await write().then(() => 'written into the deleted file', (e: unknown) => (e instanceof StorageError && /moved, renamed or deleted/.test(e.message) ? 'refused' : String(e)))]);
    expect(Object.fromEntries(outcomes)).toEqual(Object.fromEntries(writes.map(([name]) => [name, 'refused'])));
  });
});
