import { openStore } from '../db/engine.js';
import { logSchemaNotices } from '../db/model/schema-notice.js';
import type { ConfigKey } from '../config.js';
import type { Logger } from '../log.js';
import { startWorker } from './start.js';
import { readTuning } from './tuning.js';

// syntheo-worker: opens (or creates) the database, starts a worker on it (start.ts), runs until SIGTERM
// or SIGINT, then gives in-flight imports a grace period and says it stopped. A second signal ends the
// grace period at once. It returns (and the process exits) only once every write of the stop is done.

export interface RunWorkerOptions {
  /** The database: an SQLite file path (or, once that engine is in, a PostgreSQL URL). */
  dbPath: string;
  logger: Logger;
  /** --concurrency: overrides worker.concurrency (validated like it). */
  concurrency?: number | string;
  /** --grace-seconds, in ms: overrides SYNTHEO_WORKER_GRACE_MS. */
  graceMs?: number;
  env?: NodeJS.ProcessEnv;
  /** Stop without a signal (embedding, tests in-process). */
  stop?: AbortSignal;
}

export async function runWorker(opts: RunWorkerOptions): Promise<void> {
  const env = opts.env ?? process.env;
  // Before the database is opened (or created): a bad knob is reported with nothing done.
  const tuning = readTuning(env, opts.graceMs !== undefined ? { graceMs: opts.graceMs } : {});
  const flags: Partial<Record<ConfigKey, string>> = opts.concurrency !== undefined ? { 'worker.concurrency': String(opts.concurrency) } : {};
  const store = await openStore(opts.dbPath, { create: true, onSchema: logSchemaNotices(opts.logger) });
  try {
    const worker = await startWorker({ store, logger: opts.logger, env, flags, tuning });
    const onSignal = (signal: NodeJS.Signals) => stopWith(signal);
    let stopWith: (why: string) => void = () => {};
    const why = await new Promise<string>((resolve) => {
      stopWith = resolve;
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
      opts.stop?.addEventListener('abort', () => resolve('stop requested'), { once: true });
      if (opts.stop?.aborted) resolve('stop requested');
    });
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    // A second signal: no more waiting.
    const hurry = () => void worker.stop(why);
    process.once('SIGTERM', hurry);
    process.once('SIGINT', hurry);
    try {
      await worker.stop(why);
    } finally {
      process.off('SIGTERM', hurry);
      process.off('SIGINT', hurry);
    }
  } finally {
    await store.close();
  }
}
