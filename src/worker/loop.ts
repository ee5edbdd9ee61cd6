import { setTimeout as sleep } from 'node:timers/promises';
import PQueue from 'p-queue';
import { LeaseLostError } from '../db/model/jobs.js';
import { removeStaleChunkDirs } from './chunking/stale-dirs.js';
import { ShutdownError } from './errors.js';
import { runJob, type JobEnvironment, type RunningJob } from './job.js';
import { isTransient } from './patience.js';

// Polls for queued jobs (and wakes at once when the Store announces one) and claims one whenever a slot is free (never more than it can start, so
// another worker can take the rest), runs them with p-queue, renews the heartbeat and the leases, and
// sweeps the expired leases of dead workers, merges the full-text indexes a bounded step at a time, and keeps the
// write-ahead log from growing without bound.

export interface LoopOptions extends JobEnvironment {
  concurrency: number;
}

export interface WorkerLoop {
  /**
   * Stops claiming, lets in-flight jobs run for graceMs, then interrupts the rest; resolves once their
   * interruption is written (or after a bounded wait). Call again to cut the grace short.
   */
  stop(graceMs: number, why: string): Promise<void>;
  /** Jobs in flight now. */
  running(): number;
}

/** The longest wait for the interruptions of a stopping worker to be written, and for a tick or sweep to end. */
export const STOP_WRITES_MS = 5_000;

/**
 * While the upkeep says work is left (the search and list bitmaps' first build after an upgrade or a large import: ~150
 * rounds of ~50 ms each for the list bitmaps at 100k meetings), it runs again after `ratio` times its own duration, at
 * least `leastMs`, rather than at the next sweep (up to 15 s apart: that build took ~35 minutes of a running worker): a
 * fifth of a core at most.
 */
export const UPKEEP_PAUSE = { ratio: 4, leastMs: 50 };

/** Runs `task` unless the previous run is still going (a slow database): one at a time, never piling up. */
function serial(task: () => Promise<void>): { run(): Promise<void>; idle(): Promise<void> } {
  let current: Promise<void> | null = null;
  return {
    run() {
      current ??= task().finally(() => {
        current = null;
      });
      return current;
    },
    idle: async () => void (await current),
  };
}

/** Resolves when `work` settles or after ms, whichever comes first, leaving no timer behind. */
export async function within(work: Promise<unknown>, ms: number): Promise<void> {
  const timer = new AbortController();
  try {
    await Promise.race([work.then(() => {}, () => {}), sleep(ms, undefined, { signal: timer.signal }).catch(() => {})]);
  } finally {
    timer.abort();
  }
}

