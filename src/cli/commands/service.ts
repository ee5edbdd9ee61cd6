import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { EXIT, optBool, type CommandContext, type CommandSpec } from '../framework.js';
import { writeFileAtomic } from '../files.js';
import { currentInstallation } from '../../platform/installation.js';
import { currentPlatform } from '../../platform/paths.js';
import { servicePlan, shellLine, type ServicePlan } from '../../platform/service.js';
import { findProgram } from '../../platform/which.js';

// `syntheo service install|uninstall|status`: the worker as a per-user background service.

/** A service manager command gets this long (systemctl may wait for the unit to start). */
const MANAGER_TIMEOUT_MS = 30_000;

function plan(ctx: CommandContext): ServicePlan {
  const where = currentPlatform();
  return servicePlan(where, { ...currentInstallation(), db: ctx.location(), path: where.env.PATH }, process.getuid?.());
}

function encode(p: ServicePlan): Buffer {
  return p.encoding === 'utf16le' ? Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(p.contents, 'utf16le')]) : Buffer.from(p.contents, 'utf8');
}

interface Ran {
  command: string;
  exit_code: number | null;
  output: string;
}

/** Runs a service manager command (bounded in time and output); null when the manager is not on PATH. */
function runManager(argv: string[]): Ran | null {
  const program = findProgram(argv[0]!);
  if (program === null) return null;
  const r = spawnSync(program, argv.slice(1), { encoding: 'utf8', timeout: MANAGER_TIMEOUT_MS, maxBuffer: 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().slice(0, 4000);
  return { command: shellLine(argv, process.platform), exit_code: r.error ? null : r.status, output: r.error ? `${r.error.message}` : output };
}

/** Runs the commands in order until one fails; says which were not run (and how to run them). */
function runAll(commands: string[][], noRun: boolean): { ran: Ran[]; todo: string[] } {
  const ran: Ran[] = [];
  for (let i = 0; i < commands.length; i++) {
    const r = noRun ? null : runManager(commands[i]!);
    if (r === null) return { ran, todo: commands.slice(i).map((c) => shellLine(c, process.platform)) };
    ran.push(r);
    if (r.exit_code !== 0) return { ran, todo: commands.slice(i).map((c) => shellLine(c, process.platform)) };
  }
  return { ran, todo: [] };
}

function ranText(ran: Ran[]): string[] {
  return ran.map((r) => `  $ ${r.command}  (exit ${r.exit_code ?? 'timeout'})${r.output ? `\n    ${r.output.replace(/\n/g, '\n    ')}` : ''}`);
}

const NO_START = { type: 'boolean' as const, description: 'Only write (or remove) the file; print the service manager commands instead of running them' };
const DRY_RUN = { type: 'boolean' as const, description: 'Print the file and the commands; change nothing' };

const install: CommandSpec = {
  name: 'service install',
  summary: 'Run the worker in the background from login (systemd user unit, launchd agent, Task Scheduler)',
  description: [
    'Write a per-user service that starts `syntheo worker` when you log in and restarts it if it crashes:',
    'a systemd user unit (Linux, ~/.config/systemd/user/syntheo-worker.service), a launchd LaunchAgent',
    '(macOS, ~/Library/LaunchAgents/studio.syntheo.worker.plist, logs in ~/Library/Logs/Syntheo) or a Task',
    'Scheduler task at logon (Windows, "Syntheo Worker"). It runs this Node and this installation with',
    'absolute paths, on the database chosen now (--db, SYNTHEO_DB or the default), with the current PATH.',
    'Then it enables and starts it with systemctl --user / launchctl / schtasks when they are there, or prints',
    'the commands. Run it again after moving Syntheo or changing Node: the file is replaced.',
  ].join('\n'),
  options: { 'dry-run': DRY_RUN, 'no-start': NO_START },
  examples: ['syntheo service install --dry-run', 'syntheo service install', 'syntheo service install --db ~/meetings/syntheo.db'],
  run(ctx) {
    const p = plan(ctx);
    const dryRun = optBool(ctx.options, 'dry-run');
    const commands = p.enable.map((c) => shellLine(c, process.platform));
    if (dryRun) {
      return {
        data: { dry_run: true, kind: p.kind, file: p.file, contents: p.contents, commands },
        text: [`Would write ${p.file}:`, '', p.contents.trimEnd(), '', 'Then run:', ...commands.map((c) => `  ${c}`)].join('\n'),
      };
    }
    const replaced = existsSync(p.file);
    for (const dir of [dirname(p.file), ...p.dirs]) mkdirSync(dir, { recursive: true });
    writeFileAtomic(p.file, encode(p), { force: true });
    const noStart = optBool(ctx.options, 'no-start');
    const stopped = replaced && !noStart ? p.stopOld.map(runManager).filter((r): r is Ran => r !== null) : [];
    const { ran, todo } = runAll(p.enable, noStart);
    const failed = ran.some((r) => r.exit_code !== 0);
    const lines = [`${replaced ? 'Replaced' : 'Wrote'} ${p.file}`, ...ranText([...stopped, ...ran])];
    if (todo.length) lines.push(failed ? 'Then run, once the problem above is fixed:' : 'To enable and start it, run:', ...todo.map((c) => `  ${c}`));
    else lines.push('The worker now starts when you log in. Check it with `syntheo service status` or `syntheo doctor`.');
    if (p.kind === 'systemd') lines.push('API keys, if your servers need them: ~/.config/syntheo/worker.env (KEY=value lines, chmod 600).');
    return { data: { kind: p.kind, file: p.file, replaced, ran: [...stopped, ...ran], todo }, text: lines.join('\n'), exitCode: failed ? EXIT.failed : EXIT.ok };
  },
};

const uninstall: CommandSpec = {
  name: 'service uninstall',
  summary: 'Stop the background worker and remove its service',
  description: 'Stop and disable the service written by `syntheo service install`, then remove its file. Nothing else is touched (the database stays).',
  options: { 'dry-run': DRY_RUN, 'no-start': { ...NO_START, description: 'Only remove the file; print the commands that stop and disable the service' } },
  examples: ['syntheo service uninstall'],
  run(ctx) {
    const p = plan(ctx);
    const commands = [...p.disable, ...p.afterRemove].map((c) => shellLine(c, process.platform));
    const installed = existsSync(p.file);
    if (optBool(ctx.options, 'dry-run')) {
      return { data: { dry_run: true, kind: p.kind, file: p.file, installed, commands }, text: [`Would run:`, ...commands.map((c) => `  ${c}`), `and remove ${p.file}`].join('\n') };
    }
    if (!installed) return { data: { kind: p.kind, file: p.file, installed: false, ran: [], todo: [] }, text: `Not installed (${p.file} does not exist).` };
    const noRun = optBool(ctx.options, 'no-start');
    // Stopping fails when the service is not loaded: the file is removed all the same.
    const stop = runAll(p.disable, noRun);
    rmSync(p.file, { force: true });
    const after = runAll(p.afterRemove, noRun);
    const ran = [...stop.ran, ...after.ran];
    const todo = [...stop.todo, ...after.todo];
    const lines = [`Removed ${p.file}`, ...ranText(ran)];
    if (todo.length) lines.push('If the service is still running, run:', ...todo.map((c) => `  ${c}`));
    return { data: { kind: p.kind, file: p.file, installed: true, ran, todo }, text: lines.join('\n') };
  },
};

const status: CommandSpec = {
  name: 'service status',
  summary: 'Is the background worker service installed and running?',
  description: "Say whether the service file is installed and matches this installation (Node, script and database), and what the service manager reports. Exit 0 when installed and current, 1 otherwise.",
  examples: ['syntheo service status', 'syntheo --json service status'],
  run(ctx) {
    const p = plan(ctx);
    const installed = existsSync(p.file);
    const current = installed && readFileSync(p.file).equals(encode(p));
    const manager = installed ? runManager(p.status) : null;
    const lines = [
      installed ? `Installed: ${p.file}` : `Not installed (${p.file} does not exist). Run \`syntheo service install\`.`,
      ...(installed ? [current ? 'Up to date with this installation.' : 'Differs from what `syntheo service install` would write now (another Node, script, database or PATH): run it again.'] : []),
      ...(manager ? ranText([manager]) : installed ? [`(${p.status[0]} is not on PATH: the service state is unknown)`] : []),
    ];
    return { data: { kind: p.kind, file: p.file, installed, current, manager }, text: lines.join('\n'), exitCode: installed && current ? EXIT.ok : EXIT.failed };
  },
};

export const commands: CommandSpec[] = [install, uninstall, status];
