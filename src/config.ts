import { InvalidInputError } from './errors.js';

// The app's configuration (SPEC §2): defaults < database settings (`syntheo config`) < environment < flags.
// Secrets come from the environment only: they are never stored, printed or logged.

export const TRANSCRIPTION_APIS = ['openai', 'whisper.cpp'] as const;
export type TranscriptionApi = (typeof TRANSCRIPTION_APIS)[number];

export interface Config {
  readonly transcription: {
    readonly url: string | null;
    readonly model: string;
    readonly api: TranscriptionApi;
    readonly language: string | null;
    readonly apiKey: string | null;
    readonly timeoutMs: number;
    /** Recordings longer than this are transcribed in chunks (needs ffmpeg). */
    readonly chunkSeconds: number;
    /** Files larger than this are transcribed in chunks (needs ffmpeg). */
    readonly maxUploadBytes: number;
  };
  readonly llm: {
    readonly url: string | null;
    readonly model: string | null;
    readonly apiKey: string | null;
    /** Budget of one request; longer transcripts are summarised map-reduce. */
    readonly contextTokens: number;
    readonly timeoutMs: number;
  };
  readonly worker: {
    readonly concurrency: number;
  };
  /** PostgreSQL: keep the recording stored with an import once its job ends. */
  readonly recordings: { readonly keep: boolean };
  readonly imports: {
    /** Watched folders (absolute paths): the worker imports each complete new file there once. */
    readonly watch: readonly string[];
  };
}

interface KeySpec {
  env: string;
  description: string;
  /** Default shown by `config list` ('' when none). */
  default: string;
  /** Throws InvalidInputError when the value cannot be used. */
  check(value: string): void;
}

const url = (key: string) => (value: string) => {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new InvalidInputError(`${key} must be a URL such as http://127.0.0.1:8000, got "${value}".`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new InvalidInputError(`${key} must be an http:// or https:// URL, got "${value}".`);
};
const positiveInt = (key: string, max: number) => (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) throw new InvalidInputError(`${key} must be a whole number from 1 to ${max}, got "${value}".`);
};
const nonEmpty = (key: string) => (value: string) => {
  if (value.trim() === '') throw new InvalidInputError(`${key} cannot be empty; use \`syntheo config unset ${key}\` to remove it.`);
};
const oneOf = (key: string, values: readonly string[]) => (value: string) => {
  if (!values.includes(value)) throw new InvalidInputError(`${key} must be one of ${values.join(', ')}, got "${value}".`);
};

const watchDirs = (value: string): string[] =>
  value
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d !== '');
const absoluteDirs = (key: string) => (value: string) => {
  const dirs = watchDirs(value);
  if (dirs.length === 0) throw new InvalidInputError(`${key} needs at least one folder; use \`syntheo config unset ${key}\` to stop watching.`);
  for (const d of dirs) if (!d.startsWith('/')) throw new InvalidInputError(`${key}: "${d.slice(0, 200)}" is not an absolute path. Give full paths separated by commas, e.g. /home/you/Zoom,/home/you/Videos/OBS.`);
};

