import { setTimeout as sleep } from 'node:timers/promises';
import { LeaseLostError } from '../db/model/jobs.js';
import type { ProcessingStatus } from '../db/schema/enums.js';
import type { JobLease, Store, TranscriptBatch } from '../db/store.js';
import { StorageError } from '../errors.js';
import type { Logger } from '../log.js';

// A job's writes wait out a database that is briefly away (PostgreSQL restarting, a failover): the
// transcript just paid for is stored once the server is back, instead of failing the job. The wait is
// bounded by the lease: past it the job is no longer ours (another worker's sweep writes it down).

const FIRST_DELAY_MS = 100;
const MAX_DELAY_MS = 2_000;

export const isTransient = (error: unknown): boolean => error instanceof StorageError && error.transient;

export interface Patience {
  /** How long a call may keep retrying, from its first failure. */
  readonly forMs: number;
  readonly signal: AbortSignal;
  readonly log: Logger;
}

/** Runs `attempt` again while it fails with a transient storage error, for at most `forMs` (capped backoff). */
export async function patiently<T>(what: string, attempt: (retry: number) => Promise<T>, p: Patience): Promise<T> {
  let delay = FIRST_DELAY_MS;
  let since: number | undefined;
  for (let retry = 0; ; retry++) {
    try {
      const result = await attempt(retry);
      if (retry > 0) p.log.info({ what, retries: retry }, 'the database is back: write done');
      return result;
    } catch (error) {
      if (!isTransient(error) || p.signal.aborted) throw error;
      since ??= Date.now();
      if (Date.now() - since + delay > p.forMs) throw error;
      if (retry === 0) p.log.warn({ what, err: error }, 'the database is out of reach: retrying');
      await sleep(delay, undefined, { signal: p.signal }).catch(() => {
        throw error;
      });
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    }
  }
}

// The status each state change leaves the job in: a retry refused for a lost lease checks whether the
// attempt cut off by the outage had committed after all (its COMMIT reached the server, the answer did not).
const LEAVES: Partial<Record<keyof Store['jobs'], readonly ProcessingStatus[]>> = {
  recordAudioFacts: ['transcribing', 'summarizing'],
  storeFileTranscript: ['summarizing'],
  finishTranscription: ['summarizing'],
  complete: ['done'],
};
const PATIENT = new Set<keyof Store['jobs']>(['recordAudioFacts', 'storeFileTranscript', 'appendWords', 'startChunkProgress', 'finishTranscription', 'complete', 'fail', 'interrupt', 'recording']);

/** The Store as one job sees it: its writes are patient (see above); everything else is the Store itself. */
export function patientStore(store: Store, lease: JobLease, p: Patience): Store {
  const jobs = new Proxy(store.jobs, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function' || !PATIENT.has(key as keyof Store['jobs'])) return value;
      const name = key as keyof Store['jobs'];
      return (...args: unknown[]) =>
        patiently(
          name,
          async (retry) => {
            // A chunk's words carry the progress they leave behind, in the same transaction: a retry finding
            // that progress already stored means the cut-off attempt committed (adding the words again would
            // store them twice).
            if (retry > 0 && name === 'appendWords') {
              const batch = args[2] as TranscriptBatch;
              const now = await store.imports.get(lease.jobId);
              if (batch.progress !== undefined && now.processing_status === 'transcribing' && (now.progress?.chunks_done ?? -1) >= batch.progress.chunksDone)
                return store.transcripts.wordCount(now.meeting_id);
            }
            try {
              return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            } catch (error) {
              const leaves = LEAVES[name];
              if (retry > 0 && error instanceof LeaseLostError && leaves !== undefined) {
                const now = await store.imports.get(lease.jobId);
                // Those two answer with the transcript's word count: read it back.
                if (leaves.includes(now.processing_status)) return name === 'storeFileTranscript' || name === 'finishTranscription' ? store.transcripts.wordCount(now.meeting_id) : undefined;
              }
              throw error;
            }
          },
          p,
        );
    },
  });
  return new Proxy(store, { get: (target, key, receiver) => (key === 'jobs' ? jobs : Reflect.get(target, key, receiver)) });
}
