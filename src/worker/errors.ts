import type { ShutdownCause } from '../db/store.js';
import type { Config } from '../config.js';
import { redact } from './clients/http.js';

/** A job failed for a reason we can state to the person: the message goes into the job's `error` as is. */
export class JobFailure extends Error {
  override readonly name = 'JobFailure';
}

/** The worker is stopping and the grace period is over (or a second signal came). */
export class ShutdownError extends Error {
  override readonly name = 'ShutdownError';
  constructor(readonly shutdown: ShutdownCause) {
    super(`stopped by ${shutdown.signal} after a ${shutdown.graceMs} ms grace period`);
  }
}

/** A message that is stored or shown (a job's error, a summary's failure note), without the configured API keys. */
export function redactSecrets(message: string, config: Config | undefined): string {
  if (config === undefined) return message;
  return redact(redact(message, config.transcription.apiKey ?? undefined), config.llm.apiKey ?? undefined);
}
