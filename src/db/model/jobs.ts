// Pure pieces of the job queue shared by every engine and by the worker (no SQL here).

/** The job was taken from us (lease expired and swept, or another state was written): stop working on it. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor(readonly jobId: string) {
    super(`The lease on import ${jobId} was lost (it expired, or the job was marked interrupted); this worker stopped working on it.`);
  }
}
