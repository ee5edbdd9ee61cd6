import { parseArgs } from 'node:util';
import type { Logger } from '../log.js';
import type { SyntheoDb } from '../db/open.js';
import type { Pagination } from '../db/queries/types.js';
import { SyntheoError, type ErrorKind } from '../errors.js';

export const JSON_SCHEMA_VERSION = 1;

export const EXIT = {
  ok: 0,
  failed: 1,
  notFound: 2,
  noDatabase: 3,
  exists: 4,
  usage: 64,
} as const;

const EXIT_BY_KIND: Record<ErrorKind, number> = {
  not_found: EXIT.notFound,
  invalid: EXIT.failed,
  conflict: EXIT.failed,
  unavailable: EXIT.failed,
  no_database: EXIT.noDatabase,
  exists: EXIT.exists,
  storage: EXIT.failed,
  internal: EXIT.failed,
};

/** Bad command line: exit 64 with the command's usage. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof SyntheoError) return EXIT_BY_KIND[error.kind];
  return EXIT.failed;
}

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** Shown in help as `--name VALUE`. */
  value?: string;
  description: string;
}

export interface PositionalSpec {
  name: string;
  required?: boolean;
  /** Takes every remaining positional. */
  variadic?: boolean;
  description: string;
}

export interface CommandSpec {
  /** Words after `syntheo`, e.g. `meetings list`. */
  name: string;
  summary: string;
  description?: string;
  positionals?: PositionalSpec[];
  options?: Record<string, OptionSpec>;
  examples: string[];
  run(ctx: CommandContext): Promise<CommandResult | void> | CommandResult | void;
}

export interface CommandResult {
  data: unknown;
  pagination?: Pagination;
  /** Human output; data is printed as JSON when absent; '' prints nothing. */
  text?: string;
  exitCode?: number;
}

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface GlobalOptions {
  db?: string;
  json: boolean;
  logLevel?: string;
}

export interface CommandContext {
  readonly command: string;
  readonly options: OptionValues;
  readonly positionals: string[];
  readonly global: GlobalOptions;
  readonly json: boolean;
  readonly logger: Logger;
  /** Whether stdout is a terminal (colours, live progress). */
  readonly tty: boolean;
  /** Opens the database; `create` for commands that write (SPEC §1), else exit 3 when missing. */
  openDb(options: { create: boolean }): SyntheoDb;
  /** Database path as resolved from --db / SYNTHEO_DB / XDG. */
  dbPath(): string;
  /** Writes a line to stdout (human mode) — for progress output of long commands. */
  print(line: string): void;
}

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  db: { type: 'string', value: 'PATH', description: 'Database file (default: $SYNTHEO_DB, else $XDG_DATA_HOME/syntheo/syntheo.db)' },
  json: { type: 'boolean', description: 'Print one JSON document: {"schema_version":1,"command",...,"data"} or {"schema_version":1,"error"}' },
  'log-level': { type: 'string', value: 'LEVEL', description: 'Log level on stderr: fatal, error, warn (default), info, debug, trace, silent (or $SYNTHEO_LOG_LEVEL)' },
  help: { type: 'boolean', short: 'h', description: 'Show help' },
};

export function parseCommandArgs(spec: CommandSpec, argv: string[]): { options: OptionValues; positionals: string[] } {
  const options = { ...GLOBAL_OPTIONS, ...spec.options };
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: Object.fromEntries(
        Object.entries(options).map(([name, o]) => [name, { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) }]),
      ),
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/^TypeError \[\w+\]: /, ''));
  }
  const positionals = parsed.positionals;
  if (parsed.values.help) return { options: parsed.values as OptionValues, positionals };
  const specs = spec.positionals ?? [];
  const required = specs.filter((p) => p.required).length;
  const variadic = specs.some((p) => p.variadic);
  if (positionals.length < required) throw new UsageError(`Missing ${specs[positionals.length]!.name.toUpperCase()}.`);
  if (!variadic && positionals.length > specs.length) throw new UsageError(`Unexpected argument "${positionals[specs.length]}".`);
  return { options: parsed.values as OptionValues, positionals };
}

