import type { Dispatcher } from 'undici';
import type { Store } from '../db/store.js';
import { newId } from '../db/ids.js';
import { loadConfig, type ConfigKey } from '../config.js';
import type { Logger } from '../log.js';
import { packageVersion } from '../package.js';
import { displayUrl } from '../text/url.js';
import { createDispatcher, proxySettings } from './clients/http.js';
import { STOP_WRITES_MS, startLoop, within, type WorkerLoop } from './loop.js';
import { readTuning, type WorkerTuning } from './tuning.js';
import { startFolderWatcher, type FolderWatcher } from './watch.js';

// A worker on a Store it is given: registers itself, claims and runs imports, watches the configured
// folders, until stop(). The caller owns the Store (and closes it after stop()) and the signals:
// `syntheo-worker` (main.ts) and the app, which runs a worker in its own process.

export interface StartWorkerOptions {
  store: Store;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  /** Command-line settings, over the database's and the environment's (--concurrency: worker.concurrency). */
  flags?: Partial<Record<ConfigKey, string>>;
  /** Timing knobs; default: read from `env` (SYNTHEO_WORKER_*). */
  tuning?: WorkerTuning;
}

export interface RunningWorker {
  /** This worker's ID in the workers table. */
  readonly id: string;
  /** Imports in flight now. */
  running(): number;
  /**
   * Stops claiming and watching, lets imports in flight finish within the grace period, writes the rest
   * down as interrupted, records the worker as stopped, and resolves when all of it is written (each
   * wait bounded). A second call ends the grace period at once. The Store stays open.
   */
  stop(why?: string): Promise<void>;
}

export async function startWorker(opts: StartWorkerOptions): Promise<RunningWorker> {
  const { store, logger: log } = opts;
  const env = opts.env ?? process.env;
  const flags = opts.flags ?? {};
  const tuning = opts.tuning ?? readTuning(env);
  // Fails fast on an invalid setting; each job reads the settings again when it starts.
  const config = loadConfig(await store.settings.read(), env, flags);
  if (config.transcription.url === null) log.warn('transcription.url is not set: imports will fail until it is (`syntheo config set transcription.url URL`)');
  if (config.llm.model === null) log.info('llm.model is not set: summaries will be skipped (skipped_no_model)');
  const workerId = newId('worker');
  await store.workers.register({ id: workerId, concurrency: config.worker.concurrency, version: packageVersion() });

  const markStopped = () =>
    within(
      store.workers.markStopped(workerId).catch((error: unknown) => log.warn({ err: error }, 'could not record the worker as stopped')),
      STOP_WRITES_MS,
    );

  let http: Dispatcher | undefined;
  let loop: WorkerLoop | undefined;
  let watcher: FolderWatcher;
  try {
    log.info({ workerId, db: store.location, concurrency: config.worker.concurrency, leaseMs: tuning.leaseMs, graceMs: tuning.graceMs }, 'worker started');
    const proxy = proxySettings(env);
    if (proxy.http !== undefined || proxy.https !== undefined)
      log.info({ httpProxy: proxy.http && displayUrl(proxy.http), httpsProxy: proxy.https && displayUrl(proxy.https), noProxy: proxy.noProxy }, 'requests go through a proxy');
    http = createDispatcher({ env });
    loop = await startLoop({ store, workerId, tuning, env, flags, logger: log, concurrency: config.worker.concurrency, http });
    // Reads imports.watch at every scan: `syntheo config set imports.watch` applies without a restart.
    watcher = startFolderWatcher({ store, env, logger: log, stableMs: tuning.watchStableMs, rescanMs: tuning.watchRescanMs });
  } catch (error) {
    await loop?.stop(0, 'start-up failed');
    await http?.destroy().catch(() => {});
    await markStopped();
    throw error;
  }
  const running = { loop, watcher, http };

  let stopping: Promise<void> | null = null;
  return {
    id: workerId,
    running: () => running.loop.running(),
    stop(why = 'stop requested') {
      if (stopping !== null) {
        // Again: no more waiting (the loop stops with the grace period it was given, cut short now).
        void running.loop.stop(tuning.graceMs, why);
        void running.loop.stop(0, why);
        return stopping;
      }
      log.info({ why, running: running.loop.running() }, 'worker stopping');
      stopping = (async () => {
        try {
          await running.watcher.stop();
          await running.loop.stop(tuning.graceMs, why);
        } finally {
          // Every job has ended (or was written down as interrupted): nothing left in flight to wait for.
          await running.http.destroy().catch(() => {});
          await markStopped();
        }
        log.info({ workerId }, 'worker stopped');
      })();
      return stopping;
    },
  };
}
