import { GROUPS } from './commands/index.js';
import {
  EXIT,
  GLOBAL_OPTIONS,
  cliWording,
  UsageError,
  commandHelp,
  errorCode,
  errorEnvelope,
  exitCodeFor,
  pad,
  parseCommandArgs,
  successEnvelope,
  optString,
  type CommandContext,
  type CommandSpec,
} from './framework.js';
import { isSyntheoError, toSyntheoError } from '../errors.js';
import { packageVersion } from '../package.js';

export async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  try {
    if (argv.includes('--version') || argv.includes('-V')) {
      process.stdout.write(json ? `${JSON.stringify({ schema_version: 1, command: 'version', data: { version: packageVersion() } })}\n` : `${packageVersion()}\n`);
      return EXIT.ok;
    }
    const words = commandWords(argv);
    const groupName = words[0];
    if (groupName === undefined) {
      process.stdout.write(`${topHelp()}\n`);
      return argv.includes('--help') || argv.includes('-h') ? EXIT.ok : EXIT.usage;
    }
    const group = GROUPS.find((g) => g.name === groupName);
    if (!group) throw new UsageError(`Unknown command "${groupName}". Run \`syntheo --help\` for the list.`);
    const specs = await group.load();
    const spec = pickCommand(specs, words);
    if (!spec) {
      const help = groupHelp(group.name, group.summary, specs);
      if (argv.includes('--help') || argv.includes('-h')) {
        process.stdout.write(`${help}\n`);
        return EXIT.ok;
      }
      const verb = words[1];
      throw new UsageError(verb ? `Unknown command "${group.name} ${verb}".\n\n${help}` : `Missing a command after "${group.name}".\n\n${help}`);
    }
    return await runCommand(spec, stripCommandWords(argv, spec.name), json);
  } catch (error) {
    return report(error, json);
  }
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

/** The longest command name that the command words start with. */
function pickCommand(specs: CommandSpec[], words: string[]): CommandSpec | undefined {
  const sorted = [...specs].sort((a, b) => b.name.split(' ').length - a.name.split(' ').length);
  return sorted.find((s) => s.name.split(' ').every((w, i) => words[i] === w));
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
  let parsed;
  try {
    parsed = parseCommandArgs(spec, argv);
  } catch (error) {
    if (error instanceof UsageError && !json) error.message = `${error.message}\n\n${commandHelp(spec)}`;
    throw error;
  }
  if (parsed.options.help) {
    process.stdout.write(`${commandHelp(spec)}\n`);
    return EXIT.ok;
  }
  const { createLogger, resolveLogLevel } = await import('../log.js');
  const logLevelFlag = optString(parsed.options, 'log-level');
  let level;
  try {
    level = resolveLogLevel(logLevelFlag);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const logger = createLogger(level);
  const { openDatabase, resolveDbPath } = await import('../db/open.js');
  const dbFlag = optString(parsed.options, 'db');
  const opened: { close(): void }[] = [];
  const ctx: CommandContext = {
    command: spec.name,
    options: parsed.options,
    positionals: parsed.positionals,
    global: { db: dbFlag, json, logLevel: logLevelFlag },
    json,
    logger,
    tty: Boolean(process.stdout.isTTY) && !json,
    dbPath: () => resolveDbPath(dbFlag),
    openDb: ({ create }) => {
      const db = openDatabase(resolveDbPath(dbFlag), { create });
      opened.push(db);
      return db;
    },
    print: (line) => {
      if (!json) process.stdout.write(`${line}\n`);
    },
  };
  try {
    const result = await spec.run(ctx);
    if (result) {
      if (json) process.stdout.write(`${successEnvelope(spec.name, result)}\n`);
      // text '' means the command already wrote what it had to say (live progress, a child process).
      else if (result.text !== '') process.stdout.write(`${result.text ?? JSON.stringify(result.data, null, 2)}\n`);
      return result.exitCode ?? EXIT.ok;
    }
    return EXIT.ok;
  } finally {
    for (const db of opened) db.close();
  }
}

function report(error: unknown, json: boolean): number {
  const known = error instanceof UsageError || isSyntheoError(error);
  const shown = known ? (error as Error) : toSyntheoError(error);
  const exitCode = exitCodeFor(shown);
  if (isSyntheoError(shown)) shown.message = cliWording(shown.message);
  if (json) process.stdout.write(`${errorEnvelope(errorCode(shown), shown.message, exitCode)}\n`);
  else process.stderr.write(`syntheo: ${shown.message}\n`);
  if (process.env.SYNTHEO_DEBUG) {
    // The underlying error (SQLite, I/O), never shown by default.
    for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) process.stderr.write(`${(e as Error)?.stack ?? String(e)}\n`);
  }
  return exitCode;
}

function topHelp(): string {
  const lines = [
    `Syntheo ${packageVersion()}: a local-first meeting memory for AI assistants.`,
    '',
    'Usage: syntheo <command> [options]',
    '',
    'Commands:',
    ...GROUPS.map((g) => `  ${pad(g.name, 14)}${g.summary}`),
    '',
    'Global options:',
    ...Object.entries(GLOBAL_OPTIONS).map(([n, o]) => `  ${pad(`--${n}${o.type === 'string' ? ` ${o.value}` : ''}`, 22)}${o.description}`),
    `  ${pad('-V, --version', 22)}Print the version`,
    '',
    'Exit codes: 0 ok, 1 failed, 2 not found, 3 no database, 4 export target exists, 64 usage error.',
    'Run `syntheo <command> --help` for a command\'s options and examples.',
  ];
  return lines.join('\n');
}

function groupHelp(name: string, summary: string, specs: CommandSpec[]): string {
  return [`Usage: syntheo ${name} <command> [options]`, '', summary, '', 'Commands:', ...specs.map((s) => `  ${pad(s.name, 22)}${s.summary}`), '', `Run \`syntheo ${name} <command> --help\` for details.`].join('\n');
}
