import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import type { RecordingImport } from '../../src/db/queries/types.js';
import type { Store } from '../../src/db/store.js';
import type { Logger } from '../../src/log.js';
import { StorageError } from '../../src/errors.js';
import { startWorker, type RunningWorker } from '../../src/worker/start.js';
import { readTuning } from '../../src/worker/tuning.js';
import { tempDir } from '../support/db.js';
import { BUDGET_WORDS, fault, startFakeTranscriptionServer } from '../support/fake-transcription-server.js';
import { fixturePath } from '../support/speech-fixtures.js';

// startWorker in-process, on a Store it is given (as the app runs it): imports go through, and stop()
// resolves only once what it owes the database is written; the Store stays the caller's.

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const ENV = { SYNTHEO_WORKER_POLL_MS: '50', SYNTHEO_WORKER_LEASE_MS: '4000', SYNTHEO_HTTP_RETRIES: '0' };

function logs(): { logger: Logger; lines: { msg: string; [k: string]: unknown }[] } {
  const lines: { msg: string; [k: string]: unknown }[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }) }) as unknown as Logger;
  return { logger, lines };
}

async function setup(env: Record<string, string> = {}) {
  const tmp = tempDir();
  cleanups.push(tmp.cleanup);
  const store = openSqliteStore(join(tmp.dir, 'syntheo.db'), { create: true });
  cleanups.push(() => store.close());
  const server = await startFakeTranscriptionServer();
  cleanups.push(() => server.close());
  await store.settings.write('transcription.url', server.url);
  const log = logs();
  const allEnv = { ...ENV, ...env };
  const worker = await startWorker({ store, logger: log.logger, env: allEnv, tuning: readTuning(allEnv) });
  // A test that fails half-way still stops its worker (a second stop() only cuts the grace short).
  cleanups.push(() => worker.stop('test over'));
  const file = join(tmp.dir, 'meeting.mp3');
  await copyFile(fixturePath('budget', 'mp3'), file);
  return { store, server, worker, file, ...log };
}

async function until(store: Store, jobId: string, done: (job: RecordingImport) => boolean, timeoutMs = 30_000): Promise<RecordingImport> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await store.imports.get(jobId);
    if (done(job)) return job;
    if (Date.now() > deadline) throw new Error(`import ${jobId} still ${job.processing_status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const stopWorker = (w: RunningWorker, why: string) => w.stop(why);

describe('startWorker on a given Store', () => {
  it('runs an import to done; stop() records the worker as stopped and leaves the Store open', async () => {
    const { store, server, worker, file, lines } = await setup();
    expect(await store.workers.isAlive()).toBe(true);
    const queued = await store.imports.enqueue({ filePath: file, title: 'In process' });
    const job = await until(store, queued.job_id, (j) => j.processing_status === 'done' || j.processing_status === 'failed');
    expect(job).toMatchObject({ processing_status: 'done', summary_status: 'skipped_no_model', error: null });
    expect(await store.transcripts.wordCount(job.meeting_id)).toBe(BUDGET_WORDS.length);
    expect(server.requests).toHaveLength(1);

    await stopWorker(worker, 'app closing');
    expect(await store.workers.latest()).toBeNull();
    expect(await store.workers.isAlive()).toBe(false);
    // Still the caller's Store: open and usable.
    expect((await store.imports.get(queued.job_id)).processing_status).toBe('done');
    const said = lines.map((l) => l.msg);
    expect(said.filter((m) => m === 'worker stopping' || m === 'worker stopped')).toEqual(['worker stopping', 'worker stopped']);
    expect(lines.find((l) => l.msg === 'worker stopping')).toMatchObject({ why: 'app closing', running: 0 });
  });

  it('stop() after the grace period resolves with the import in flight already written as interrupted', async () => {
    const { store, server, worker, file } = await setup({ SYNTHEO_WORKER_GRACE_MS: '300' });
    server.script(fault.hang());
    const queued = await store.imports.enqueue({ filePath: file });
    await until(store, queued.job_id, (j) => j.processing_status === 'transcribing' && server.requests.length === 1);
    expect(worker.running()).toBe(1);

    await stopWorker(worker, 'app closing');
    // Read once, right away: the write was awaited by stop(), not left to happen later.
    const job = await store.imports.get(queued.job_id);
    expect(job).toMatchObject({ processing_status: 'failed', summary_status: 'failed' });
    expect(job.error).toBe(
      'Interrupted: the worker was stopped (app closing) while transcribing, and this import did not finish within the 300 ms grace period. The meeting and the transcript stored so far are kept; the job will not restart by itself. To process the recording again, import it again with a new request_key.',
    );
    expect(worker.running()).toBe(0);
    expect(await store.workers.latest()).toBeNull();
  });

  it('a second stop() ends the grace period at once: the import is interrupted, the first stop() resolves', async () => {
    // A grace period longer than the test's timeout: only the second call can end it in time.
    const { store, server, worker, file } = await setup({ SYNTHEO_WORKER_GRACE_MS: '600000' });
    server.script(fault.hang());
    const queued = await store.imports.enqueue({ filePath: file });
    await until(store, queued.job_id, (j) => j.processing_status === 'transcribing' && server.requests.length === 1);
    const first = worker.stop('SIGTERM');
    await new Promise((r) => setTimeout(r, 100));
    expect((await store.imports.get(queued.job_id)).processing_status).toBe('transcribing');
    const second = worker.stop('SIGTERM');
    await Promise.all([first, second]);
    expect((await store.imports.get(queued.job_id)).error).toMatch(/^Interrupted: the worker was stopped \(SIGTERM\) while transcribing, and this import did not finish within the 600 s grace period\./);
  });

  it('a worker that cannot start (invalid setting) registers nothing', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const store = openSqliteStore(join(tmp.dir, 'syntheo.db'), { create: true });
    cleanups.push(() => store.close());
    const { logger } = logs();
    await expect(startWorker({ store, logger, env: { ...ENV }, flags: { 'worker.concurrency': 'many' } })).rejects.toThrow(/worker\.concurrency/);
    expect(await store.workers.latest()).toBeNull();
  });

  it('a database out of reach while polling is logged once as a warning, and its return once, not an error per poll', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const store = openSqliteStore(join(tmp.dir, 'syntheo.db'), { create: true });
    cleanups.push(() => store.close());
    // The Store as a worker sees it while PostgreSQL restarts: the look for queued jobs fails, transiently, 20 times.
    let failures = 0;
    const away = new Proxy(store.jobs, {
      get: (target, key, receiver) =>
        key === 'hasQueued' && failures < 20
          ? async () => {
              failures++;
              throw new StorageError('The PostgreSQL database at test cannot be reached right now (it may be restarting). Try again in a moment.', { transient: true });
            }
          : (Reflect.get(target, key, receiver) as unknown),
    });
    const { logger, lines } = logs();
    const env = { ...ENV, SYNTHEO_WORKER_POLL_MS: '10' };
    const worker = await startWorker({ store: { ...store, jobs: away }, logger, env, tuning: readTuning(env) });
    cleanups.push(() => worker.stop('test over'));
    const deadline = Date.now() + 20_000;
    while (!lines.some((l) => l.msg === 'the database is back: claiming jobs again') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(failures).toBe(20);
    expect(lines.filter((l) => l.msg === 'could not claim a job')).toEqual([]);
    expect(lines.filter((l) => l.msg === 'the database is out of reach: claims resume when it is back').map((l) => l.level)).toEqual([40]);
    expect(lines.filter((l) => l.msg === 'the database is back: claiming jobs again')).toHaveLength(1);
  });
});
