import { pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

// Keys whose values never reach a log line, whatever the level.
const REDACT = [
  'apiKey',
  'api_key',
  'authorization',
  'Authorization',
  '*.apiKey',
  '*.api_key',
  '*.authorization',
  '*.Authorization',
  'headers.authorization',
  '*.headers.authorization',
];

/**
 * Logs go to stderr (fd 2) only: the stdout of `syntheo mcp` is the JSON-RPC stream.
 * pino.destination writes synchronously, so a crash does not swallow the last line.
 */
export function createLogger(level: LevelWithSilent = 'info', name = 'syntheo'): Logger {
  return pino(
    {
      name,
      level,
      base: { pid: process.pid },
      redact: { paths: REDACT, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    pino.destination({ fd: 2, sync: true }),
  );
}

export function resolveLogLevel(flag: string | undefined, fallback: LogLevel = 'warn'): LogLevel {
  const raw = flag ?? process.env.SYNTHEO_LOG_LEVEL;
  if (raw === undefined || raw === '') return fallback;
  if (!isLogLevel(raw)) throw new RangeError(`Unknown log level "${raw}". Use one of: ${LOG_LEVELS.join(', ')}.`);
  return raw;
}
