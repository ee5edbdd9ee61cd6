/** The wording of an interrupted job: a leaf module (imports nothing) shared by jobs.ts and imports.ts. */

/** Why a graceful stop interrupted a job. */
export interface ShutdownCause {
  /** "SIGTERM", "SIGINT" ... */
  signal: string;
  graceMs: number;
}

/** The one wording of an interruption, written by the sweep and by a stopping worker, and derived by readers. */
export function interruptedError(stage: string, shutdown?: ShutdownCause): string {
  const during = stage === 'importing' ? 'reading the recording' : stage;
  const what =
    shutdown === undefined
      ? `the worker processing this import stopped while ${during} (it was killed, crashed, or lost its lease)`
      : `the worker was stopped (${shutdown.signal}) while ${during}, and this import did not finish within the ${shutdown.graceMs >= 1000 ? `${Math.round(shutdown.graceMs / 1000)} s` : `${shutdown.graceMs} ms`} grace period`;
  return `Interrupted: ${what}. The meeting and the transcript stored so far are kept; the job will not restart by itself. To process the recording again, import it again with a new request_key.`;
}
