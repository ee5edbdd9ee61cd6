import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sqlite } from '../../src/db/open.js';
import { getImportOrThrow } from '../../src/db/queries/imports.js';
import type { RecordingImport } from '../../src/db/queries/types.js';
import { isPostgresUrl } from '../../src/db/model/postgres.js';
import type { Store } from '../../src/db/store.js';
import { TEST_ENGINE, workerLocation } from './engine.js';

// A real `syntheo worker` process (the built CLI, as users run it), its log lines, and polling helpers.

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');

/** Short timings for tests: the tuning knobs documented in the README. */
export const FAST_ENV: Record<string, string> = {
  SYNTHEO_WORKER_POLL_MS: '50',
  SYNTHEO_WORKER_LEASE_MS: '4000',
  SYNTHEO_WORKER_GRACE_MS: '2000',
  SYNTHEO_HTTP_RETRIES: '2',
  SYNTHEO_HTTP_RETRY_BASE_MS: '50',
  SYNTHEO_HTTP_RETRY_MAX_MS: '200',
};

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export interface WorkerProcess {
  readonly proc: ChildProcess;
  readonly pid: number;
  readonly logs: LogLine[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitForLog(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** SIGTERM (or another signal) and wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

/** Environment without the developer's own SYNTHEO_* settings, plus `extra`. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('SYNTHEO_')) env[k] = v;
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export async function startWorker(dbPath: string, opts: { env?: Record<string, string | undefined>; args?: string[] } = {}): Promise<WorkerProcess> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` before these tests.`);
  if (TEST_ENGINE === 'postgres' && !isPostgresUrl(dbPath)) throw new Error(`This file runs in the postgres project: pass serve(path).location (test/support/engine.ts), not ${dbPath}.`);
  const proc = spawn(process.execPath, [CLI, 'worker', '--db', workerLocation(dbPath), '--log-level', 'debug', ...(opts.args ?? [])], {
    env: cleanEnv({ ...FAST_ENV, ...opts.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: LogLine[] = [];
  let raw = '';
  let partial = '';
  const waiters = new Set<() => void>();
  proc.stderr!.setEncoding('utf8');
  proc.stderr!.on('data', (chunk: string) => {
    raw += chunk;
    partial += chunk;
    const lines = partial.split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        logs.push({ level: 60, msg: line });
      }
    }
    for (const w of waiters) w();
  });
  proc.stdout!.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  const worker: WorkerProcess = {
    proc,
    pid: proc.pid!,
    logs,
    exited,
    stderr: () => raw,
    waitForLog: (match, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = logs.find(match);
          if (found) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`worker log line not seen within ${timeoutMs} ms; stderr:\n${raw.slice(-3000)}`));
        }, timeoutMs);
        waiters.add(check);
        void exited.then(() => {
          if (waiters.has(check)) {
            check();
            if (waiters.has(check)) {
              clearTimeout(timer);
              waiters.delete(check);
              reject(new Error(`worker exited before the log line; stderr:\n${raw.slice(-3000)}`));
            }
          }
        });
        check();
      }),
    stop: async (signal = 'SIGTERM') => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
  await worker.waitForLog((l) => l.msg === 'worker started');
  return worker;
}

const TERMINAL = new Set(['done', 'failed']);

/** Polls get_recording_import's data (from an SQLite handle or a Store) until `until` holds (default: done or failed). */
export async function waitForImport(
  source: Sqlite | Store,
  jobId: string,
  opts: { until?: (job: RecordingImport) => boolean; timeoutMs?: number; everyMs?: number } = {},
): Promise<RecordingImport> {
  const until = opts.until ?? ((j) => TERMINAL.has(j.processing_status));
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    const job = 'imports' in source ? await source.imports.get(jobId) : getImportOrThrow(source, jobId);
    if (until(job)) return job;
    if (Date.now() > deadline) throw new Error(`import ${jobId} still ${job.processing_status} (${JSON.stringify(job.progress)}) after ${opts.timeoutMs ?? 60_000} ms`);
    await new Promise((r) => setTimeout(r, opts.everyMs ?? 50));
  }
}
