import { hostname } from 'node:os';
import type { Pool, PoolClient } from 'pg';
import { newId } from '../ids.js';
import { ACTIVE_STATUSES_SQL as ACTIVE_SQL, type ActiveStatus, type ProcessingStatus } from '../schema/enums.js';
import { interruptedError, LeaseLostError, type AudioFacts, type ClaimedJob, type JobLease, type JobOutcome, type ShutdownCause, type TranscriptBatch, type WorkerRegistration } from '../queries/jobs.js';
import { toClaimedJob, type ClaimRow } from '../model/jobs.js';
import { HEARTBEAT_FRESH_MS, type WorkerStatus } from '../queries/workers.js';
import { appendTranscriptWords } from './transcripts.js';
import { at, changes, one, rows, transaction, type Queryable } from './sql.js';

// The worker's writes on PostgreSQL, with the same lease invariant as on SQLite (src/db/queries/jobs.ts):
// every write to a held job is guarded by `worker_id = me AND status = <stage> AND lease_expires_at >
// now`. Times come from the database's clock unless the caller gives one (workers on several machines
// share the database, not a clock). Claims lock the job row with FOR UPDATE SKIP LOCKED: concurrent
// claimers each take a different job, never the same one, and never wait on each other.

const NOW = (p: string) => `syntheo_at(${p}, 0)`;

export async function registerWorker(q: Queryable, reg: WorkerRegistration, now?: number): Promise<void> {
  await q.query(`INSERT INTO workers (id, hostname, pid, version, concurrency, started_at, heartbeat_at) VALUES ($1, $2, $3, $4, $5, ${NOW('$6')}, ${NOW('$6')})`, [
    reg.id,
    hostname(),
    process.pid,
    reg.version,
    reg.concurrency,
    at(now),
  ]);
}

export async function heartbeatWorker(q: Queryable, workerId: string, now?: number): Promise<void> {
  await q.query(`UPDATE workers SET heartbeat_at = ${NOW('$2')} WHERE id = $1`, [workerId, at(now)]);
}

export async function markWorkerStopped(q: Queryable, workerId: string, now?: number): Promise<void> {
  await q.query(`UPDATE workers SET stopped_at = ${NOW('$2')}, heartbeat_at = ${NOW('$2')} WHERE id = $1`, [workerId, at(now)]);
}

/** The most recently heard-from worker that has not said it stopped, or null; its age by the database's clock. */
export async function latestWorker(q: Queryable, now?: number): Promise<WorkerStatus | null> {
  const row = await one<Omit<WorkerStatus, 'heartbeat_age_ms' | 'alive'> & { now: string }>(
    q,
    `SELECT id, hostname, pid, version, heartbeat_at, ${NOW('$1')} AS now FROM workers WHERE stopped_at IS NULL ORDER BY heartbeat_at DESC LIMIT 1`,
    [at(now)],
  );
  if (!row) return null;
  const { now: dbNow, ...status } = row;
  const age = Date.parse(dbNow) - Date.parse(row.heartbeat_at);
  return { ...status, heartbeat_age_ms: age, alive: age <= HEARTBEAT_FRESH_MS };
}

export async function hasQueuedJob(q: Queryable): Promise<boolean> {
  return (await one(q, "SELECT 1 FROM recording_imports WHERE status = 'queued' LIMIT 1")) !== undefined;
}

/** Claims the oldest queued job that no other claimer holds at this instant, in one statement. */
export async function claimNextJob(q: Queryable, workerId: string, leaseMs: number, now?: number): Promise<ClaimedJob | null> {
  const row = await one<ClaimRow>(
    q,
    `UPDATE recording_imports
        SET status = 'importing', worker_id = $1, lease_expires_at = syntheo_at($3, $2), started_at = ${NOW('$3')}, updated_at = ${NOW('$3')}
      WHERE id = (SELECT id FROM recording_imports WHERE status = 'queued' ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING id, meeting_id, file_path, file_size, file_mtime_ms, file_format, extract_audio, created_at`,
    [workerId, leaseMs, at(now)],
  );
  return row ? toClaimedJob(row) : null;
}

/** Extends the lease; false when the job is no longer ours. */
export async function renewLease(q: Queryable, lease: JobLease, now?: number): Promise<boolean> {
  return (
    (await changes(
      q,
      `UPDATE recording_imports SET lease_expires_at = syntheo_at($3, $4)
        WHERE id = $1 AND worker_id = $2 AND status IN ${ACTIVE_SQL} AND lease_expires_at > ${NOW('$3')}`,
      [lease.jobId, lease.workerId, at(now), lease.leaseMs],
    )) === 1
  );
}