export const CONFIG_KEYS = {
  'transcription.url': { env: 'SYNTHEO_TRANSCRIPTION_URL', default: '', description: 'Base URL of an OpenAI-compatible transcription server, with or without /v1 (POST {base}/v1/audio/transcriptions)', check: url('transcription.url') },
  'transcription.model': { env: 'SYNTHEO_TRANSCRIPTION_MODEL', default: 'whisper-1', description: 'Model name sent as `model`', check: nonEmpty('transcription.model') },
  'transcription.api': { env: 'SYNTHEO_TRANSCRIPTION_API', default: 'openai', description: 'openai, or whisper.cpp (native POST {url}/inference)', check: oneOf('transcription.api', TRANSCRIPTION_APIS) },
  'transcription.language': { env: 'SYNTHEO_TRANSCRIPTION_LANGUAGE', default: '', description: 'ISO-639-1 language hint (e.g. en, fr); auto-detected when unset', check: nonEmpty('transcription.language') },
  'transcription.timeout_seconds': { env: 'SYNTHEO_TRANSCRIPTION_TIMEOUT_SECONDS', default: '3600', description: 'Longest wait for one transcription request', check: positiveInt('transcription.timeout_seconds', 86_400) },
  'transcription.chunk_seconds': { env: 'SYNTHEO_TRANSCRIPTION_CHUNK_SECONDS', default: '600 (openai), 1800 (whisper.cpp)', description: 'Longer recordings are split into chunks of this length (needs ffmpeg)', check: positiveInt('transcription.chunk_seconds', 86_400) },
  'transcription.max_upload_mb': { env: 'SYNTHEO_TRANSCRIPTION_MAX_UPLOAD_MB', default: '24 (openai), 1024 (whisper.cpp)', description: 'Larger files are split into chunks (needs ffmpeg); OpenAI rejects uploads over 25 MiB', check: positiveInt('transcription.max_upload_mb', 1_048_576) },
  'llm.url': { env: 'SYNTHEO_LLM_URL', default: '', description: 'Base URL of an OpenAI-compatible chat server, with or without /v1 (POST {base}/v1/chat/completions)', check: url('llm.url') },
  'llm.model': { env: 'SYNTHEO_LLM_MODEL', default: '', description: 'Chat model; without one, summaries are skipped (skipped_no_model)', check: nonEmpty('llm.model') },
  'llm.context_tokens': { env: 'SYNTHEO_LLM_CONTEXT_TOKENS', default: '8192', description: 'Token budget of one request; longer transcripts are summarised map-reduce', check: positiveInt('llm.context_tokens', 10_000_000) },
  'llm.timeout_seconds': { env: 'SYNTHEO_LLM_TIMEOUT_SECONDS', default: '600', description: 'Longest wait for one chat completion', check: positiveInt('llm.timeout_seconds', 86_400) },
  'worker.concurrency': { env: 'SYNTHEO_WORKER_CONCURRENCY', default: '2', description: 'Import jobs in flight per worker', check: positiveInt('worker.concurrency', 64) },
  'recordings.keep': { env: 'SYNTHEO_RECORDINGS_KEEP', default: 'false', description: 'PostgreSQL: keep the recording stored with an import once the job ends (true), or drop it (false)', check: oneOf('recordings.keep', ['true', 'false']) },
  'imports.watch': { env: 'SYNTHEO_IMPORTS_WATCH', default: '', description: 'Watched folders, comma-separated absolute paths: the worker imports each complete new recording or transcript once', check: absoluteDirs('imports.watch') },
} as const satisfies Record<string, KeySpec>;

export type ConfigKey = keyof typeof CONFIG_KEYS;

/** Secrets: environment only. */
export const SECRET_ENV = {
  'transcription.api_key': 'SYNTHEO_TRANSCRIPTION_API_KEY',
  'llm.api_key': 'SYNTHEO_LLM_API_KEY',
} as const;

export function isConfigKey(key: string): key is ConfigKey {
  return Object.hasOwn(CONFIG_KEYS, key);
}

/** Validates a key and value for `syntheo config set`; API keys are refused with a pointer to the environment. */
export function checkSetting(key: string, value: string): asserts key is ConfigKey {
  if (key in SECRET_ENV || /api[_-]?key|secret|token$/i.test(key))
    throw new InvalidInputError(
      `${key} is a secret and is never stored in the database. Set it in the environment of the worker instead: ${Object.values(SECRET_ENV).join(' or ')}.`,
    );
  if (!isConfigKey(key)) throw new InvalidInputError(`Unknown setting "${key}". Known settings: ${Object.keys(CONFIG_KEYS).join(', ')}.`);
  CONFIG_KEYS[key].check(value);
  // A password in a URL is a secret like an API key: the environment may hold it, the database may not.
  if (key.endsWith('.url') && urlPassword(value) !== '')
    throw new InvalidInputError(
      `${key} contains a password (user:password@host), and settings are stored in the database in clear. Give this URL in the environment instead (${CONFIG_KEYS[key].env}), where it is never stored nor printed, or put a bearer token in ${key.startsWith('llm.') ? SECRET_ENV['llm.api_key'] : SECRET_ENV['transcription.api_key']}.`,
    );
}

/** What serviceBaseUrl strips: a trailing /v1 (as providers document their base URLs), a pasted endpoint, slashes. */
const API_SUFFIX = /(?:\/v1(?:\/(?:chat\/completions|audio\/transcriptions|models))?|\/inference)$/i;

/**
 * The server's base URL, to which the clients add /v1/chat/completions, /v1/audio/transcriptions or
 * /inference: `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1/` and `http://127.0.0.1:11434`
 * all give `…:11434` (or `https://api.openai.com`), so the path is never doubled.
 */
