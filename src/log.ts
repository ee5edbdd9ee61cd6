import { createRequire } from 'node:module';
import type { Logger as PinoLogger } from 'pino';
import { neutralise } from './text/terminal.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const LEVEL_VALUES: Record<LogLevel, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

export interface LogFn {
  (obj: object, msg?: string, ...args: unknown[]): void;
  (msg: string, ...args: unknown[]): void;
}

/** The part of pino's API Syntheo uses. */
export interface Logger {
  readonly level: string;
  trace: LogFn;
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  fatal: LogFn;
  child(bindings: Record<string, unknown>): Logger;
  isLevelEnabled(level: string): boolean;
}

// Keys whose values never reach a log line, whatever the level.
const REDACT = ['apiKey', 'api_key', 'authorization', 'Authorization', '*.apiKey', '*.api_key', '*.authorization', '*.Authorization', '*.headers.authorization', '*.*.apiKey'];

const require = createRequire(import.meta.url);

/**
 * pino on stderr (fd 2) only: the stdout of `syntheo mcp` is the JSON-RPC stream. Writes are
 * synchronous so a crash keeps the last line. pino itself (~45 ms to import) is loaded on the first
 * line that is actually written, which keeps `syntheo mcp` start-up cheap at the default level.
 */
export interface LogFormat {
  /** One readable line per entry (a person's terminal) instead of NDJSON. */
  pretty: boolean;
  colour: boolean;
}

export function createLogger(level: LogLevel = 'warn', name = 'syntheo', env: NodeJS.ProcessEnv = process.env, format?: LogFormat): Logger {
  let real: PinoLogger | undefined;
  const censor = secretCensor(env);
  const root = (): PinoLogger => {
    if (!real) {
      const { pino } = require('pino') as typeof import('pino');
      const destination = format?.pretty ? prettyStream(format.colour) : pino.destination({ fd: 2, sync: true });
      real = pino(
        {
          name,
          level,
          base: { pid: process.pid },
          redact: { paths: REDACT, censor: '[redacted]' },
          timestamp: pino.stdTimeFunctions.isoTime,
          ...(censor ? { hooks: { streamWrite: censor } } : {}),
        },
        destination,
      );
    }
    return real;
  };
  return lazyLogger(level, () => root() as unknown as Logger);
}

const PRETTY_LEVELS: Record<number, [label: string, sgr: number]> = { 10: ['TRACE', 2], 20: ['DEBUG', 2], 30: ['INFO ', 36], 40: ['WARN ', 33], 50: ['ERROR', 31], 60: ['FATAL', 31] };
const OMITTED = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg']);

/**
 * `12:03:04 INFO  import done jobId=job_... ms=2300` on fd 2, synchronously: pino's JSON line (already
 * redacted) reformatted, with untrusted text (file names, server errors) made inert for the terminal.
 */
function prettyStream(colour: boolean): { write(line: string): void } {
  const { writeSync } = require('node:fs') as typeof import('node:fs');
  // A log line is one line: newlines inside a message are shown, not acted on.
  const safe = (s: string) => neutralise(s).replace(/\n/g, '\u2424');
  const sgr = (code: number, s: string) => (colour ? `\x1b[${code}m${s}\x1b[0m` : s);
  const value = (v: unknown): string => {
    if (typeof v === 'string') return /[\s="]/.test(v) || v === '' ? JSON.stringify(v) : v;
    if (v && typeof v === 'object' && 'message' in v && typeof (v as { message: unknown }).message === 'string') return JSON.stringify((v as { message: string }).message);
    return JSON.stringify(v) ?? String(v);
  };
  return {
    write(line: string) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        writeSync(2, safe(line.trimEnd()) + '\n');
        return;
      }
      const [label, code] = PRETTY_LEVELS[entry.level as number] ?? ['?    ', 0];
      const time = typeof entry.time === 'string' ? entry.time.slice(11, 19) : '';
      const rest = Object.entries(entry)
        .filter(([k]) => !OMITTED.has(k))
        .map(([k, v]) => `${k}=${value(v)}`)
        .join(' ');
      const msg = typeof entry.msg === 'string' ? entry.msg : '';
      writeSync(2, `${sgr(2, time)} ${sgr(code, label)} ${safe(msg)}${rest ? ` ${sgr(2, safe(rest))}` : ''}\n`);
    },
  };
}

/** Environment variables whose values never reach a log line. */
export const SECRET_ENV_VARS = ['SYNTHEO_TRANSCRIPTION_API_KEY', 'SYNTHEO_LLM_API_KEY'] as const;

/**
 * The key paths above catch a key passed as a field; this catches it anywhere else in a line (a
 * server's error message quoting the Authorization header, an error's cause...), as written in JSON.
 */
function secretCensor(env: NodeJS.ProcessEnv): ((line: string) => string) | undefined {
  const values = new Set<string>();
  for (const name of SECRET_ENV_VARS) {
    const value = env[name];
    // Too short to be a key, and replacing it would shred ordinary text.
    if (value === undefined || value.length < 8) continue;
    values.add(value);
    values.add(JSON.stringify(value).slice(1, -1));
  }
  if (values.size === 0) return undefined;
  return (line) => {
    for (const value of values) if (line.includes(value)) line = line.split(value).join('[redacted]');
    return line;
  };
}

function lazyLogger(level: LogLevel, resolve: () => Logger): Logger {
  let target: Logger | undefined;
  const get = () => (target ??= resolve());
  const threshold = LEVEL_VALUES[level];
  const method =
    (name: Exclude<LogLevel, 'silent'>): LogFn =>
    (...args: unknown[]) => {
      if (LEVEL_VALUES[name] >= threshold) (get()[name] as (...a: unknown[]) => void)(...args);
    };
  return {
    level,
    trace: method('trace'),
    debug: method('debug'),
    info: method('info'),
    warn: method('warn'),
    error: method('error'),
    fatal: method('fatal'),
    child: (bindings) => lazyLogger(level, () => get().child(bindings)),
    isLevelEnabled: (l) => isLogLevel(l) && LEVEL_VALUES[l] >= threshold,
  };
}

export function resolveLogLevel(flag: string | undefined, fallback: LogLevel = 'warn'): LogLevel {
  const raw = flag ?? process.env.SYNTHEO_LOG_LEVEL;
  if (raw === undefined || raw === '') return fallback;
  if (!isLogLevel(raw)) throw new RangeError(`Unknown log level "${raw}". Use one of: ${LOG_LEVELS.join(', ')}.`);
  return raw;
}
