import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTranscribeServer } from '../../tools/transcribe-server/server.js';
import type { RecordingImport } from '../../src/db/queries/types.js';
import { openTestDb } from '../support/db.js';
import { serve } from '../support/engine.js';
import { BUDGET_WORDS, fault, startFakeTranscriptionServer } from '../support/fake-transcription-server.js';
import { fixturePath } from '../support/speech-fixtures.js';
import { needs } from '../support/system-tools.js';
import { startWorker, waitForImport, type WorkerProcess } from '../support/worker-process.js';

// Worker processes dying, racing and stopping, against a real database file.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A seeded file served on the engine under test: `path` is what the worker opens. */
async function testDb() {
  const file = openTestDb();
  cleanups.push(() => file.cleanup());
  const served = await serve(file.path);
  return { dir: file.dir, path: served.location, store: await served.store(), sql: served.sql };
}

async function worker(dbPath: string, env: Record<string, string> = {}, args: string[] = []): Promise<WorkerProcess> {
  const w = await startWorker(dbPath, { env, args });
  cleanups.push(async () => void (await w.stop('SIGKILL')));
  return w;
}

async function fakeServer(db: Awaited<ReturnType<typeof testDb>>) {
  const s = await startFakeTranscriptionServer();
  cleanups.push(() => s.close());
  await db.store.settings.write('transcription.url', s.url);
  return s;
}

async function copies(db: Awaited<ReturnType<typeof testDb>>, count: number): Promise<string[]> {
  const files: string[] = [];
  for (let i = 0; i < count; i++) {
    const file = join(db.dir, `meeting-${String(i).padStart(2, '0')}.mp3`);
    await copyFile(fixturePath('budget', 'mp3'), file);
    files.push(file);
  }
  return files;
}

const isTranscribing = (j: RecordingImport) => j.processing_status === 'transcribing';

describe('a worker killed mid-transcription', () => {
  it('leaves the job failed "Interrupted" with its meeting, and the next worker never runs it again', async () => {
    const db = await testDb();
    const s = await fakeServer(db);
    s.script(fault.hang());
    // Short enough for a quick test, long enough that a loaded CI machine does not miss renewals.
    const env = { SYNTHEO_WORKER_LEASE_MS: '3000' };
    const first = await worker(db.path, env);
    const [file, second] = await copies(db, 2);
    const queued = await db.store.imports.enqueue({ filePath: file!, title: 'Killed mid-way' });
    // pending() === 0: the server has read the whole upload and taken the hang fault; killing earlier
    // (mid-upload, on a loaded machine) would leave the fault queued for the next worker's request.
    const inFlight = await waitForImport(db.store, queued.job_id, {
      until: (j) => (isTranscribing(j) && s.requests.length === 1 && s.pending() === 0) || j.processing_status === 'failed',
      timeoutMs: 30_000,
    });
    expect(inFlight.processing_status, inFlight.error ?? '').toBe('transcribing');

    first.proc.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // No clean stop was recorded: the heartbeat just goes stale.
    expect(await db.sql('SELECT stopped_at FROM workers WHERE pid = ?', first.pid)).toEqual([{ stopped_at: null }]);

    const next = await worker(db.path, env);
    const job = await waitForImport(db.store, queued.job_id, { timeoutMs: 15_000 });
    expect(job).toMatchObject({ processing_status: 'failed', summary_status: 'failed' });
    expect(job.error).toBe(
      'Interrupted: the worker processing this import stopped while transcribing (it was killed, crashed, or lost its lease). The meeting and the transcript stored so far are kept; the job will not restart by itself. To process the recording again, import it again with a new request_key.',
    );
    // Written down by the new worker's sweep, not only derived when read.
    await next.waitForLog((l) => l.msg === 'imports of a worker that stopped were marked interrupted' && (l.jobs as string[]).includes(queued.job_id));
    const rows = await db.sql('SELECT status, lease_expires_at FROM recording_imports WHERE id = ?', queued.job_id);
    expect(rows).toEqual([{ status: 'failed', lease_expires_at: null }]);
    expect(await db.store.meetings.get(job.meeting_id)).toMatchObject({ title: 'Killed mid-way', processing_status: 'failed' });

    // The new worker does its own work, and only that: one request per job in all.
    const other = await db.store.imports.enqueue({ filePath: second! });
    const otherDone = await waitForImport(db.store, other.job_id, { timeoutMs: 25_000 }).catch((error: Error) => {
      throw new Error(`${error.message}\nworker stderr:\n${next.stderr().slice(-3000)}`);
    });
    expect(otherDone.processing_status).toBe('done');
    expect(s.requests.map((r) => r.file?.filename)).toEqual(['meeting-00.mp3', 'meeting-01.mp3']);
    expect(next.logs.filter((l) => l.msg === 'import claimed').map((l) => l.jobId)).toEqual([other.job_id]);
  });
});

