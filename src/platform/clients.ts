import { applyEdits, modify, parseTree, findNodeAtLocation, getNodeValue, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { configHome, pathFor, type PlatformEnv } from './paths.js';
import type { Installation } from './installation.js';

// Where each MCP client keeps its servers, what Syntheo's entry looks like there, and merging that
// entry into an existing file (comments, formatting, other servers and keys kept as they are).

export const CLIENTS = ['claude-desktop', 'cursor', 'vscode', 'claude-code'] as const;
export type ClientName = (typeof CLIENTS)[number];

export const CLIENT_TITLES: Record<ClientName, string> = {
  'claude-desktop': 'Claude Desktop',
  cursor: 'Cursor',
  vscode: 'VS Code',
  'claude-code': 'Claude Code',
};

/** The user-level config file, or null for Claude Code (configured through its own `claude mcp add`). */
export function clientConfigPath(client: ClientName, where: PlatformEnv): string | null {
  const p = pathFor(where.platform);
  switch (client) {
    case 'claude-desktop':
      return p.join(configHome(where), 'Claude', 'claude_desktop_config.json');
    case 'cursor':
      return p.join(where.home, '.cursor', 'mcp.json');
    case 'vscode':
      // The user profile's mcp.json (VS Code 1.102+; "MCP: Open User Configuration").
      return p.join(configHome(where), 'Code', 'User', 'mcp.json');
    case 'claude-code':
      return null;
  }
}

/** The object that holds the servers: VS Code says `servers`, the others `mcpServers`. */
export function serversKey(client: ClientName): 'servers' | 'mcpServers' {
  return client === 'vscode' ? 'servers' : 'mcpServers';
}

export function mcpArgs(inst: Installation, db?: string): string[] {
  return [inst.script, 'mcp', ...(db === undefined ? [] : ['--db', db])];
}

export type ServerEntry = { type?: 'stdio'; command: string; args: string[] };

export function serverEntry(client: ClientName, inst: Installation, db?: string): ServerEntry {
  const entry = { command: inst.node, args: mcpArgs(inst, db) };
  return client === 'vscode' ? { type: 'stdio', ...entry } : entry;
}

/** The whole snippet to paste into an empty config file. */
export function snippet(client: ClientName, name: string, entry: ServerEntry): string {
  return JSON.stringify({ [serversKey(client)]: { [name]: entry } }, null, 2);
}

/** `claude mcp add` for this installation, for every project of this user. */
export function claudeCodeAdd(name: string, inst: Installation, db?: string): string[] {
  return ['claude', 'mcp', 'add', '--scope', 'user', name, '--', inst.node, ...mcpArgs(inst, db)];
}

export class ConfigFileError extends Error {
  override name = 'ConfigFileError';
}

const aJson = (type: string) => (type === 'array' || type === 'object' ? `an ${type}` : `a ${type}`);

function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split(/\r\n|\r|\n/);
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** How the file indents (first indented line), so an added entry looks like its neighbours. */
function indentation(text: string): { insertSpaces: boolean; tabSize: number } {
  const m = /\n([ \t]+)\S/.exec(text);
  if (m?.[1]?.startsWith('\t')) return { insertSpaces: false, tabSize: 1 };
  return { insertSpaces: true, tabSize: m?.[1] ? Math.min(m[1].length, 8) : 2 };
}

export type MergeChange = 'added' | 'updated' | 'unchanged';

/**
 * The config text with `name` set to `entry` under `key`, everything else byte for byte as it was.
 * JSON with comments and trailing commas (VS Code's mcp.json) is read and kept; a file that is not
 * JSON, or whose root or `key` is not an object, is refused with where and why.
 */
export function mergeServer(text: string, key: string, name: string, entry: ServerEntry, file: string): { text: string; change: MergeChange } {
  const source = text.trim() === '' ? '{}\n' : text;
  const errors: ParseError[] = [];
  const root = parseTree(source, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  if (errors.length > 0 || root === undefined) {
    const e = errors[0];
    throw new ConfigFileError(`${file} is not valid JSON (${e ? `${printParseErrorCode(e.error)} at ${lineColumn(source, e.offset)}` : 'empty'}). Fix it, or move it away to start a new one, then run this again.`);
  }
  if (root.type !== 'object') throw new ConfigFileError(`${file} holds ${aJson(root.type)}, not an object. Fix it, or move it away to start a new one, then run this again.`);
  const servers = findNodeAtLocation(root, [key]);
  if (servers !== undefined && servers.type !== 'object') throw new ConfigFileError(`"${key}" in ${file} is ${aJson(servers.type)}, not an object. Fix it, then run this again.`);
  const existing = findNodeAtLocation(root, [key, name]);
  if (existing !== undefined && sameJson(getNodeValue(existing), entry)) return { text, change: 'unchanged' };
  const eol = source.includes('\r\n') ? '\r\n' : '\n';
  const edits = modify(source, [key, name], entry, { formattingOptions: { ...indentation(source), eol } });
  let out = applyEdits(source, edits);
  if (!out.endsWith(eol) && text.trim() === '') out += eol;
  return { text: out, change: existing === undefined ? 'added' : 'updated' };
}
