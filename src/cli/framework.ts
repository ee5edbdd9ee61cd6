import { parseArgs } from 'node:util';
import type { Logger, LogLevel } from '../log.js';
import type { Store } from '../db/store.js';
import type { Pagination } from '../db/queries/types.js';
import type { OnSchemaNotice } from '../db/model/schema-notice.js';
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
  /** The global options that act on this command (default: all). Others are refused, and not shown in its help. */
  globals?: readonly GlobalName[];
  /** Log level when neither --log-level nor $SYNTHEO_LOG_LEVEL is given (default warn). */
  defaultLogLevel?: LogLevel;
  /** `name` on its log lines (default syntheo). */
  logName?: string;
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
  /** --color (true) or --no-color (false); undefined when neither was given. */
  colour?: boolean;
}

/**
 * One group of commands in the table (src/cli/commands/index.ts). Its module is imported only when one of
 * its commands runs. Declared here so that the framework never imports the table (no import cycle).
 */
export interface GroupEntry {
  name: string;
  summary: string;
  load(): Promise<CommandSpec[]>;
}

export interface CommandContext {
  /** The command table (src/cli/commands/index.ts), for the commands that list commands (help, completion). */
  readonly groups: readonly GroupEntry[];
  readonly command: string;
  readonly options: OptionValues;
  readonly positionals: string[];
  readonly global: GlobalOptions;
  readonly json: boolean;
  readonly logger: Logger;
  /** Whether stdout is a terminal (and not --json). */
  readonly tty: boolean;
  /** Whether human output on stdout is coloured (--color/--no-color, FORCE_COLOR, NO_COLOR, TERM, terminal). */
  readonly colour: boolean;
  /** Whether a live progress line may be redrawn in place on stdout (a terminal that is not TERM=dumb). */
  readonly live: boolean;
  /** The effective log level (flag, environment, else the command's default). */
  readonly logLevel: LogLevel;
  /**
   * The Store at `location()`, closed by the framework when the command ends; `create` for commands that
   * write (SPEC §1), else exit 3 when the database is missing.
   */
  store(options: { create: boolean }): Promise<Store>;
  /** Where the data is, from --db / SYNTHEO_DB / the platform's default: an SQLite file path or a PostgreSQL URL. */
  location(): string;
  /** Writes a line to stdout (human mode), made terminal-safe: for progress output of long commands. */
  print(line: string): void;
  /** Writes text to stdout as is but terminal-safe (human mode): live progress, content a command prints itself. */
  write(text: string): void;
  /** Writes a line to stderr, terminal-safe: a command's failure or warning. */
  warn(line: string): void;
  /** An upgrade of the database's schema, or a wait for another process's, as a line on stderr (store() passes it itself). */
  onSchema: OnSchemaNotice;
}

export const GLOBAL_NAMES = ['db', 'json', 'log-level', 'color', 'no-color'] as const;
export type GlobalName = (typeof GLOBAL_NAMES)[number];

/** Global options as shown on the top-level help; `log-level` says each command's own default in its help. */
export const GLOBAL_OPTIONS: Record<GlobalName | 'help', OptionSpec> = {
  db: { type: 'string', value: 'PATH', description: 'Database file (default: $SYNTHEO_DB, else syntheo.db in the data folder of this platform: ~/.local/share/syntheo, ~/Library/Application Support/Syntheo, %LOCALAPPDATA%\\Syntheo)' },
  json: { type: 'boolean', description: 'Print one JSON document: {"schema_version":1,"command",...,"data"} or {"schema_version":1,"error"}' },
  'log-level': { type: 'string', value: 'LEVEL', description: logLevelHelp('warn') },
  color: { type: 'boolean', description: 'Colour the output even when it is not a terminal (e.g. through less -R; also FORCE_COLOR=1)' },
  'no-color': { type: 'boolean', description: 'No colour (also NO_COLOR=1, TERM=dumb, or output not a terminal)' },
  help: { type: 'boolean', short: 'h', description: 'Show help' },
};

function logLevelHelp(fallback: LogLevel): string {
  return `Log level on stderr: fatal, error, warn, info, debug, trace, silent (default ${fallback}, or $SYNTHEO_LOG_LEVEL)`;
}

/** The options a command accepts: its own, the global ones that act on it, and -h. */
export function commandOptions(spec: CommandSpec): Record<string, OptionSpec> {
  const globals = spec.globals ?? GLOBAL_NAMES;
  const out: Record<string, OptionSpec> = { ...spec.options };
  for (const name of globals) out[name] = name === 'log-level' ? { ...GLOBAL_OPTIONS[name], description: logLevelHelp(spec.defaultLogLevel ?? 'warn') } : GLOBAL_OPTIONS[name];
  out.help = GLOBAL_OPTIONS.help;
  return out;
}

/** Something that looks like an option rather than a value (`-5` is a value). */
const OPTION_LIKE = /^(--.|-[A-Za-z])/;

