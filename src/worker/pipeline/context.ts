import type { Dispatcher } from 'undici';
import type { ClaimedJob, JobLease, Store } from '../../db/store.js';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import type { WorkerTuning } from '../tuning.js';

/** What every stage gets: the job it works on, the lease that guards its writes, and a way to stop. */
export interface StageContext {
  readonly store: Store;
  readonly job: ClaimedJob;
  readonly lease: JobLease;
  /** Read when the job was claimed: `syntheo config set` applies from the next job on. */
  readonly config: Config;
  readonly tuning: WorkerTuning;
  /** Aborted when the lease is lost or the worker stops after its grace period. */
  readonly signal: AbortSignal;
  /** Carries { jobId, stage }. */
  readonly log: Logger;
  /** The worker's one HTTP dispatcher (connections reused, proxies honoured). */
  readonly http: Dispatcher;
}

/** What stage 2 (transcribing, in one request or in chunks) reports. */
export interface TranscriptionResult {
  words: number;
  /** Chunks transcribed; null when the recording went in one request. */
  chunks: number | null;
}
