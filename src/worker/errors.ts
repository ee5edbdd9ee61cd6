/** A job failed for a reason we can state to the person: the message goes into the job's `error` as is. */
export class JobFailure extends Error {
  override readonly name = 'JobFailure';
}

import type { ShutdownCause } from '../db/queries/jobs.js';

/** The worker is stopping and the grace period is over (or a second signal came). */
export class ShutdownError extends Error {
  override readonly name = 'ShutdownError';
  constructor(readonly shutdown: ShutdownCause) {
    super(`stopped by ${shutdown.signal} after a ${shutdown.graceMs} ms grace period`);
  }
}
