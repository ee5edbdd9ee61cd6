/** A job failed for a reason we can state to the person: the message goes into the job's `error` as is. */
export class JobFailure extends Error {
  override readonly name = 'JobFailure';
}

/** The worker is stopping and the grace period is over (or a second signal came). */
export class ShutdownError extends Error {
  override readonly name = 'ShutdownError';
  constructor(readonly why: string) {
    super(why);
  }
}