export function commandHelp(spec: CommandSpec): string {
  const args = (spec.positionals ?? []).map((p) => {
    const n = p.name.toUpperCase() + (p.variadic ? '...' : '');
    return p.required ? n : `[${n}]`;
  });
  const lines = [`Usage: syntheo ${spec.name}${args.length ? ` ${args.join(' ')}` : ''} [options]`, '', spec.description ?? spec.summary];
  if (spec.positionals?.length) {
    lines.push('', 'Arguments:');
    for (const p of spec.positionals) lines.push(`  ${pad(p.name.toUpperCase(), 24)}${p.description}`);
  }
  lines.push('', 'Options:');
  for (const [name, o] of Object.entries({ ...spec.options, ...GLOBAL_OPTIONS })) {
    const flag = `${o.short ? `-${o.short}, ` : ''}--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`;
    lines.push(`  ${pad(flag, 24)}${o.description}`);
  }
  lines.push('', 'Examples:', ...spec.examples.map((e) => `  ${e}`));
  return lines.join('\n');
}

export function pad(text: string, width: number): string {
  return text.length >= width - 1 ? `${text}\n${' '.repeat(width)}` : text.padEnd(width);
}

export function successEnvelope(command: string, result: CommandResult): string {
  const envelope: Record<string, unknown> = { schema_version: JSON_SCHEMA_VERSION, command, data: result.data };
  if (result.pagination) envelope.pagination = result.pagination;
  return JSON.stringify(envelope);
}

export function errorEnvelope(code: string, message: string, exitCode: number): string {
  return JSON.stringify({ schema_version: JSON_SCHEMA_VERSION, error: { code, message, exit_code: exitCode } });
}

export function errorCode(error: unknown): string {
  if (error instanceof UsageError) return 'usage';
  if (error instanceof SyntheoError) return error.kind;
  return 'internal';
}

export function optString(options: OptionValues, name: string): string | undefined {
  const v = options[name];
  return typeof v === 'string' ? v : undefined;
}

export function optBool(options: OptionValues, name: string): boolean {
  return options[name] === true;
}

/** Parses an integer flag; usage error when it is not one. Clamping is the query's job. */
export function optInt(options: OptionValues, name: string): number | undefined {
  const v = optString(options, name);
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v.trim())) throw new UsageError(`--${name} must be an integer, got "${v}".`);
  return Number(v);
}

/** `--limit N` and `--offset N` with the MCP tool's default and clamp in the help. */
export function pageOptions(rule: { defaultLimit: number; maxLimit: number }, unit = 'results'): Record<string, OptionSpec> {
  return {
    limit: { type: 'string', value: 'N', description: `How many ${unit} (default ${rule.defaultLimit}, clamped to 1..${rule.maxLimit})` },
    offset: { type: 'string', value: 'N', description: `How many ${unit} to skip (default 0)` },
  };
}

/** The page flags as given; the query clamps them exactly as the MCP tools do. */
export function pageFlags(options: OptionValues): { limit?: number; offset?: number } {
  return { limit: optInt(options, 'limit'), offset: optInt(options, 'offset') };
}

/** One of `values`, or a usage error naming them. */
export function optChoice<T extends string>(options: OptionValues, name: string, values: readonly T[]): T | undefined {
  const v = optString(options, name);
  if (v === undefined) return undefined;
  if (!(values as readonly string[]).includes(v)) throw new UsageError(`--${name} must be one of ${values.join(', ')}, got "${v}".`);
  return v as T;
}

// Domain messages name the MCP tools (a model reads them); a person at the terminal wants the command.
const CLI_WORDING: [RegExp, string][] = [
  [/\bget_recurring_meeting_history\b/g, '`syntheo meetings history`'],
  [/\bget_meeting_transcript\b/g, '`syntheo meetings transcript`'],
  [/\blist_meetings\b/g, '`syntheo meetings list`'],
  [/\blist_folders\b/g, '`syntheo folders list`'],
  [/\blist_proposals\b/g, '`syntheo proposals list`'],
  [/\bget_meeting\b/g, '`syntheo meetings get`'],
  [/the job_id returned by import_recording/g, 'the job ID printed by `syntheo imports add` (see `syntheo imports list`)'],
  [/then call import_recording again with the same request_key/g, 'then run the same command again'],
  [/\brequest_key\b/g, '--key'],
  [/\bfile_path\b/g, 'FILE'],
];

export function cliWording(message: string): string {
  return CLI_WORDING.reduce((m, [pattern, replacement]) => m.replace(pattern, replacement), message);
}
