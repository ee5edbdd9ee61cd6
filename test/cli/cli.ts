// Runs the BUILT CLI (`npm run build` first) as a person or a script would, on a temp database.
import { afterAll } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../support/db.js';
import type { Sqlite } from '../../src/db/open.js';
import { writeWav as writeSharedWav } from '../support/wav.js';

export const CLI = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` before the CLI tests.`);

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  cwd?: string;
}

/** An environment without the caller's Syntheo settings, and a private XDG home so no real database is touched. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('SYNTHEO_') && k !== 'NO_COLOR' && k !== 'FORCE_COLOR') env[k] = v;
  env.XDG_DATA_HOME = isolatedHome;
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

const isolated = tempDir('syntheo-xdg-');
const isolatedHome = isolated.dir;
// One private data home per test file, removed when the file's tests end.
afterAll(isolated.cleanup);

export function start(args: string[], options: RunOptions = {}): ChildProcess & { result: Promise<RunResult> } {
  const child = spawn(process.execPath, [CLI, ...args], { env: cleanEnv(options.env), cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.end(options.input ?? '');
  const result = new Promise<RunResult>((resolvePromise, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolvePromise({ code: code ?? (signal ? 128 : -1), stdout, stderr }));
  });
  return Object.assign(child, { result });
}

/** Async on purpose: tests serve HTTP from this process while the CLI runs. */
export function run(args: string[], options: RunOptions = {}): Promise<RunResult> {
  return start(args, options).result;
}

/** `syntheo --db DB --json ...`, parsed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read fields freely
export async function runJson<T = any>(db: string, args: string[], options: RunOptions = {}): Promise<{ code: number; body: T; stderr: string }> {
  const r = await run(['--db', db, '--json', ...args], options);
  let body: T;
  try {
    body = JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`stdout is not one JSON document (exit ${r.code}):\n${r.stdout}\nstderr:\n${r.stderr}`);
  }
  return { code: r.code, body, stderr: r.stderr };
}

/** A 1-second 16 kHz mono 16-bit PCM WAV of silence. */
export function writeWav(path: string, seconds = 1): string {
  return writeSharedWav(path, seconds, 'silence');
}

export function dbIn(dir: string, name = 'syntheo.db'): string {
  return join(dir, name);
}

/** A stack trace line, which no user-facing output may contain. */
export const STACK_LINE = /^\s+at .+\(.+:\d+:\d+\)$/m;

/**
 * A worker row with a heartbeat `ageMs` old. A live one (ageMs 0) renews it every second until its database
 * is closed, as a running `syntheo-worker` does: on a busy machine a test outlasts a heartbeat's freshness.
 */
export function fakeWorker(sqlite: Sqlite, ageMs = 0): void {
  const at = new Date(Date.now() - ageMs).toISOString();
  const id = `wrk_test${Math.random().toString(36).slice(2, 10)}`;
  sqlite.prepare('INSERT INTO workers (id, hostname, pid, version, concurrency, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(id, 'testhost', 4242, '0.1.0', 2, at, at);
  if (ageMs !== 0) return;
  const renew = setInterval(() => {
    try {
      sqlite.prepare('UPDATE workers SET heartbeat_at = ? WHERE id = ?').run(new Date().toISOString(), id);
    } catch {
      // Closed (the test ended), or a test took the table away: the worker has stopped.
      clearInterval(renew);
    }
  }, 1_000);
  renew.unref();
}

/** Whether `script` (util-linux; Debian package bsdutils) is here to give the CLI a real terminal. */
export const HAS_SCRIPT = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
if (!HAS_SCRIPT) console.warn('terminal tests skipped: `script` is missing (apt install bsdutils)');

const shQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Runs the built CLI on a pseudo-terminal (stdin, stdout and stderr all on it), as a person in a terminal
 * does. The output is stdout and stderr together, with the terminal's \r\n turned back into \n.
 */
export function startInTerminal(args: string[], options: RunOptions = {}): ChildProcess & { result: Promise<RunResult> } {
  const command = [process.execPath, CLI, ...args].map(shQuote).join(' ');
  const child = spawn('script', ['-qefc', command, '/dev/null'], { env: cleanEnv({ TERM: 'xterm-256color', ...options.env }), cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  if (options.input !== undefined) child.stdin.end(options.input);
  const result = new Promise<RunResult>((resolvePromise, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolvePromise({ code: code ?? (signal ? 128 : -1), stdout: out.replace(/\r\n/g, '\n'), stderr: '' }));
  });
  return Object.assign(child, { result });
}

export function runInTerminal(args: string[], options: RunOptions = {}): Promise<RunResult> {
  return startInTerminal(args, { input: '', ...options }).result;
}
