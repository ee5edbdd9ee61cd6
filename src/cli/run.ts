import {
  EXIT,
  GLOBAL_NAMES,
  GLOBAL_OPTIONS,
  UsageError,
  closest,
  commandHelp,
  errorCode,
  errorEnvelope,
  exitCodeFor,
  parseCommandArgs,
  resolveCommand,
  successEnvelope,
  optString,
  type CommandContext,
  type CommandSpec,
} from './framework.js';
import { toTerminal, wantsColour, canRedraw } from './terminal.js';
import { GROUPS } from './commands/index.js';
import { isSyntheoError, toSyntheoError } from '../errors.js';
import { cliMessage } from './errors.js';
import { packageVersion } from '../package.js';
import type { Store } from '../db/store.js';
import { schemaNoticeText } from '../db/model/schema-notice.js';

export async function main(argv: string[]): Promise<number> {
  let json = argv.includes('--json');
  try {
    if (argv.includes('--version') || argv.includes('-V')) {
      process.stdout.write(json ? `${JSON.stringify({ schema_version: 1, command: 'version', data: { version: packageVersion() } })}\n` : `${packageVersion()}\n`);
      return EXIT.ok;
    }
    const words = commandWords(argv);
    if (words.length === 0) return await topLevel(argv);
    const found = await resolveCommand(GROUPS, words);
    if (!found.spec) {
      const { groupHelp } = await import('./commands/help.js');
      const help = groupHelp(found.group, found.specs);
      if (argv.includes('--help') || argv.includes('-h')) {
        process.stdout.write(`${help}\n`);
        return EXIT.ok;
      }
      throw new UsageError(`Missing a command after "${found.group.name}".\n\n${help}`);
    }
    // A command that has no JSON output (mcp, worker...) reports even a stray --json as text on stderr.
    if (!(found.spec.globals ?? GLOBAL_NAMES).includes('json')) json = false;
    return await runCommand(found.spec, stripCommandWords(argv, found.spec.name), json);
  } catch (error) {
    return report(error, json);
  }
}

