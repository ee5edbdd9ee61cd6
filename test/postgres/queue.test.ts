import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from 'pg';
import { needs } from '../support/system-tools.js';
import { startPostgres, type PgCluster } from '../support/postgres.js';
import { openPostgres, type PgDb } from '../../src/db/postgres/open.js';
import { claimNextJob, failJob, finishTranscription, latestWorker, registerWorker, renewLease, sweepExpiredLeases, heartbeatWorker } from '../../src/db/postgres/jobs.js';
import { JobWaker } from '../../src/db/postgres/listen.js';
import { LeaseLostError } from '../../src/db/queries/jobs.js';
import { newId } from '../../src/db/ids.js';

/** Queues `n` import jobs (each with its meeting), oldest first; returns their ids. */
async function queueJobs(pool: Pool, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const meeting = newId('meeting');
    const job = newId('job');
    const t = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    await pool.query("INSERT INTO meetings (id, title, started_at, created_at, updated_at, source) VALUES ($1, $2, $3, $3, $3, 'import')", [meeting, `Recording ${i}`, t]);
    await pool.query(
      "INSERT INTO recording_imports (id, meeting_id, file_path, file_size, file_mtime_ms, file_format, created_at, updated_at) VALUES ($1, $2, '/rec.wav', 10, 0, 'wav', $3, $3)",
      [job, meeting, t],
    );
    ids.push(job);
  }
  return ids;
}

