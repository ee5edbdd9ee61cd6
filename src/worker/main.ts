import type { Dispatcher } from 'undici';
import { openDatabase } from '../db/open.js';
import { markWorkerStopped, newWorkerId, registerWorker } from '../db/queries/jobs.js';
import { readSettings } from '../db/queries/settings.js';
import { loadConfig, type ConfigKey } from '../config.js';
import { createDispatcher, proxySettings } from './clients/http.js';
import { displayUrl } from '../text/url.js';
import type { Logger } from '../log.js';
import { packageVersion } from '../package.js';
import { startLoop } from './loop.js';
import { startFolderWatcher } from './watch.js';
import { readTuning } from './tuning.js';

// syntheo-worker: opens (or creates) the database, registers itself, runs the loop until SIGTERM or
// SIGINT, then gives in-flight imports a grace period and says it stopped. A second signal ends the
// grace period at once.

export interface RunWorkerOptions {
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
  const log = opts.logger;
  const tuning = readTuning(env, opts.graceMs !== undefined ? { graceMs: opts.graceMs } : {});
  const flags: Partial<Record<ConfigKey, string>> = opts.concurrency !== undefined ? { 'worker.concurrency': String(opts.concurrency) } : {};
  const db = openDatabase(opts.dbPath, { create: true });
  const workerId = newWorkerId();
  let registered = false;
  let http: Dispatcher | null = null;
  try {
    // Fails fast on an invalid setting; each job reads the settings again when it starts.
    const config = loadConfig(readSettings(db.sqlite), env, flags);
    if (config.transcription.url === null) log.warn('transcription.url is not set: imports will fail until it is (`syntheo config set transcription.url URL`)');
    if (config.llm.model === null) log.info('llm.model is not set: summaries will be skipped (skipped_no_model)');
    registerWorker(db.sqlite, { id: workerId, concurrency: config.worker.concurrency, version: packageVersion() });
    registered = true;
    log.info({ workerId, db: db.path, concurrency: config.worker.concurrency, leaseMs: tuning.leaseMs, graceMs: tuning.graceMs }, 'worker started');

    const proxy = proxySettings(env);
    if (proxy.http !== undefined || proxy.https !== undefined)
      log.info({ httpProxy: proxy.http && displayUrl(proxy.http), httpsProxy: proxy.https && displayUrl(proxy.https), noProxy: proxy.noProxy }, 'requests go through a proxy');
    http = createDispatcher({ env });
    const loop = startLoop({ sqlite: db.sqlite, workerId, tuning, env, flags, logger: log, concurrency: config.worker.concurrency, http });
    // Reads imports.watch at every scan: `syntheo config set imports.watch` applies without a restart.
    const watcher = startFolderWatcher({ sqlite: db.sqlite, env, logger: log, stableMs: tuning.watchStableMs, rescanMs: tuning.watchRescanMs });
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
    log.info({ why, running: loop.running() }, 'worker stopping');
    await watcher.stop();
    // A second signal: no more waiting.
    const hurry = () => void loop.stop(0, why);
    process.once('SIGTERM', hurry);
    process.once('SIGINT', hurry);
    try {
      await loop.stop(tuning.graceMs, why);
    } finally {
      process.off('SIGTERM', hurry);
      process.off('SIGINT', hurry);
    }
  } finally {
    // Every job has ended by now: nothing left in flight to wait for.
    await http?.destroy().catch(() => {});
    if (registered) {
      try {
        markWorkerStopped(db.sqlite, workerId);
      } catch (error) {
        log.warn({ err: error }, 'could not record the worker as stopped');
      }
    }
    db.close();
  }
  log.info({ workerId }, 'worker stopped');
}
