import type { CommandSpec } from '../framework.js';
import { table } from '../text.js';
import { CONFIG_KEYS, SECRET_ENV, checkSetting, effectiveSettings, isConfigKey, loadConfig, maskUrlPassword, type ConfigKey } from '../../config.js';
import { InvalidInputError, NotFoundError } from '../../errors.js';

type SecretKey = keyof typeof SECRET_ENV;
type Source = 'default' | 'database' | 'environment';

export interface SettingView {
  key: string;
  /** Effective value; always null for a secret, which is never printed. */
  value: string | null;
  /** Where the value comes from; null when it is not set at all. */
  source: Source | null;
  env: string;
  secret: boolean;
  description: string;
}

function isSecret(key: string): key is SecretKey {
  return Object.hasOwn(SECRET_ENV, key);
}

const SECRET_DESCRIPTIONS: Record<SecretKey, string> = {
  'transcription.api_key': 'Bearer token for the transcription server (environment only)',
  'llm.api_key': 'Bearer token for the LLM server (environment only)',
};

function knownKey(key: string): void {
  if (!isConfigKey(key) && !isSecret(key))
    throw new InvalidInputError(`Unknown setting "${key}". Known settings: ${[...Object.keys(CONFIG_KEYS), ...Object.keys(SECRET_ENV)].join(', ')}.`);
}

/** Defaults that depend on transcription.api are computed from the effective configuration. */
function defaultValue(key: ConfigKey, stored: Record<string, string>): string | null {
  if (key === 'transcription.chunk_seconds' || key === 'transcription.max_upload_mb') {
    try {
      const config = loadConfig(stored);
      return key === 'transcription.chunk_seconds' ? String(config.transcription.chunkSeconds) : String(config.transcription.maxUploadBytes / 1024 / 1024);
    } catch {
      // An invalid value elsewhere: show the documented default instead.
    }
  }
  const d: string = CONFIG_KEYS[key].default;
  return d === '' ? null : d;
}

export function settingViews(stored: Record<string, string>, env: NodeJS.ProcessEnv = process.env): SettingView[] {
  const effective = effectiveSettings(stored, env);
  const views: SettingView[] = (Object.keys(CONFIG_KEYS) as ConfigKey[]).map((key) => {
    const spec = CONFIG_KEYS[key];
    const found = effective[key];
    const fallback = found ? null : defaultValue(key, stored);
    const value = found?.value ?? fallback;
    return {
      key,
      // A URL from the environment may carry a password: never printed.
      value: value !== null && key.endsWith('.url') ? maskUrlPassword(value) : value,
      source: found?.from ?? (fallback !== null ? 'default' : null),
      env: spec.env,
      secret: false,
      description: spec.description,
    };
  });
  for (const [key, name] of Object.entries(SECRET_ENV) as [SecretKey, string][]) {
    const set = env[name] !== undefined && env[name] !== '';
    views.push({ key, value: null, source: set ? 'environment' : null, env: name, secret: true, description: SECRET_DESCRIPTIONS[key] });
  }
  return views;
}

function shown(v: SettingView): string {
  if (v.secret) return v.source ? 'set (hidden)' : 'not set';
  return v.value ?? '—';
}

function sourceLabel(v: SettingView): string {
  if (v.secret) return v.source ? `environment (${v.env})` : `environment only (${v.env})`;
  if (v.source === null) return 'not set';
  return v.source === 'environment' ? `environment (${v.env})` : v.source;
}

const set: CommandSpec = {
  name: 'config set',
  summary: 'Store a setting in the database',
  description:
    'Store a setting in the database (the `settings` table); an environment variable of the same setting overrides it\nfor the processes that have it. API keys are refused: give them in the environment (SYNTHEO_TRANSCRIPTION_API_KEY,\nSYNTHEO_LLM_API_KEY), never in the database. Creates the database when missing.',
  positionals: [
    { name: 'key', required: true, description: 'Setting name (see `syntheo config list`)' },
    { name: 'value', required: true, description: 'New value' },
  ],
  examples: [
    'syntheo config set transcription.url http://127.0.0.1:8000',
    'syntheo config set llm.url http://127.0.0.1:11434 && syntheo config set llm.model llama3.1:8b',
    'syntheo config set transcription.api whisper.cpp',
  ],
  async run(ctx) {
    const [key, value] = ctx.positionals as [string, string];
    // Before the database is opened: a refused key or value leaves nothing behind.
    checkSetting(key, value);
    const store = await ctx.store({ create: true });
    await store.settings.write(key, value);
    const env = CONFIG_KEYS[key].env;
    const overridden = process.env[env] !== undefined && process.env[env] !== '';
    const text = `${key} = ${value} (stored in ${store.location})${overridden ? `\nNote: ${env} is set in this environment and overrides it here.` : ''}`;
    return { data: { key, value, stored: true, overridden_by_env: overridden }, text };
  },
};

const get: CommandSpec = {
  name: 'config get',
  summary: "Print a setting's effective value",
  description:
    "Print a setting's effective value (environment > database > default) on its own line, for scripts.\nExit 2 when it is not set and has no default. For an API key, only whether it is set (never the value).",
  positionals: [{ name: 'key', required: true, description: 'Setting name' }],
  examples: ['syntheo config get transcription.url', 'syntheo --json config get llm.model'],
  async run(ctx) {
    const key = ctx.positionals[0]!;
    knownKey(key);
    const store = await ctx.store({ create: false });
    const view = settingViews(await store.settings.read()).find((v) => v.key === key)!;
    if (view.secret) return { data: view, text: view.source ? `set (in ${view.env}; the value is never printed)` : `not set (give it in the environment: ${view.env})` };
    if (view.value === null) throw new NotFoundError(`${key} is not set. Set it with \`syntheo config set ${key} VALUE\` or the environment variable ${view.env}.`);
    return { data: view, text: view.value };
  },
};

const list: CommandSpec = {
  name: 'config list',
  summary: 'List every setting with its effective value and source',
  description: 'List every setting: effective value and where it comes from (default, database, environment).\nAPI keys show only whether they are set.',
  examples: ['syntheo config list', "syntheo --json config list | jq '.data[] | select(.source == \"database\")'"],
  async run(ctx) {
    const store = await ctx.store({ create: false });
    const views = settingViews(await store.settings.read());
    const text = table(views, [
      { header: 'KEY', value: (v) => v.key },
      { header: 'VALUE', value: shown, max: 60 },
      { header: 'SOURCE', value: sourceLabel },
    ]);
    return { data: views, text };
  },
};

const unset: CommandSpec = {
  name: 'config unset',
  summary: 'Remove a setting from the database',
  description: 'Remove a setting from the database; its default (or the environment variable) applies again.',
  positionals: [{ name: 'key', required: true, description: 'Setting name' }],
  examples: ['syntheo config unset llm.model'],
  async run(ctx) {
    const key = ctx.positionals[0]!;
    if (isSecret(key)) checkSetting(key, '');
    knownKey(key);
    const store = await ctx.store({ create: false });
    const removed = await store.settings.delete(key);
    const view = settingViews(await store.settings.read()).find((v) => v.key === key)!;
    const now = view.value === null ? 'it is now not set' : `now ${view.value} (${sourceLabel(view)})`;
    return { data: { key, removed, effective: view }, text: removed ? `Removed ${key} from the database; ${now}.` : `${key} was not stored in the database; ${now}.` };
  },
};

export const commands: CommandSpec[] = [set, get, list, unset];
