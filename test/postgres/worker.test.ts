import { createHash } from 'node:crypto';
import { copyFile, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/db/engine.js';
import type { Store } from '../../src/db/store.js';
import type { Logger } from '../../src/log.js';
import { startWorker } from '../../src/worker/start.js';
import { readTuning } from '../../src/worker/tuning.js';
import { BUDGET_WORDS, startFakeTranscriptionServer } from '../support/fake-transcription-server.js';
import { clusterForBlock } from '../support/postgres.js';
import { fixturePath } from '../support/speech-fixtures.js';
import { needs } from '../support/system-tools.js';
import { waitForImport } from '../support/worker-process.js';

// A worker on the PostgreSQL Store, as one on another machine: it reads the recording stored with the
// job (the original file is gone), and a queued job wakes it through LISTEN/NOTIFY, not its polling.

const ENV = { SYNTHEO_WORKER_LEASE_MS: '4000', SYNTHEO_HTTP_RETRIES: '0' };
const quiet = pino({ level: 'silent' }) as unknown as Logger;



describe.skipIf(needs('postgresql'))('PostgreSQL: a worker that does not see the recording file', () => {
  const pgBlock = clusterForBlock();
  const { cleanups } = pgBlock;

  async function setup(env: Record<string, string>) {
    const url = await pgBlock.cluster.createDatabase();
    const store = await openStore(url, { create: true });
    cleanups.push(() => store.close());
    const server = await startFakeTranscriptionServer();
    cleanups.push(() => server.close());
    await store.settings.write('transcription.url', server.url);
    const allEnv = { ...ENV, ...env };
    const start = async () => {
      const worker = await startWorker({ store, logger: quiet, env: allEnv, tuning: readTuning(allEnv) });
      cleanups.push(() => worker.stop('test over'));
      return worker;
    };
    return { url, store, server, start };
  }

  async function sql<T>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      return (await db.query(text, values)).rows as T[];
    } finally {
      await db.end();
    }
  }

  it('processes the recording stored in the database after the original file was deleted; the chunks and the local copy are dropped', async () => {
    const { url, store, server, start } = await setup({ SYNTHEO_WORKER_POLL_MS: '100' });
    await start();
    const file = join(pgBlock.tmp.dir, 'budget-review.wav');
    await copyFile(fixturePath('budget', 'wav'), file);
    const size = (await stat(file)).size;
    // Enqueued through a second Store, as `syntheo mcp` on the user's machine would.
    const client = await openStore(url, { create: false });
    let queued;
    try {
      queued = await client.imports.enqueue({ filePath: file, title: 'Budget review' });
    } finally {
      await client.close();
    }
    await rm(file);

    const job = await waitForImport(store, queued.job_id);
    expect(job).toMatchObject({ processing_status: 'done', summary_status: 'skipped_no_model', error: null });
    expect(await store.transcripts.wordCount(job.meeting_id)).toBe(BUDGET_WORDS.length);
    // The transcription service got the whole recording, under the original's name.
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.file).toMatchObject({ filename: 'budget-review.wav', size });
    expect(await store.jobs.recording(queued.job_id)).toBeNull();
    expect(await sql(url, 'SELECT count(*)::int AS n FROM recording_chunks')).toEqual([{ n: 0 }]);
    // The private copy is gone.
    expect((await readdir(tmpdir())).filter((name) => name.startsWith(`syntheo-${queued.job_id}-`))).toEqual([]);
  });

  it('a job queued while the worker is idle is claimed through LISTEN/NOTIFY, long before the next poll', async () => {
    const pollMs = 600_000;
    const { store, start } = await setup({ SYNTHEO_WORKER_POLL_MS: String(pollMs) });
    await start();
    // Let the worker settle into its idle wait (its first look at the queue found nothing).
    await new Promise((r) => setTimeout(r, 500));
    const file = join(pgBlock.tmp.dir, 'idle.wav');
    await copyFile(fixturePath('budget', 'wav'), file);
    const started = Date.now();
    const queued = await store.imports.enqueue({ filePath: file, title: 'While idle' });
    // Generous bound for a loaded machine; only the notification can beat the ten-minute poll.
    await waitForImport(store, queued.job_id, { until: (j) => j.processing_status !== 'queued', timeoutMs: 60_000 });
    const claimMs = Date.now() - started;
    expect(claimMs).toBeLessThan(pollMs / 10);
    expect((await waitForImport(store, queued.job_id)).processing_status).toBe('done');
  });

  it('recordings.keep: the recording stored with the job stays once it is done (SYNTHEO_RECORDINGS_KEEP), intact', async () => {
    const { url, store, start } = await setup({ SYNTHEO_WORKER_POLL_MS: '100', SYNTHEO_RECORDINGS_KEEP: 'true' });
    await start();
    const file = join(pgBlock.tmp.dir, 'keep-me.wav');
    await copyFile(fixturePath('budget', 'wav'), file);
    const original = createHash('sha256').update(await readFile(file)).digest('hex');
    const queued = await store.imports.enqueue({ filePath: file, title: 'Kept' });
    expect((await waitForImport(store, queued.job_id)).processing_status).toBe('done');
    const kept = await store.jobs.recording(queued.job_id);
    expect(kept).not.toBeNull();
    const hash = createHash('sha256');
    for await (const chunk of kept!) hash.update(chunk);
    expect(hash.digest('hex')).toBe(original);
    expect(await sql(url, 'SELECT count(*)::int AS n FROM recording_chunks WHERE job_id = $1', [queued.job_id])).toEqual([{ n: 1 }]);
  });

  it('eight idle workers and one queued job: the NOTIFY wakes all eight, each makes one claim (no look first), one gets it', async () => {
    const { store } = await setup({ SYNTHEO_WORKER_POLL_MS: '600000', SYNTHEO_WORKER_GRACE_MS: '0' });
    // Each worker sees the Store through a counter of its queue calls (the calls go through unchanged).
    const counts = Array.from({ length: 8 }, () => ({ looks: 0, claims: 0, answered: 0, won: false }));
    const counted = (n: (typeof counts)[number]): Store => {
      const jobs = new Proxy(store.jobs, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver) as unknown;
          if (key === 'hasQueued') return () => (n.looks++, store.jobs.hasQueued());
          if (key === 'claimNext')
            return async (workerId: string, leaseMs: number) => {
              n.claims++;
              const job = await store.jobs.claimNext(workerId, leaseMs);
              if (job !== null) n.won = true;
              n.answered++;
              return job;
            };
          return value;
        },
      });
      return new Proxy(store, { get: (target, key, receiver) => (key === 'jobs' ? jobs : Reflect.get(target, key, receiver)) });
    };
    const allEnv = { ...ENV, SYNTHEO_WORKER_POLL_MS: '600000', SYNTHEO_WORKER_GRACE_MS: '0' };
    for (const n of counts) {
      const worker = await startWorker({ store: counted(n), logger: quiet, env: allEnv, tuning: readTuning(allEnv) });
      cleanups.push(() => worker.stop('test over'));
    }
    // Settled: each looked once at start-up (and its listener's first wake-up) and found nothing.
    await new Promise((r) => setTimeout(r, 1_000));
    for (const n of counts) Object.assign(n, { looks: 0, claims: 0, answered: 0 });
    const file = join(pgBlock.tmp.dir, 'herd.wav');
    await copyFile(fixturePath('budget', 'wav'), file);
    const queued = await store.imports.enqueue({ filePath: file, title: 'Herd' });
    await waitForImport(store, queued.job_id, { until: (j) => j.processing_status !== 'queued', timeoutMs: 30_000 });
    // Every worker has answered the notification and heard back from its claim (bounded generously for a loaded machine):
    // the job shows claimed once the winner's claim commits, which may be before its call returns to the worker.
    const deadline = Date.now() + 30_000;
    while (counts.some((n) => n.answered === 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const losers = counts.filter((n) => !n.won);
    expect(counts.filter((n) => n.won)).toHaveLength(1);
    expect(losers.map((n) => ({ looks: n.looks, claims: n.claims }))).toEqual(Array(7).fill({ looks: 0, claims: 1 }));
  });

  it('a stored recording that is not audio fails the job naming the original file, not the local copy, which is removed', async () => {
    const { url, store, start } = await setup({ SYNTHEO_WORKER_POLL_MS: '100' });
    const file = join(pgBlock.tmp.dir, 'garbled.wav');
    await copyFile(fixturePath('budget', 'wav'), file);
    // Enqueue refuses without a live worker: one elsewhere, which never claims (stopped before this one starts).
    await store.workers.register({ id: 'wrk_elsewhere', concurrency: 1, version: '0.1.0' });
    const queued = await store.imports.enqueue({ filePath: file, title: 'Garbled' });
    await store.workers.markStopped('wrk_elsewhere');
    // Consistent but not audio any more: same length, checksums that match, every byte zero.
    const [chunk] = await sql<{ n: number }>(url, 'SELECT length(data) AS n FROM recording_chunks WHERE job_id = $1 AND seq = 0', [queued.job_id]);
    const zeros = Buffer.alloc(chunk!.n);
    await sql(url, 'UPDATE recording_chunks SET data = $2, sha256 = $3 WHERE job_id = $1 AND seq = 0', [queued.job_id, zeros, createHash('sha256').update(zeros).digest('hex')]);
    await start();

    const job = await waitForImport(store, queued.job_id);
    expect(job.processing_status).toBe('failed');
    expect(job.error).toContain(file);
    expect(job.error).not.toContain(`syntheo-${queued.job_id}-`);
    expect(await sql(url, 'SELECT count(*)::int AS n FROM recording_chunks')).toEqual([{ n: 0 }]);
    expect((await readdir(tmpdir())).filter((name) => name.startsWith(`syntheo-${queued.job_id}-`))).toEqual([]);
  });
});