export function serviceBaseUrl(value: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return value;
  }
  let end = u.pathname.length;
  while (end > 0 && u.pathname[end - 1] === '/') end--;
  const trimmed = u.pathname.slice(0, end);
  const path = trimmed.slice(0, trimmed.length - (API_SUFFIX.exec(trimmed.slice(-40))?.[0].length ?? 0));
  if (path === u.pathname) return value;
  u.pathname = path;
  const out = u.toString();
  return path === '' && u.search === '' && u.hash === '' ? out.replace(/\/$/, '') : out;
}

function urlPassword(value: string): string {
  try {
    return new URL(value).password;
  } catch {
    return '';
  }
}

/** A URL as it may be shown: its password, if any, replaced by ****. */
export function maskUrlPassword(value: string): string {
  try {
    const u = new URL(value);
    if (u.password === '') return value;
    u.password = '****';
    return u.toString();
  } catch {
    return value;
  }
}

export interface ConfigSource {
  value: string;
  from: 'default' | 'database' | 'environment';
}

/** Where each setting's effective value comes from (`syntheo config list`). */
export function effectiveSettings(stored: Record<string, string>, env: NodeJS.ProcessEnv = process.env): Record<ConfigKey, ConfigSource | null> {
  const out = {} as Record<ConfigKey, ConfigSource | null>;
  for (const [key, spec] of Object.entries(CONFIG_KEYS) as [ConfigKey, KeySpec][]) {
    const fromEnv = env[spec.env];
    if (fromEnv !== undefined && fromEnv !== '') out[key] = { value: fromEnv, from: 'environment' };
    else if (stored[key] !== undefined) out[key] = { value: stored[key], from: 'database' };
    else out[key] = null;
  }
  return out;
}

/**
 * Builds the frozen configuration. Invalid values (in the database or the environment) are reported
 * with the key and where the value came from.
 */
export function loadConfig(stored: Record<string, string>, env: NodeJS.ProcessEnv = process.env, flags: Partial<Record<ConfigKey, string>> = {}): Config {
  const effective = effectiveSettings(stored, env);
  const get = (key: ConfigKey): string | undefined => {
    const flag = flags[key];
    const source = flag !== undefined ? { value: flag, from: 'flag' } : effective[key];
    if (!source) return undefined;
    try {
      CONFIG_KEYS[key].check(source.value);
    } catch (error) {
      const where = source.from === 'environment' ? `environment variable ${CONFIG_KEYS[key].env}` : source.from === 'database' ? '`syntheo config`' : 'command line';
      throw new InvalidInputError(`${(error as Error).message} (from ${where})`);
    }
    return source.value;
  };
  const int = (key: ConfigKey, fallback: number) => {
    const v = get(key);
    return v === undefined ? fallback : Number(v);
  };
  const api = (get('transcription.api') ?? 'openai') as TranscriptionApi;
  const baseUrlOrNull = (value: string | undefined) => (value === undefined ? null : serviceBaseUrl(value));
  const secret = (name: string) => (env[name] !== undefined && env[name] !== '' ? env[name]! : null);
  return Object.freeze({
    transcription: Object.freeze({
      url: baseUrlOrNull(get('transcription.url')),
      model: get('transcription.model') ?? 'whisper-1',
      api,
      language: get('transcription.language') ?? null,
      apiKey: secret(SECRET_ENV['transcription.api_key']),
      timeoutMs: int('transcription.timeout_seconds', 3600) * 1000,
      chunkSeconds: int('transcription.chunk_seconds', api === 'openai' ? 600 : 1800),
      maxUploadBytes: int('transcription.max_upload_mb', api === 'openai' ? 24 : 1024) * 1024 * 1024,
    }),
    llm: Object.freeze({
      url: baseUrlOrNull(get('llm.url')),
      model: get('llm.model') ?? null,
      apiKey: secret(SECRET_ENV['llm.api_key']),
      contextTokens: int('llm.context_tokens', 8192),
      timeoutMs: int('llm.timeout_seconds', 600) * 1000,
    }),
    worker: Object.freeze({ concurrency: int('worker.concurrency', 2) }),
    recordings: Object.freeze({ keep: get('recordings.keep') === 'true' }),
    imports: Object.freeze({ watch: Object.freeze(watchDirs(get('imports.watch') ?? '')) }),
  });
}
