import { spawn } from 'node:child_process';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { isPostgresUrl, openStore } from '../db/engine.js';
import { logSchemaNotices } from '../db/model/schema-notice.js';
import { dataDir } from '../platform/paths.js';
import { UnavailableError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Store } from '../db/store.js';
import type { RunningWorker } from '../worker/start.js';
import { mountRoutes } from './routes.js';
import { startServer, type RunningServer } from './server.js';

// `syntheo app`: the web app on 127.0.0.1 and, unless --no-worker, the import worker in the same
// process. SIGINT/SIGTERM close the server and stop the worker (which gives imports in flight their
// grace period); a second signal hurries the worker.

export const DEFAULT_PORT = 7717;

export interface RunAppOptions {
  dbPath: string;
  host: string;
  port: number;
  open: boolean;
  worker: boolean;
  logger: Logger;
  /** The first line goes here (stdout). */
  say(line: string): void;
  env?: NodeJS.ProcessEnv;
}

/** Largest upload (bytes): SYNTHEO_APP_MAX_UPLOAD_MB, default 4096 (a long meeting in WAV). */
export function maxUploadBytes(env: NodeJS.ProcessEnv): number {
  const mb = Number(env.SYNTHEO_APP_MAX_UPLOAD_MB);
  return (Number.isInteger(mb) && mb > 0 ? mb : 4096) * 1024 * 1024;
}

/** Uploads live beside an SQLite file; with a PostgreSQL URL, in this machine's Syntheo data folder. */
function uploadsHome(location: string, env: NodeJS.ProcessEnv): string {
  return isPostgresUrl(location) ? dataDir({ platform: process.platform, env, home: homedir() }) : dirname(location);
}

export async function runApp(opts: RunAppOptions): Promise<void> {
  const log = opts.logger;
  const env = opts.env ?? process.env;
  const store = await openStore(opts.dbPath, { create: true, warm: true, onSchema: logSchemaNotices(log) });
  const uploads = { dir: join(uploadsHome(opts.dbPath, env), 'uploads'), maxBytes: maxUploadBytes(env), pollMs: Number(env.SYNTHEO_APP_POLL_MS) || 500 };
  let running: RunningServer;
  try {
    running = await startServer({ host: opts.host, port: opts.port, logger: log, mount: mountRoutes({ store, logger: log, uploads, env }) });
  } catch (error) {
    await store.close();
    const e = error as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') throw new UnavailableError(`Port ${opts.port} on ${opts.host} is in use (is \`syntheo app\` already running?). Choose another with --port N, or --port 0 for any free port.`);
    if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND') throw new UnavailableError(`Cannot listen on ${opts.host}: it is not an address of this machine.`);
    throw error;
  }
  opts.say(`Syntheo is open at ${running.access.openUrl}`);
  log.info({ url: running.access.baseUrl, worker: opts.worker }, 'app started');

  // The worker shares the app's Store (one connection, one set of signal handlers: these).
  const worker = opts.worker ? await startImportWorker(store, opts) : null;
  if (opts.open) openBrowser(running.access.openUrl, log);

  const why = await new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  log.info({ why }, 'app stopping');
  // A second signal ends the worker's grace period at once.
  const hurry = () => void worker?.stop(why);
  process.once('SIGTERM', hurry);
  process.once('SIGINT', hurry);
  await running.close();
  await worker?.stop(why);
  await store.close();
  log.info('app stopped');
}

/** The worker's own failures (a bad setting) are logged: the app stays open so the person can fix them. */
async function startImportWorker(store: Store, opts: RunAppOptions): Promise<RunningWorker | null> {
  const { startWorker } = await import('../worker/start.js');
  try {
    return await startWorker({ store, logger: opts.logger.child({ part: 'worker' }), env: opts.env });
  } catch (error) {
    opts.logger.error({ err: error }, 'the import worker did not start; imports wait until it runs (fix the setting and restart `syntheo app`, or run `syntheo-worker`)');
    return null;
  }
}

function openBrowser(url: string, log: Logger): void {
  const [command, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]] : ['xdg-open', [url]];
  try {
    const child = spawn(command, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', () => log.info('could not open a browser: open the printed link yourself'));
    child.unref();
  } catch {
    log.info('could not open a browser: open the printed link yourself');
  }
}