/** The guard of every write to a held job, inside the write's transaction; throws LeaseLostError when the job is not ours. */
async function guard(q: Queryable, lease: JobLease, from: ActiveStatus, to: ProcessingStatus, extra: Record<string, unknown> = {}): Promise<void> {
  const done = to === 'done' || to === 'failed';
  const values: unknown[] = [to, lease.jobId, lease.workerId, from];
  const lease_ = done ? 'NULL' : `syntheo_at(NULL, $${values.push(lease.leaseMs)})`;
  const sets = Object.entries(extra).map(([column, value]) => `, ${column} = $${values.push(value)}`);
  const n = await changes(
    q,
    `UPDATE recording_imports
        SET status = $1, updated_at = ${NOW('NULL')}, lease_expires_at = ${lease_}${done ? `, finished_at = ${NOW('NULL')}` : ''}${sets.join('')}
      WHERE id = $2 AND worker_id = $3 AND status = $4 AND lease_expires_at > ${NOW('NULL')}`,
    values,
  );
  if (n !== 1) throw new LeaseLostError(lease.jobId);
}

async function setMeetingTimes(q: Queryable, meetingId: string, facts: AudioFacts): Promise<void> {
  const row = await one<{ started_at: string; known: number }>(
    q,
    'SELECT m.started_at, coalesce((SELECT max(started_at_known) FROM recording_imports WHERE meeting_id = m.id), 0) AS known FROM meetings m WHERE m.id = $1',
    [meetingId],
  );
  const startMs = row !== undefined && row.known === 1 ? Date.parse(row.started_at) : facts.endedAtMs - facts.durationMs;
  const iso = (ms: number) => new Date(ms).toISOString();
  await q.query('UPDATE meetings SET started_at = $1, ended_at = $2, updated_at = $3 WHERE id = $4', [iso(startMs), iso(startMs + facts.durationMs), iso(Date.now()), meetingId]);
}

export async function recordAudioFacts(pool: Pool, lease: JobLease, meetingId: string, facts: AudioFacts, to: 'transcribing' | 'summarizing' = 'transcribing'): Promise<void> {
  await transaction(pool, async (c) => {
    await guard(c, lease, 'importing', to, { audio_duration_ms: facts.durationMs });
    await setMeetingTimes(c, meetingId, facts);
  });
}

async function setSpeakers(c: PoolClient, meetingId: string, speakers: string[]): Promise<void> {
  if (speakers.length > 0) await c.query('UPDATE meetings SET speakers = $1::jsonb, updated_at = $2 WHERE id = $3', [JSON.stringify(speakers), new Date().toISOString(), meetingId]);
}

export async function storeFileTranscript(pool: Pool, lease: JobLease, meetingId: string, facts: AudioFacts, batch: TranscriptBatch, speakers: string[]): Promise<number> {
  return transaction(pool, async (c) => {
    await guard(c, lease, 'importing', 'summarizing', { audio_duration_ms: facts.durationMs });
    await setMeetingTimes(c, meetingId, facts);
    const count = await appendTranscriptWords(c, meetingId, batch.words, { source: 'import', language: batch.language, timing: batch.timing });
    await setSpeakers(c, meetingId, speakers);
    return count;
  });
}

const progress = (batch: TranscriptBatch) => (batch.progress ? { chunks_done: batch.progress.chunksDone, chunks_total: batch.progress.chunksTotal } : {});

export async function appendJobWords(pool: Pool, lease: JobLease, meetingId: string, batch: TranscriptBatch): Promise<number> {
  return transaction(pool, async (c) => {
    await guard(c, lease, 'transcribing', 'transcribing', progress(batch));
    return appendTranscriptWords(c, meetingId, batch.words, { source: 'import', language: batch.language, timing: batch.timing });
  });
}

export async function startChunkProgress(pool: Pool, lease: JobLease, chunksTotal: number): Promise<void> {
  await guard(pool, lease, 'transcribing', 'transcribing', { chunks_done: 0, chunks_total: chunksTotal });
}

export async function finishTranscription(pool: Pool, lease: JobLease, meetingId: string, batch: TranscriptBatch, speakers: string[]): Promise<number> {
  return transaction(pool, async (c) => {
    await guard(c, lease, 'transcribing', 'summarizing', progress(batch));
    const count = await appendTranscriptWords(c, meetingId, batch.words, { source: 'import', language: batch.language, timing: batch.timing });
    await setSpeakers(c, meetingId, speakers);
    return count;
  });
}

