import { GLOBAL_OPTIONS, UsageError, commandHelp, pad, resolveCommand, type CommandSpec, type GroupEntry } from '../framework.js';
import { packageVersion } from '../../package.js';

export function topHelp(groups: readonly GroupEntry[]): string {
  const globals = Object.entries(GLOBAL_OPTIONS).map(([n, o]) => `  ${pad(`${o.short ? `-${o.short}, ` : ''}--${n}${o.type === 'string' ? ` ${o.value}` : ''}`, 22)}${o.description}`);
  const lines = [
    `Syntheo ${packageVersion()}: a local-first meeting memory for AI assistants.`,
    '',
    'Usage: syntheo <command> [options]',
    '       syntheo help <command>',
    '',
    'Commands:',
    ...groups.map((g) => `  ${pad(g.name, 14)}${g.summary}`),
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
    if (ctx.positionals.length === 0) return { data: null, text: topHelp(ctx.groups) };
    const found = await resolveCommand(ctx.groups, ctx.positionals, 'syntheo help');
    if (found.spec && found.spec.name.split(' ').length < ctx.positionals.length) {
      throw new UsageError(`\`${found.spec.name}\` has no subcommand "${ctx.positionals[found.spec.name.split(' ').length]}". Run \`syntheo help ${found.spec.name}\`.`);
    }
    return { data: null, text: found.spec ? commandHelp(found.spec) : groupHelp(found.group, found.specs) };
  },
};

export const commands: CommandSpec[] = [help];
