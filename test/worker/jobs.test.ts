import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { enqueueImport, getImportOrThrow } from '../../src/db/queries/imports.js';
import {
  LeaseLostError,
  appendJobWords,
  claimNextJob,
  failJob,
  recordAudioFacts,
  registerWorker,
  renewLease,
  sweepExpiredLeases,
  type JobLease,
} from '../../src/db/queries/jobs.js';
import { getMeetingOrThrow } from '../../src/db/queries/meetings.js';
import { getTranscriptPageOrThrow, transcriptText } from '../../src/db/queries/transcripts.js';
import { openTestDb } from '../support/db.js';
import { fixturePath } from '../support/speech-fixtures.js';

// The job queries on a real database file: claims, leases, guarded writes, the sweep, and the
// "interrupted" state readers derive from an expired lease.

const open: ReturnType<typeof openTestDb>[] = [];
afterEach(() => open.splice(0).forEach((d) => d.cleanup()));

async function setup(jobs = 1) {
  const db = openTestDb();
  open.push(db);
  registerWorker(db.sqlite, { id: 'wrk_test', concurrency: 1, version: 'test' });
  const ids: string[] = [];
  for (let i = 0; i < jobs; i++) ids.push((await enqueueImport(db.sqlite, { filePath: fixturePath('budget', 'wav'), title: `Job ${i}` })).job_id);
  return { db, ids };
}

const lease = (jobId: string, leaseMs = 60_000): JobLease => ({ jobId, workerId: 'wrk_test', leaseMs });
const words = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ text: `w${from + i}`, startMs: (from + i) * 100, endMs: (from + i) * 100 + 80, speaker: null }));

describe('claims', () => {
  it('take the oldest queued job, once, from any connection', async () => {
    const { db, ids } = await setup(3);
    const other = openDatabase(db.path, { create: false });
    try {
      const first = claimNextJob(db.sqlite, 'wrk_a', 60_000);
      const second = claimNextJob(other.sqlite, 'wrk_b', 60_000);
      const third = claimNextJob(db.sqlite, 'wrk_a', 60_000);
      expect([first?.id, second?.id, third?.id]).toEqual(ids);
      expect(claimNextJob(other.sqlite, 'wrk_b', 60_000)).toBeNull();
      expect(first).toMatchObject({ filePath: fixturePath('budget', 'wav'), fileFormat: 'wav', fileSize: 204044 });
      expect(getImportOrThrow(db.sqlite, ids[0]!)).toMatchObject({ processing_status: 'importing', error: null });
      expect(getImportOrThrow(db.sqlite, ids[0]!).started_at).not.toBeNull();
    } finally {
      other.close();
    }
  });
});

describe('leases', () => {
  it('renew while held; once expired, nothing the worker writes gets through', async () => {
    const { db, ids } = await setup();
    const job = claimNextJob(db.sqlite, 'wrk_test', 60_000)!;
    expect(renewLease(db.sqlite, lease(job.id))).toBe(true);
    expect(renewLease(db.sqlite, { ...lease(job.id), workerId: 'wrk_other' })).toBe(false);
    recordAudioFacts(db.sqlite, lease(job.id), job.meetingId, { durationMs: 6_375, endedAtMs: Date.parse('2026-11-30T10:00:00.000Z') });
    appendJobWords(db.sqlite, lease(job.id), job.meetingId, { words: words(3), language: 'en' });

    // Time passes beyond the lease (a stalled or dead worker).
    const later = Date.now() + 61_000;
    expect(renewLease(db.sqlite, lease(job.id), later)).toBe(false);
    db.sqlite.prepare('UPDATE recording_imports SET lease_expires_at = ? WHERE id = ?').run(new Date(Date.now() - 1).toISOString(), job.id);
    expect(() => appendJobWords(db.sqlite, lease(job.id), job.meetingId, { words: words(2, 3), language: 'en' })).toThrow(LeaseLostError);
    expect(failJob(db.sqlite, lease(job.id), 'too late')).toBe(false);
    // The rejected batch left nothing behind (same transaction as the lease check).
    expect(transcriptText(getTranscriptPageOrThrow(db.sqlite, job.meetingId, { offset: 0, limit: 10 }).words)).toBe('w0 w1 w2');
    expect(ids).toEqual([job.id]);
  });

  it('an expired lease reads as interrupted at once, and the sweep writes down exactly that', async () => {
    const { db } = await setup();
    const job = claimNextJob(db.sqlite, 'wrk_test', 60_000)!;
    recordAudioFacts(db.sqlite, lease(job.id), job.meetingId, { durationMs: 6_375, endedAtMs: Date.parse('2026-11-30T10:00:00.000Z') });
    appendJobWords(db.sqlite, lease(job.id), job.meetingId, { words: words(4), language: 'en' });
    const expiredAt = new Date(Date.now() - 1000).toISOString();
    db.sqlite.prepare('UPDATE recording_imports SET lease_expires_at = ? WHERE id = ?').run(expiredAt, job.id);

    const derived = getImportOrThrow(db.sqlite, job.id);
    expect(derived).toMatchObject({ processing_status: 'failed', summary_status: 'failed', finished_at: expiredAt, audio_duration_ms: 6375 });
    expect(derived.error).toBe(
      'Interrupted: the worker processing this import stopped while transcribing (it was killed, crashed, or lost its lease). The meeting and the transcript stored so far are kept; the job will not restart by itself. To process the recording again, import it again with a new request_key.',
    );
    // Nothing was written by reading it.
    expect(db.sqlite.prepare('SELECT status FROM recording_imports WHERE id = ?').get(job.id)).toEqual({ status: 'transcribing' });
    expect(getMeetingOrThrow(db.sqlite, job.meetingId).recording_import).toEqual(derived);

    expect(sweepExpiredLeases(db.sqlite)).toEqual([job.id]);
    expect(sweepExpiredLeases(db.sqlite)).toEqual([]);
    const { updated_at: _a, ...swept } = getImportOrThrow(db.sqlite, job.id);
    const { updated_at: _b, ...before } = derived;
    expect(swept).toEqual(before);
    // The meeting, its times and the words stored so far stay.
    const meeting = getMeetingOrThrow(db.sqlite, job.meetingId);
    expect([meeting.started_at, meeting.ended_at]).toEqual(['2026-11-30T09:59:53.625Z', '2026-11-30T10:00:00.000Z']);
    expect(meeting.transcript?.word_count).toBe(4);
  });

  it('a live lease is left alone by the sweep', async () => {
    const { db } = await setup();
    const job = claimNextJob(db.sqlite, 'wrk_test', 60_000)!;
    expect(sweepExpiredLeases(db.sqlite)).toEqual([]);
    expect(getImportOrThrow(db.sqlite, job.id).processing_status).toBe('importing');
  });
});
