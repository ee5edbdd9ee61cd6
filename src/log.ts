import { createRequire } from 'node:module';
import type { Logger as PinoLogger } from 'pino';

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
export function createLogger(level: LogLevel = 'warn', name = 'syntheo', env: NodeJS.ProcessEnv = process.env): Logger {
  let real: PinoLogger | undefined;
  const censor = secretCensor(env);
  const root = (): PinoLogger => {
    if (!real) {
      const { pino } = require('pino') as typeof import('pino');
      real = pino(
        {
          name,
          level,
          base: { pid: process.pid },
          redact: { paths: REDACT, censor: '[redacted]' },
          timestamp: pino.stdTimeFunctions.isoTime,
          ...(censor ? { hooks: { streamWrite: censor } } : {}),
        },
        pino.destination({ fd: 2, sync: true }),
      );
    }
    return real;
  };
  return lazyLogger(level, () => root() as unknown as Logger);
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
