import { GROUPS, type GroupEntry } from './index.js';
import { GLOBAL_OPTIONS, UsageError, closest, commandHelp, pad, type CommandSpec } from '../framework.js';
import { packageVersion } from '../../package.js';

/** What command words name: one command, or a group of them (`syntheo meetings`). */
export type Resolved = { spec: CommandSpec; group: GroupEntry } | { spec?: undefined; group: GroupEntry; specs: CommandSpec[] };

/**
 * The command the words name, by the longest match; a usage error naming the mistake and the closest valid
 * command ("did you mean meetings list?") otherwise. `words` are the command words only (no flags).
 */
export async function resolveCommand(words: readonly string[], how = 'syntheo'): Promise<Resolved> {
  const [first, verb] = words;
  const group = GROUPS.find((g) => g.name === first);
  if (!group) {
    const guess = closest(first!, GROUPS.map((g) => g.name));
    let suggestion = guess;
    if (guess && verb !== undefined) {
      const specs = await GROUPS.find((g) => g.name === guess)!.load();
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

export function topHelp(): string {
  const globals = Object.entries(GLOBAL_OPTIONS).map(([n, o]) => `  ${pad(`${o.short ? `-${o.short}, ` : ''}--${n}${o.type === 'string' ? ` ${o.value}` : ''}`, 22)}${o.description}`);
  const lines = [
    `Syntheo ${packageVersion()}: a local-first meeting memory for AI assistants.`,
    '',
    'Usage: syntheo <command> [options]',
    '       syntheo help <command>',
    '',
    'Commands:',
    ...GROUPS.map((g) => `  ${pad(g.name, 14)}${g.summary}`),
    '',
    'Global options (each command\'s help lists those that act on it):',
    ...globals,
    `  ${pad('-V, --version', 22)}Print the version`,
    '',
    'Exit codes: 0 ok, 1 failed, 2 not found, 3 no database, 4 export target exists, 64 usage error.',
    "Run `syntheo help <command>` (or `syntheo <command> --help`) for a command's options and examples.",
  ];
  return lines.join('\n');
}

export function groupHelp(group: GroupEntry, specs: CommandSpec[]): string {
  return [
    `Usage: syntheo ${group.name} <command> [options]`,
    '',
    group.summary,
    '',
    'Commands:',
    ...specs.map((s) => `  ${pad(s.name, 22)}${s.summary}`),
    '',
    `Run \`syntheo help ${group.name} <command>\` for details.`,
  ].join('\n');
}

const help: CommandSpec = {
  name: 'help',
  summary: 'Show help for a command',
  description: 'Show the help of a command or a group of commands, or the list of commands.',
  positionals: [{ name: 'command', variadic: true, description: 'A command, e.g. `meetings list`, or a group, e.g. `meetings`' }],
  globals: [],
  examples: ['syntheo help', 'syntheo help meetings', 'syntheo help meetings list'],
  async run(ctx) {
    if (ctx.positionals.length === 0) return { data: null, text: topHelp() };
    const found = await resolveCommand(ctx.positionals, 'syntheo help');
    if (found.spec && found.spec.name.split(' ').length < ctx.positionals.length) {
      throw new UsageError(`\`${found.spec.name}\` has no subcommand "${ctx.positionals[found.spec.name.split(' ').length]}". Run \`syntheo help ${found.spec.name}\`.`);
    }
    return { data: null, text: found.spec ? commandHelp(found.spec) : groupHelp(found.group, found.specs) };
  },
};

export const commands: CommandSpec[] = [help];
