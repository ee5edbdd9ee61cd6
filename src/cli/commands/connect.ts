import { spawnSync } from 'node:child_process';
import { constants, copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError, optBool, optString, type CommandContext, type CommandResult, type CommandSpec } from '../framework.js';
import { writeFileAtomic } from '../files.js';
import { SyntheoError } from '../../errors.js';
import { currentInstallation } from '../../platform/installation.js';
import { currentPlatform } from '../../platform/paths.js';
import { shellLine } from '../../platform/service.js';
import { findProgram } from '../../platform/which.js';
import {
  CLIENTS,
  CLIENT_TITLES,
  ConfigFileError,
  claudeCodeAdd,
  clientConfigPath,
  mergeServer,
  serverEntry,
  serversKey,
  snippet,
  type ClientName,
} from '../../platform/clients.js';

// `syntheo connect <client>`: the exact configuration for this installation, printed or merged in.

/** Client config files are a few KB; anything this big is not one. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;
const CLAUDE_TIMEOUT_MS = 30_000;

function serverName(ctx: CommandContext): string {
  const name = optString(ctx.options, 'name') ?? 'syntheo';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) throw new UsageError(`--name must be 1 to 64 letters, digits, "-" or "_", got "${name}".`);
  return name;
}

/** The database to name in the config: only when one was chosen (--db or SYNTHEO_DB); else the server finds the default itself. */
function chosenDb(ctx: CommandContext): string | undefined {
  return ctx.global.db !== undefined || process.env.SYNTHEO_DB ? ctx.location() : undefined;
}

/** A dated copy beside the file, never overwriting an earlier one. */
function backup(file: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  for (let i = 0; ; i++) {
    const copy = `${file}.${stamp}${i ? `-${i}` : ''}.bak`;
    try {
      copyFileSync(file, copy, constants.COPYFILE_EXCL);
      return copy;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || i >= 100) throw error;
    }
  }
}

function writeConfig(client: ClientName, file: string, name: string, entry: ReturnType<typeof serverEntry>): CommandResult {
  // A config symlinked from a dotfiles folder is edited where it lives; the link stays.
  const target = existsSync(file) ? realpathSync(file) : file;
  let text = '';
  if (existsSync(target)) {
    const size = statSync(target).size;
    if (size > MAX_CONFIG_BYTES) throw new SyntheoError('invalid', `${target} is ${size} bytes, too large for an MCP client config; not touched.`);
    text = readFileSync(target, 'utf8');
  }
  let merged;
  try {
    merged = mergeServer(text, serversKey(client), name, entry, target);
  } catch (error) {
    if (error instanceof ConfigFileError) throw new SyntheoError('invalid', error.message);
    throw error;
  }
  const data = { client, file: target, server: name, change: merged.change, backup: null as string | null, entry };
  if (merged.change === 'unchanged') return { data, text: `${CLIENT_TITLES[client]} already has "${name}" as this installation in ${target}: nothing changed.` };
  if (existsSync(target)) data.backup = backup(target);
  else mkdirSync(dirname(target), { recursive: true });
  writeFileAtomic(target, merged.text, { force: true });
  const lines = [
    `${merged.change === 'added' ? 'Added' : 'Updated'} "${name}" in ${target}${data.backup ? ` (the previous file is ${data.backup})` : ''}.`,
    `Restart ${CLIENT_TITLES[client]} (or reload its MCP servers) to use it.`,
  ];
  return { data, text: lines.join('\n') };
}

function claudeCode(ctx: CommandContext, name: string, write: boolean): CommandResult {
  const inst = currentInstallation();
  const add = claudeCodeAdd(name, inst, chosenDb(ctx));
  const line = shellLine(add, process.platform);
  if (!write) return { data: { client: 'claude-code', command: add }, text: ['Run this (Claude Code keeps its servers itself):', '', `  ${line}`, '', 'or `syntheo connect claude-code --write` to run it now.'].join('\n') };
  const claude = findProgram('claude');
  if (claude === null) throw new SyntheoError('unavailable', `\`claude\` (Claude Code) is not on PATH. Install Claude Code, or run this where it is:\n  ${line}`);
  const run = (argv: string[]) => spawnSync(claude, argv.slice(1), { encoding: 'utf8', timeout: CLAUDE_TIMEOUT_MS, maxBuffer: 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
  // `add` refuses a name that exists: remove it first (an error when it is not there is expected).
  run(['claude', 'mcp', 'remove', '--scope', 'user', name]);
  const r = run(add);
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().slice(0, 4000);
  if (r.error || r.status !== 0) throw new SyntheoError('unavailable', `\`${line}\` failed (${r.error ? r.error.message : `exit ${r.status}`})${output ? `: ${output}` : '.'}`);
  return { data: { client: 'claude-code', command: add, output }, text: `Ran: ${line}${output ? `\n${output}` : ''}` };
}

function connect(client: ClientName): CommandSpec {
  const file = clientConfigPath(client, currentPlatform());
  return {
    name: `connect ${client}`,
    summary: `Configure ${CLIENT_TITLES[client]} to start \`syntheo mcp\` from this installation`,
    description: [
      `Print the ${CLIENT_TITLES[client]} configuration for this installation: absolute paths to this Node and to Syntheo's`,
      "CLI, so it works whatever the client's PATH (and --db when you chose a database).",
      client === 'claude-code'
        ? 'Claude Code keeps its servers itself: this prints `claude mcp add`; --write runs it (replacing an earlier "syntheo").'
        : `--write merges it into ${file} (a dated .bak copy first, written atomically;\nother servers, keys and comments are kept; running it twice changes nothing).`,
    ].join('\n'),
    options: {
      write: { type: 'boolean', description: client === 'claude-code' ? 'Run `claude mcp add` now' : 'Merge it into the config file' },
      name: { type: 'string', value: 'NAME', description: 'Server name in the client (default syntheo); use another for a second database' },
    },
    examples: [`syntheo connect ${client}`, `syntheo connect ${client} --write`, `syntheo --db ~/work.db connect ${client} --name syntheo-work --write`],
    run(ctx) {
      const name = serverName(ctx);
      const write = optBool(ctx.options, 'write');
      if (client === 'claude-code') return claudeCode(ctx, name, write);
      const entry = serverEntry(client, currentInstallation(), chosenDb(ctx));
      if (write) return writeConfig(client, file!, name, entry);
      return {
        data: { client, file, server: name, entry, snippet: JSON.parse(snippet(client, name, entry)) as unknown },
        text: [`${CLIENT_TITLES[client]}: add this to ${file}`, `(or run \`syntheo connect ${client} --write\` to merge it in):`, '', snippet(client, name, entry)].join('\n'),
      };
    },
  };
}

export const commands: CommandSpec[] = CLIENTS.map(connect);