/** summarizing -> done, with the summary and action items in the same transaction; the stored recording is dropped (unless lease.keepRecording). */
export async function completeJob(pool: Pool, lease: JobLease, meetingId: string, outcome: JobOutcome): Promise<void> {
  await transaction(pool, async (c) => {
    await guard(c, lease, 'summarizing', 'done', { summary_status: outcome.summaryStatus, error: outcome.note ?? null });
    if (lease.keepRecording !== true) await c.query('DELETE FROM recording_chunks WHERE job_id = $1', [lease.jobId]);
    if (outcome.summary === undefined) return;
    const now = new Date().toISOString();
    await c.query(
      "INSERT INTO summaries (id, meeting_id, title, content, position, source, created_at, updated_at) SELECT $1, $2, 'Summary', $3, coalesce(max(position) + 1, 0), 'llm', $4, $4 FROM summaries WHERE meeting_id = $2",
      [newId('summary'), meetingId, outcome.summary.markdown, now],
    );
    const items = outcome.summary.actionItems;
    if (items.length === 0) return;
    await c.query(
      `INSERT INTO action_items (id, meeting_id, text, assignee, due_date, done, position, source, created_at)
       SELECT i.id, $1, i.text, i.assignee, i.due_date, false, base.p + i.n - 1, 'llm', $2
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS i(id, text, assignee, due_date, n),
              (SELECT coalesce(max(position) + 1, 0) AS p FROM action_items WHERE meeting_id = $1) base`,
      [meetingId, now, items.map(() => newId('actionItem')), items.map((i) => i.text), items.map((i) => i.assignee), items.map((i) => i.dueDate)],
    );
  });
}

const FAIL_SET = `status = 'failed', lease_expires_at = NULL,
              summary_status = CASE summary_status WHEN 'pending' THEN 'failed' ELSE summary_status END`;

/** Any active state -> failed; the stored recording is dropped (unless lease.keepRecording). False when the job was no longer ours. */
export async function failJob(pool: Pool, lease: JobLease, error: string, now?: number): Promise<boolean> {
  return transaction(pool, async (c) => {
    const n = await changes(
      c,
      `UPDATE recording_imports SET ${FAIL_SET}, error = $3, updated_at = ${NOW('$4')}, finished_at = ${NOW('$4')}
        WHERE id = $1 AND worker_id = $2 AND status IN ${ACTIVE_SQL} AND lease_expires_at > ${NOW('$4')}`,
      [lease.jobId, lease.workerId, error, at(now)],
    );
    if (n === 1 && lease.keepRecording !== true) await c.query('DELETE FROM recording_chunks WHERE job_id = $1', [lease.jobId]);
    return n === 1;
  });
}

/**
 * Writes down jobs whose lease expired (their worker died) as failed/interrupted; their stored
 * recordings are dropped unless the database's recordings.keep says to keep them (the worker that ran
 * the job is gone, and with it its environment: the database's setting decides).
 */
export async function sweepExpiredLeases(pool: Pool, now?: number): Promise<string[]> {
  const expired = await rows<{ id: string; status: ActiveStatus }>(pool, `SELECT id, status FROM recording_imports WHERE status IN ${ACTIVE_SQL} AND lease_expires_at <= ${NOW('$1')}`, [at(now)]);
  if (expired.length === 0) return [];
  return transaction(pool, async (c) => {
    const swept: string[] = [];
    for (const job of expired) {
      const n = await changes(
        c,
        `UPDATE recording_imports SET ${FAIL_SET}, error = $3, updated_at = ${NOW('$4')}, finished_at = lease_expires_at
          WHERE id = $1 AND status = $2 AND lease_expires_at <= ${NOW('$4')}`,
        [job.id, job.status, interruptedError(job.status), at(now)],
      );
      if (n === 1) {
        swept.push(job.id);
        await c.query("DELETE FROM recording_chunks WHERE job_id = $1 AND NOT EXISTS (SELECT 1 FROM settings WHERE key = 'recordings.keep' AND value = 'true')", [job.id]);
      }
    }
    return swept;
  });
}

export async function interruptJob(pool: Pool, lease: JobLease, stage: string, cause: ShutdownCause, now?: number): Promise<boolean> {
  return failJob(pool, lease, interruptedError(stage, cause), now);
}

export const newWorkerId = (): string => newId('worker');