export function parseCommandArgs(spec: CommandSpec, argv: string[]): { options: OptionValues; positionals: string[] } {
  const options = commandOptions(spec);
  const { tokens } = parseArgs({
    args: argv,
    options: Object.fromEntries(Object.entries(options).map(([name, o]) => [name, { type: o.type, ...(o.short ? { short: o.short } : {}) }])),
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const values: OptionValues = {};
  const positionals: string[] = [];
  for (const t of tokens) {
    if (t.kind === 'positional') positionals.push(t.value);
    if (t.kind !== 'option') continue;
    const o = options[t.name];
    if (!o) throw unknownOption(spec, t.rawName, options);
    if (o.type === 'boolean') {
      if (t.value !== undefined) throw new UsageError(`${t.rawName} takes no value (got "${t.value}").`);
      values[t.name] = true;
      continue;
    }
    if (t.value === undefined || (!t.inlineValue && OPTION_LIKE.test(t.value))) throw new UsageError(`${t.rawName} needs a value: ${t.rawName} ${o.value ?? 'VALUE'}.`);
    if (o.multiple) values[t.name] = [...((values[t.name] as string[] | undefined) ?? []), t.value];
    else values[t.name] = t.value;
  }
  if (values.help) return { options: values, positionals };
  const specs = spec.positionals ?? [];
  const required = specs.filter((p) => p.required).length;
  const variadic = specs.some((p) => p.variadic);
  if (positionals.length < required) throw new UsageError(`Missing ${specs[positionals.length]!.name.toUpperCase()}. Run \`syntheo help ${spec.name}\` for its usage.`);
  if (!variadic && positionals.length > specs.length) throw new UsageError(`Unexpected argument "${positionals[specs.length]}". Run \`syntheo help ${spec.name}\` for its usage.`);
  return { options: values, positionals };
}

function unknownOption(spec: CommandSpec, raw: string, options: Record<string, OptionSpec>): UsageError {
  const name = raw.replace(/^--?/, '');
  if ((GLOBAL_NAMES as readonly string[]).includes(name)) return new UsageError(`${raw} has no effect on \`syntheo ${spec.name}\`. Run \`syntheo help ${spec.name}\` for its options.`);
  const flags = Object.entries(options).flatMap(([n, o]) => [`--${n}`, ...(o.short ? [`-${o.short}`] : [])]);
  const guess = closest(raw, flags);
  return new UsageError(`Unknown option ${raw} for \`syntheo ${spec.name}\`${guess ? `: did you mean ${guess}?` : '.'} Run \`syntheo help ${spec.name}\` for its options.`);
}

/**
 * The candidate closest to a mistyped word, if any is close enough to be what was meant: a different case,
 * a prefix, or an edit distance (with transpositions) of at most a third of the word.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  const exactCase = candidates.find((c) => c.toLowerCase() === lower);
  if (exactCase) return exactCase;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = c.startsWith(word) && word.replace(/^-+/, '').length >= 2 ? 0.5 : distance(lower, c.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return bestDistance <= Math.max(1, Math.floor(word.replace(/^-+/, '').length / 3)) ? best : undefined;
}

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions); inputs are short words. */
function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return Infinity;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
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
  for (const [name, o] of Object.entries(commandOptions(spec))) {
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

/** What command words name: one command, or a group of them (`syntheo meetings`). */
export type Resolved = { spec: CommandSpec; group: GroupEntry } | { spec?: undefined; group: GroupEntry; specs: CommandSpec[] };

/**
 * The command the words name, by the longest match; a usage error naming the mistake and the closest valid
 * command ("did you mean meetings list?") otherwise. `words` are the command words only (no flags).
 */
export async function resolveCommand(groups: readonly GroupEntry[], words: readonly string[], how = 'syntheo'): Promise<Resolved> {
  const [first, verb] = words;
  const group = groups.find((g) => g.name === first);
  if (!group) {
    const guess = closest(first!, groups.map((g) => g.name));
    let suggestion = guess;
    if (guess && verb !== undefined) {
      const specs = await groups.find((g) => g.name === guess)!.load();
      const verbs = specs.filter((s) => s.name.includes(' ')).map((s) => s.name.split(' ')[1]!);
      const v = verbs.includes(verb) ? verb : closest(verb, verbs);
      if (v) suggestion = `${guess} ${v}`;
    }
    throw new UsageError(`Unknown command "${first}"${suggestion ? `: did you mean \`${how} ${suggestion}\`?` : '.'} Run \`syntheo help\` for the list.`);
  }
  const specs = await group.load();
  const sorted = [...specs].sort((a, b) => b.name.split(' ').length - a.name.split(' ').length);
  const spec = sorted.find((s) => s.name.split(' ').every((w, i) => words[i] === w));
  if (spec) return { spec, group };
  if (verb === undefined) return { group, specs };
  const guess = closest(verb, specs.map((s) => s.name.split(' ')[1] ?? ''));
  throw new UsageError(
    `Unknown command "${group.name} ${verb}"${guess ? `: did you mean \`${how} ${group.name} ${guess}\`?` : '.'} Run \`syntheo help ${group.name}\` for its commands.`,
  );
}
