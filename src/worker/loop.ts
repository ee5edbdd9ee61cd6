import { setTimeout as sleep } from 'node:timers/promises';
import PQueue from 'p-queue';
import { MAX_WAL_FRAMES, checkpointIfLarge } from '../db/checkpoint.js';
import { removeStaleChunkDirs } from './chunking/stale-dirs.js';
import { LeaseLostError, claimNextJob, hasQueuedJob, heartbeatWorker, interruptJob, renewLease, sweepExpiredLeases } from '../db/queries/jobs.js';
import { ShutdownError } from './errors.js';
import { runJob, type JobEnvironment, type RunningJob } from './job.js';

// Polls for queued jobs and claims one whenever a slot is free (never more than it can start, so
// another worker can take the rest), runs them with p-queue, renews the heartbeat and the leases, and
// sweeps the expired leases of dead workers, and keeps the write-ahead log from growing without bound.

export interface LoopOptions extends JobEnvironment {
  concurrency: number;
}

export interface WorkerLoop {
  /** Stops claiming, lets in-flight jobs run for graceMs, then interrupts the rest. Call again to cut the grace short. */
  stop(graceMs: number, why: string): Promise<void>;
  /** Jobs in flight now. */
  running(): number;
}

export function startLoop(opts: LoopOptions): WorkerLoop {
  const { sqlite, workerId, tuning, logger: log } = opts;
  const queue = new PQueue({ concurrency: opts.concurrency });
  const inFlight = new Map<string, RunningJob>();
  let stopping = false;
  let wake: (() => void) | null = null;
  const graceOver = new AbortController();

  const nudge = (): void => {
    wake?.();
  };

  const tick = (): void => {
    const now = Date.now();
    try {
      heartbeatWorker(sqlite, workerId, now);
      for (const job of inFlight.values()) {
        if (job.abort.signal.aborted) continue;
        if (!renewLease(sqlite, job.lease, now)) job.abort.abort(new LeaseLostError(job.job.id));
      }
    } catch (error) {
      // A busy or failing database: the leases have many renewals of slack; try again next tick.
      log.warn({ err: error }, 'could not renew the heartbeat or a lease');
    }
  };

  const sweep = (): void => {
    try {
      const swept = sweepExpiredLeases(sqlite);
      if (swept.length > 0) log.warn({ jobs: swept }, 'imports of a worker that stopped were marked interrupted');
    } catch (error) {
      log.warn({ err: error }, 'could not sweep expired leases');
    }
    // The worker is the one process that always runs: it keeps the WAL from growing without bound.
    try {
      const checkpoint = checkpointIfLarge(sqlite);
      if (checkpoint.frames >= MAX_WAL_FRAMES) log.info(checkpoint, 'write-ahead log checkpointed and truncated');
    } catch (error) {
      log.warn({ err: error }, 'could not checkpoint the write-ahead log');
    }
  };

  const fill = (): void => {
    while (!stopping && queue.pending + queue.size < opts.concurrency && hasQueuedJob(sqlite)) {
      const job = claimNextJob(sqlite, workerId, tuning.leaseMs);
      if (job === null) return; // another worker was faster
      const running: RunningJob = { job, lease: { jobId: job.id, workerId, leaseMs: tuning.leaseMs }, abort: new AbortController(), stage: 'importing' };
      inFlight.set(job.id, running);
      log.info({ jobId: job.id, file: job.filePath }, 'import claimed');
      void queue
        .add(() => runJob(opts, running))
        .catch((error: unknown) => log.error({ err: error, jobId: job.id }, 'import crashed'))
        .finally(() => {
          inFlight.delete(job.id);
          nudge();
        });
    }
  };

  const poll = async (): Promise<void> => {
    while (!stopping) {
      try {
        fill();
      } catch (error) {
        log.error({ err: error }, 'could not claim a job');
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, tuning.pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  };

  sweep();
  try {
    const removed = removeStaleChunkDirs(sqlite);
    if (removed.length > 0) log.info({ removed }, 'removed the chunk folders of interrupted imports');
  } catch (error) {
    log.warn({ err: error }, 'could not remove stale chunk folders');
  }
  tick();
  const ticker = setInterval(tick, tuning.renewMs);
  const sweeper = setInterval(sweep, tuning.sweepMs);
  const polling = poll();

  /** Resolves when the queue is idle or after ms (sooner if `cut` aborts), leaving no timer behind. */
  const idleWithin = async (ms: number, cut?: AbortSignal): Promise<void> => {
    const timer = new AbortController();
    const signal = cut === undefined ? timer.signal : AbortSignal.any([timer.signal, cut]);
    try {
      await Promise.race([queue.onIdle(), sleep(ms, undefined, { signal }).catch(() => {})]);
    } finally {
      timer.abort();
    }
  };

  let stopped: Promise<void> | null = null;
  return {
    running: () => inFlight.size,
    stop(graceMs, why) {
      if (stopped !== null) {
        graceOver.abort();
        return stopped;
      }
      stopping = true;
      nudge();
      stopped = (async () => {
        await polling;
        if (inFlight.size > 0) {
          log.info({ jobs: inFlight.size, graceMs }, 'stopping: waiting for imports in flight');
          await idleWithin(graceMs, graceOver.signal);
        }
        if (inFlight.size > 0) {
          const cause = { signal: why, graceMs };
          for (const job of inFlight.values()) job.abort.abort(new ShutdownError(cause));
          // Aborted jobs write their interruption and unwind at once; a job stuck elsewhere is written down here.
          await idleWithin(5_000);
          for (const job of inFlight.values()) interruptJob(sqlite, job.lease, job.stage, cause);
        }
        clearInterval(ticker);
        clearInterval(sweeper);
      })();
      return stopped;
    },
  };
}