describe.skipIf(needs('postgresql'))('PostgreSQL queue: claims, leases, LISTEN/NOTIFY', () => {
  let pg: PgCluster;
  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(() => pg?.destroy());

  it('six workers with four claimers each take 300 jobs: every job claimed exactly once', async () => {
    const url = await pg.createDatabase();
    const dbs: PgDb[] = [];
    for (let i = 0; i < 6; i++) dbs.push(await openPostgres(url, { create: true, max: 4 }));
    try {
      const jobs = await queueJobs(dbs[0]!.pool, 300);
      const claims: { worker: string; job: string }[] = [];
      await Promise.all(
        dbs.flatMap((db, w) =>
          Array.from({ length: 4 }, async () => {
            for (;;) {
              const job = await claimNextJob(db.pool, `wrk_${w}`, 60_000);
              if (job === null) return;
              claims.push({ worker: `wrk_${w}`, job: job.id });
            }
          }),
        ),
      );
      expect(claims.map((c) => c.job).sort()).toEqual([...jobs].sort());
      // Every worker got some: SKIP LOCKED lets claimers pass each other instead of queueing on one row.
      expect(new Set(claims.map((c) => c.worker)).size).toBe(6);
      const states = await dbs[0]!.pool.query<{ status: string; n: number }>('SELECT status, count(*) AS n FROM recording_imports GROUP BY status');
      expect(states.rows).toEqual([{ status: 'importing', n: 300 }]);
    } finally {
      await Promise.all(dbs.map((d) => d.close()));
    }
  });

  it('an expired lease: the worker can no longer write, the sweep marks the job interrupted and drops its recording', async () => {
    const url = await pg.createDatabase();
    const db = await openPostgres(url, { create: true });
    try {
      const [id] = await queueJobs(db.pool, 1);
      await db.pool.query("INSERT INTO recording_chunks (job_id, seq, data, sha256) VALUES ($1, 0, '\\x00'::bytea, 'x')", [id]);
      const job = (await claimNextJob(db.pool, 'wrk_a', 60_000))!;
      const lease = { jobId: job.id, workerId: 'wrk_a', leaseMs: 60_000 };
      expect(await renewLease(db.pool, lease)).toBe(true);
      // Another worker cannot renew it.
      expect(await renewLease(db.pool, { ...lease, workerId: 'wrk_b' })).toBe(false);
      // The lease runs out (as if its worker died).
      await db.pool.query("UPDATE recording_imports SET lease_expires_at = '2000-01-01T00:00:00.000Z' WHERE id = $1", [id]);
      expect(await renewLease(db.pool, lease)).toBe(false);
      await db.pool.query("UPDATE recording_imports SET status = 'transcribing' WHERE id = $1", [id]);
      await expect(finishTranscription(db.pool, lease, job.meetingId, { words: [{ text: 'hi', startMs: 0, endMs: 1, speaker: null }], language: 'en' }, [])).rejects.toBeInstanceOf(
        LeaseLostError,
      );
      expect(await failJob(db.pool, lease, 'late')).toBe(false);
      expect(await sweepExpiredLeases(db.pool)).toEqual([id]);
      const row = (await db.pool.query<{ status: string; error: string; summary_status: string; chunks: number }>(
        'SELECT status, error, summary_status, (SELECT count(*) FROM recording_chunks WHERE job_id = $1) AS chunks FROM recording_imports WHERE id = $1',
        [id],
      )).rows[0]!;
      expect(row).toEqual({
        status: 'failed',
        summary_status: 'failed',
        chunks: 0,
        error:
          'Interrupted: the worker processing this import stopped while transcribing (it was killed, crashed, or lost its lease). The meeting and the transcript stored so far are kept; the job will not restart by itself. To process the recording again, import it again with a new request_key.',
      });
      // Nothing written by the late worker; a second sweep finds nothing.
      expect((await db.pool.query('SELECT 1 FROM transcripts')).rowCount).toBe(0);
      expect(await sweepExpiredLeases(db.pool)).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('recordings.keep: a job that fails or is swept keeps its stored recording when asked (the lease for its worker, the database setting for the sweep)', async () => {
    const url = await pg.createDatabase();
    const db = await openPostgres(url, { create: true });
    try {
      const [a, b, c] = await queueJobs(db.pool, 3);
      for (const id of [a, b, c]) await db.pool.query("INSERT INTO recording_chunks (job_id, seq, data, sha256) VALUES ($1, 0, '\\x00'::bytea, 'x')", [id]);
      const chunks = async (id: string) => (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM recording_chunks WHERE job_id = $1', [id])).rows[0]!.n;
      for (let i = 0; i < 3; i++) await claimNextJob(db.pool, 'wrk_a', 60_000);
      expect(await failJob(db.pool, { jobId: a!, workerId: 'wrk_a', leaseMs: 60_000, keepRecording: true }, 'unreadable')).toBe(true);
      expect(await failJob(db.pool, { jobId: b!, workerId: 'wrk_a', leaseMs: 60_000 }, 'unreadable')).toBe(true);
      expect([await chunks(a!), await chunks(b!)]).toEqual([1, 0]);
      await db.pool.query("INSERT INTO settings (key, value, updated_at) VALUES ('recordings.keep', 'true', '2026-01-01T00:00:00.000Z')");
      await db.pool.query("UPDATE recording_imports SET lease_expires_at = '2000-01-01T00:00:00.000Z' WHERE id = $1", [c]);
      expect(await sweepExpiredLeases(db.pool)).toEqual([c]);
      expect(await chunks(c!)).toBe(1);
    } finally {
      await db.close();
    }
  });

  it('a worker heartbeat makes the app open, by the database clock', async () => {
    const url = await pg.createDatabase();
    const db = await openPostgres(url, { create: true });
    try {
      expect(await latestWorker(db.pool)).toBeNull();
      await registerWorker(db.pool, { id: 'wrk_1', concurrency: 2, version: '0.1.0' });
      expect((await latestWorker(db.pool))?.alive).toBe(true);
      await heartbeatWorker(db.pool, 'wrk_1', Date.now() - 60_000);
      expect((await latestWorker(db.pool))?.alive).toBe(false);
    } finally {
      await db.close();
    }
  });

  it('a queued job wakes a waiting listener by NOTIFY (not by its fallback timeout), also after a server restart', async () => {
    const url = await pg.createDatabase();
    const db = await openPostgres(url, { create: true });
    const waker = new JobWaker(url);
    try {
      await waker.start();
      // The fallback timeout is far beyond the test's own: only a notification can resolve this wait.
      const woken = waker.wait(600_000);
      await queueJobs(db.pool, 1);
      expect(await woken).toBe('notified');

      pg.restart();
      // The listener reconnects by itself, then a new job wakes it again.
      for (let i = 0; i < 600 && !waker.listening; i++) await new Promise((r) => setTimeout(r, 100));
      expect(waker.listening).toBe(true);
      await waker.wait(0); // the wake-up after reconnecting
      const again = waker.wait(600_000);
      await queueJobs(db.pool, 1).catch(async () => queueJobs(db.pool, 1)); // the pool's old connections were cut
      expect(await again).toBe('notified');
    } finally {
      await waker.close();
      await db.close();
    }
  });
});