describe('two workers racing', () => {
  it('process each of 20 jobs exactly once', async () => {
    const db = await testDb();
    const s = await fakeServer(db);
    const [a, b] = await Promise.all([worker(db.path), worker(db.path)]);
    const files = await copies(db, 20);
    const jobs: RecordingImport[] = [];
    for (const file of files) jobs.push(await db.store.imports.enqueue({ filePath: file }));
    const done = await Promise.all(jobs.map((j) => waitForImport(db.store, j.job_id)));
    expect(done.map((j) => j.processing_status)).toEqual(Array(20).fill('done'));

    // One transcription request per file...
    const uploads = s.requests.map((r) => r.file?.filename).sort();
    expect(uploads).toEqual(files.map((f) => f.split('/').pop()).sort());
    // ...and each job claimed by exactly one of the two workers.
    const claimedBy = (w: WorkerProcess) => w.logs.filter((l) => l.msg === 'import claimed').map((l) => l.jobId as string);
    const byA = claimedBy(a);
    const byB = claimedBy(b);
    expect([...byA, ...byB].sort()).toEqual(jobs.map((j) => j.job_id).sort());
    expect(byA.filter((id) => byB.includes(id))).toEqual([]);
    // Both really took part (measured: 9-11 jobs each).
    expect(byA.length).toBeGreaterThan(0);
    expect(byB.length).toBeGreaterThan(0);
    const [words] = await db.sql<{ n: number }>('SELECT count(*) AS n FROM transcript_words');
    expect(words!.n).toBe(20 * BUDGET_WORDS.length);
  });
});

describe('SIGTERM', () => {
  it.skipIf(needs('pocketsphinx', 'ffmpeg'))('lets an import in flight finish within the grace period, then exits 0', async () => {
    const db = await testDb();
    const speech = await startTranscribeServer();
    cleanups.push(() => speech.close());
    await db.store.settings.write('transcription.url', speech.url);
    const w = await worker(db.path, { SYNTHEO_WORKER_GRACE_MS: '20000' });
    const [file] = await copies(db, 1);
    const queued = await db.store.imports.enqueue({ filePath: file! });
    await waitForImport(db.store, queued.job_id, { until: isTranscribing });
    w.proc.kill('SIGTERM');
    expect(await w.exited).toEqual({ code: 0, signal: null });
    const job = await waitForImport(db.store, queued.job_id, { timeoutMs: 1 });
    expect(job).toMatchObject({ processing_status: 'done', error: null });
    const order = w.logs.map((l) => l.msg);
    expect(order.indexOf('worker stopping')).toBeLessThan(order.indexOf('import done'));
    // A clean stop is recorded: the app no longer counts as open.
    expect(await db.store.workers.latest()).toBeNull();
  });

  it('after the grace period marks what is left interrupted, claims nothing new, and exits 0', async () => {
    const db = await testDb();
    const s = await fakeServer(db);
    s.script(fault.hang());
    const w = await worker(db.path, { SYNTHEO_WORKER_GRACE_MS: '1000' }, ['--concurrency', '1']);
    const [file, waiting] = await copies(db, 2);
    const hanging = await db.store.imports.enqueue({ filePath: file! });
    await waitForImport(db.store, hanging.job_id, { until: isTranscribing });
    const queued = await db.store.imports.enqueue({ filePath: waiting! });

    const sent = Date.now();
    w.proc.kill('SIGTERM');
    expect(await w.exited).toEqual({ code: 0, signal: null });
    const took = Date.now() - sent;
    expect(took).toBeGreaterThanOrEqual(1000);
    expect(took).toBeLessThan(4000);

    const job = await waitForImport(db.store, hanging.job_id, { timeoutMs: 1 });
    expect(job.processing_status).toBe('failed');
    expect(job.error).toBe(
      'Interrupted: the worker was stopped (SIGTERM) while transcribing, and this import did not finish within the 1 s grace period. The meeting and the transcript stored so far are kept; the job will not restart by itself. To process the recording again, import it again with a new request_key.',
    );
    expect((await waitForImport(db.store, queued.job_id, { until: () => true })).processing_status).toBe('queued');
    expect(s.requests).toHaveLength(1);
  });
});