/** Starts the loop once the first sweep (and the removal of stale chunk folders after it) and heartbeat are written. */
export async function startLoop(opts: LoopOptions): Promise<WorkerLoop> {
  const { store, workerId, tuning, logger: log } = opts;
  const queue = new PQueue({ concurrency: opts.concurrency });
  const inFlight = new Map<string, RunningJob>();
  let stopping = false;
  let wake: (() => void) | null = null;
  /** A nudge came while the loop was claiming, not waiting: look again before waiting. */
  let nudged = false;
  /** The Store announced a queued job (PostgreSQL NOTIFY): claim without looking first. */
  let announced = false;
  const graceOver = new AbortController();

  const nudge = (): void => {
    if (wake) wake();
    else nudged = true;
  };

  const tick = serial(async () => {
    try {
      await store.workers.heartbeat(workerId);
      for (const job of [...inFlight.values()]) {
        if (job.abort.signal.aborted) continue;
        if (!(await store.jobs.renewLease(job.lease))) job.abort.abort(new LeaseLostError(job.job.id));
      }
    } catch (error) {
      // A busy or failing database: the leases have many renewals of slack; try again next tick.
      log.warn({ err: error }, 'could not renew the heartbeat or a lease');
    }
  });

  // The worker is the one process that always runs: it merges the full-text indexes that writes left in pieces, a
  // bounded step at a time, and keeps the WAL from growing without bound (SQLite); it builds the search and list
  // bitmaps in short rounds (both engines). At each sweep, and again soon while a round says work is left.
  let upkeepAgain: NodeJS.Timeout | undefined;
  const upkeep = serial(async () => {
    const started = performance.now();
    try {
      const round = await store.admin.maintain();
      if (round && round.merged.length > 0) log.debug({ merged: round.merged }, 'full-text indexes merged a step');
      if (round?.bits && (round.bits.built.length > 0 || round.bits.lists > 0 || round.bits.cleaned > 0 || round.bits.added > 0)) log.debug({ bits: round.bits }, 'search bitmaps kept a step');
      if (round?.meetingBits && (round.meetingBits.began || round.meetingBits.listed + round.meetingBits.numbered + round.meetingBits.built + round.meetingBits.dropped > 0))
        log.debug({ meetingBits: round.meetingBits }, 'list bitmaps kept a step');
      if (round?.bitmaps && round.bitmaps.units > 0) log.debug({ bitmaps: round.bitmaps }, 'search bitmaps built a step');
      if (round?.truncated) log.info({ frames: round.frames, truncated: round.truncated }, 'write-ahead log checkpointed and truncated');
      if (!stopping && (round?.bits?.more || round?.meetingBits?.more || round?.bitmaps?.more)) {
        clearTimeout(upkeepAgain);
        upkeepAgain = setTimeout(() => void upkeep.run(), Math.max(UPKEEP_PAUSE.leastMs, UPKEEP_PAUSE.ratio * (performance.now() - started)));
      }
    } catch (error) {
      log.warn({ err: error }, 'could not merge the full-text indexes, checkpoint the write-ahead log or build the search bitmaps');
    }
  });

  const sweep = serial(async () => {
    try {
      const swept = await store.jobs.sweepExpiredLeases();
      if (swept.length > 0) log.warn({ jobs: swept }, 'imports of a worker that stopped were marked interrupted');
    } catch (error) {
      log.warn({ err: error }, 'could not sweep expired leases');
    }
    await upkeep.run();
  });

  const fill = async (): Promise<void> => {
    // A NOTIFY wakes every idle worker on every machine, and all but one find nothing. Woken so, a
    // worker claims at once: a claim that finds nothing is one round trip (an UPDATE of no row), and
    // looking first would make it two. Measured with 8 idle workers (bench/queue-herd.ts): 12-14 -> 8
    // statements per queued job. Otherwise (polling, a slot freed) it looks first: on SQLite a claim
    // takes the write lock, a look does not.
    let claimFirst = announced;
    announced = false;
    while (!stopping && queue.pending + queue.size < opts.concurrency && (claimFirst || (await store.jobs.hasQueued()))) {
      claimFirst = false;
      if (stopping) return;
      const job = await store.jobs.claimNext(workerId, tuning.leaseMs);
      if (job === null) return; // another worker was faster
      // Claimed: ours to run even if a stop came meanwhile (the grace period applies to it).
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
    // A database out of reach (PostgreSQL restarting) is said once, not on every poll, and so is its return.
    let away = false;
    while (!stopping) {
      nudged = false;
      try {
        await fill();
        if (away) log.info('the database is back: claiming jobs again');
        away = false;
      } catch (error) {
        if (!isTransient(error)) log.error({ err: error }, 'could not claim a job');
        else if (!away) log.warn({ err: error }, 'the database is out of reach: claims resume when it is back');
        away = isTransient(error);
      }
      if (stopping) break;
      if (nudged) continue;
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

  await sweep.run();
  try {
    const removed = await removeStaleChunkDirs(store);
    if (removed.length > 0) log.info({ removed }, 'removed the chunk folders of interrupted imports');
  } catch (error) {
    log.warn({ err: error }, 'could not remove stale chunk folders');
  }
  await tick.run();
  // A job queued by any process wakes the idle loop at once when the Store can tell (PostgreSQL: LISTEN/NOTIFY).
  let unlisten: (() => Promise<void>) | undefined;
  if (store.jobs.onQueued) {
    try {
      unlisten = await store.jobs.onQueued(() => {
        announced = true;
        nudge();
      });
    } catch (error) {
      log.warn({ err: error }, 'cannot listen for queued jobs: polling only');
    }
  }
  const ticker = setInterval(() => void tick.run(), tuning.renewMs);
  const sweeper = setInterval(() => void sweep.run(), tuning.sweepMs);
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
        // A claim under way ends first (bounded: an unreachable database must not hold the stop forever).
        await within(polling, STOP_WRITES_MS);
        if (inFlight.size > 0) {
          log.info({ jobs: inFlight.size, graceMs }, 'stopping: waiting for imports in flight');
          await idleWithin(graceMs, graceOver.signal);
        }
        if (inFlight.size > 0) {
          const cause = { signal: why, graceMs };
          for (const job of inFlight.values()) job.abort.abort(new ShutdownError(cause));
          // Aborted jobs write their interruption and unwind at once; a job stuck elsewhere is written down here.
          await idleWithin(STOP_WRITES_MS);
          const stuck = [...inFlight.values()].map((job) =>
            store.jobs.interrupt(job.lease, job.stage, cause).catch((error: unknown) => log.warn({ err: error, jobId: job.job.id }, 'could not record the import as interrupted')),
          );
          if (stuck.length > 0) await within(Promise.allSettled(stuck), STOP_WRITES_MS);
        }
        clearInterval(ticker);
        clearInterval(sweeper);
        clearTimeout(upkeepAgain);
        if (unlisten) await within(unlisten(), STOP_WRITES_MS);
        // A renewal or sweep under way finishes before the caller goes on (and closes the Store).
        await within(Promise.all([tick.idle(), sweep.idle(), upkeep.idle()]), STOP_WRITES_MS);
      })();
      return stopped;
    },
  };
}