/** `syntheo` with flags and no command: help, or a one-line usage error naming the unknown flag. */
async function topLevel(argv: string[]): Promise<number> {
  const flags = argv.filter((a) => a.startsWith('-') && a !== '-');
  const known = new Set(Object.entries(GLOBAL_OPTIONS).flatMap(([n, o]) => [`--${n}`, ...(o.short ? [`-${o.short}`] : [])]));
  const unknown = flags.find((f) => f !== '--' && !known.has(f.replace(/=.*$/, '')));
  if (unknown) {
    const guess = closest(unknown.replace(/=.*$/, ''), [...known, '--version', '-V']);
    const named = guess === '-V' ? '-V (--version)' : guess === '-h' ? '-h (--help)' : guess;
    throw new UsageError(`Unknown option ${unknown}${named ? `: did you mean ${named}?` : '.'} Run \`syntheo --help\` for the options.`);
  }
  const { topHelp } = await import('./commands/help.js');
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${topHelp(GROUPS)}\n`);
    return EXIT.ok;
  }
  // Bare `syntheo` (or only global options): the help, as a usage error.
  process.stdout.write(`${topHelp(GROUPS)}\n`);
  return EXIT.usage;
}

/** Global options that take a value (`--db PATH`): their value is never a command word. */
const GLOBAL_VALUE_FLAGS = new Set(Object.entries(GLOBAL_OPTIONS).flatMap(([name, o]) => (o.type === 'string' ? [`--${name}`] : [])));

/** The words that are not flags nor values of the global string options (`--db meetings` names a file). */
function commandWords(argv: string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (GLOBAL_VALUE_FLAGS.has(a)) {
      i++;
      continue;
    }
    if (!a.startsWith('-') || a === '-') words.push(a);
  }
  return words;
}

/** Removes the command's own words (first occurrences, in order), leaving flags and positionals. */
function stripCommandWords(argv: string[], name: string): string[] {
  const rest = [...argv];
  let from = 0;
  for (const word of name.split(' ')) {
    let i = from;
    while (i < rest.length) {
      const a = rest[i]!;
      if (GLOBAL_VALUE_FLAGS.has(a)) {
        i += 2;
        continue;
      }
      if (a === word) break;
      i++;
    }
    if (i < rest.length) {
      rest.splice(i, 1);
      from = i;
    }
  }
  return rest;
}

async function runCommand(spec: CommandSpec, argv: string[], json: boolean): Promise<number> {
  const parsed = parseCommandArgs(spec, argv);
  if (parsed.options.help) {
    process.stdout.write(`${commandHelp(spec)}\n`);
    return EXIT.ok;
  }
  const { createLogger, resolveLogLevel } = await import('../log.js');
  const logLevelFlag = optString(parsed.options, 'log-level');
  let level;
  try {
    level = resolveLogLevel(logLevelFlag, spec.defaultLogLevel);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  // --no-color wins over --color when both are given.
  const colourFlag = parsed.options['no-color'] === true ? false : parsed.options.color === true ? true : undefined;
  const logger = createLogger(level, spec.logName ?? 'syntheo', process.env, logFormat(colourFlag));
  const { openStore, resolveDbLocation } = await import('../db/engine.js');
  const dbFlag = optString(parsed.options, 'db');
  const opened: Store[] = [];
  const ctx: CommandContext = {
    groups: GROUPS,
    command: spec.name,
    options: parsed.options,
    positionals: parsed.positionals,
    global: { db: dbFlag, json, logLevel: logLevelFlag, colour: colourFlag },
    json,
    logger,
    logLevel: level,
    tty: Boolean(process.stdout.isTTY) && !json,
    colour: !json && wantsColour(process.stdout, process.env, colourFlag),
    live: !json && canRedraw(process.stdout),
    location: () => resolveDbLocation(dbFlag),
    store: async ({ create }) => {
      const store = await openStore(resolveDbLocation(dbFlag), { create, onSchema: ctx.onSchema });
      opened.push(store);
      return store;
    },
    print: (line) => {
      if (!json) process.stdout.write(toTerminal(`${line}\n`, ctx.colour));
    },
    write: (text) => {
      if (!json) process.stdout.write(toTerminal(text, ctx.colour));
    },
    warn: (line) => {
      process.stderr.write(toTerminal(`${line}\n`, wantsColour(process.stderr, process.env, colourFlag)));
    },
    onSchema: (notice) => ctx.warn(schemaNoticeText(notice)),
  };
  try {
    const result = await spec.run(ctx);
    if (result) {
      if (json) process.stdout.write(`${successEnvelope(spec.name, result)}\n`);
      // text '' means the command already wrote what it had to say (live progress, a child process).
      else if (result.text !== '') ctx.write(`${result.text ?? JSON.stringify(result.data, null, 2)}\n`);
      return result.exitCode ?? EXIT.ok;
    }
    return EXIT.ok;
  } finally {
    for (const store of opened) await store.close();
  }
}

function report(error: unknown, json: boolean): number {
  const known = error instanceof UsageError || isSyntheoError(error);
  const shown = known ? (error as Error) : toSyntheoError(error);
  const exitCode = exitCodeFor(shown);
  const message = isSyntheoError(shown) ? cliMessage(shown) : shown.message;
  if (json) process.stdout.write(`${errorEnvelope(errorCode(shown), message, exitCode)}\n`);
  else process.stderr.write(toTerminal(`syntheo: ${message}\n`, false));
  if (process.env.SYNTHEO_DEBUG) {
    // The underlying error (SQLite, I/O), never shown by default.
    for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) process.stderr.write(`${(e as Error)?.stack ?? String(e)}\n`);
  }
  return exitCode;
}

/** Pretty logs on a terminal's stderr (not under systemd, whose journal wants one JSON object a line). */
function logFormat(colourFlag: boolean | undefined): { pretty: boolean; colour: boolean } {
  const env = process.env;
  const managed = Boolean(env.INVOCATION_ID || env.JOURNAL_STREAM);
  const forced = env.SYNTHEO_LOG_FORMAT;
  const pretty = forced === 'pretty' ? true : forced === 'json' ? false : Boolean(process.stderr.isTTY) && !managed;
  return { pretty, colour: pretty && wantsColour(process.stderr, env, colourFlag) };
}
