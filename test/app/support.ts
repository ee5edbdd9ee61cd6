import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { CLI, FAST_ENV, cleanEnv } from '../support/worker-process.js';

// A real `syntheo app` process (the built CLI), the link it prints, and a session cookie got the way a
// browser gets it: by opening that link.

export interface AppProcess {
  readonly proc: ChildProcess;
  /** The printed link, token included. */
  readonly openUrl: string;
  /** http://127.0.0.1:PORT */
  readonly base: string;
  readonly port: number;
  stderr(): string;
  /** `name=value` of the session cookie (after login()). */
  login(): Promise<string>;
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function startApp(dbPath: string, opts: { args?: string[]; env?: Record<string, string | undefined> } = {}): Promise<AppProcess> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` before these tests.`);
  const proc = spawn(process.execPath, [CLI, 'app', '--db', dbPath, '--port', '0', '--no-open', ...(opts.args ?? ['--no-worker'])], {
    env: cleanEnv({ ...FAST_ENV, ...opts.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  const firstLine = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no first line within 30 s; stderr:\n${stderr}`)), 30_000);
    proc.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, nl));
      }
    });
    void exited.then(() => reject(new Error(`syntheo app exited before its first line; stderr:\n${stderr}`)));
  });
  const match = /^Syntheo is open at (http:\/\/127\.0\.0\.1:(\d+)\/\?token=[\w-]+)$/.exec(firstLine);
  if (!match) throw new Error(`unexpected first line: ${firstLine}`);
  const openUrl = match[1]!;
  const port = Number(match[2]);
  const base = `http://127.0.0.1:${port}`;
  let cookie: string | undefined;
  return {
    proc,
    openUrl,
    base,
    port,
    stderr: () => stderr,
    async login() {
      if (cookie) return cookie;
      const res = await fetch(openUrl, { redirect: 'manual' });
      const set = res.headers.get('set-cookie');
      if (res.status !== 303 || !set) throw new Error(`login failed: ${res.status}`);
      cookie = set.split(';')[0]!;
      return cookie;
    },
    stop: async (signal = 'SIGTERM') => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}

/** A raw HTTP request (fetch will not send a foreign Host header). */
export function rawRequest(
  port: number,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: opts.method ?? 'GET', path: opts.path, headers: opts.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}
