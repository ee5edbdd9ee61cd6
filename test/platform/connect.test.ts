import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { clientConfigPath } from '../../src/platform/clients.js';
import { CLI, run } from '../cli/cli.js';
import { tempDir } from '../support/db.js';

const tmp = tempDir('syntheo-connect-');
afterAll(tmp.cleanup);

let n = 0;
function home(): { home: string; env: Record<string, string | undefined> } {
  const h = join(tmp.dir, `home-${++n}`);
  mkdirSync(h);
  return { home: h, env: { HOME: h, XDG_CONFIG_HOME: undefined, SYNTHEO_DB: undefined } };
}

function put(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

const backups = (file: string) => readdirSync(dirname(file)).filter((f) => f.endsWith('.bak'));

// Shaped like the files these clients write (other servers, their env, the clients' own keys).
const CLAUDE_DESKTOP = `{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/ada/Desktop"],
      "env": { "DEBUG": "1" }
    }
  },
  "globalShortcut": "Alt+Space",
  "preferences": { "quickEntryDictationShortcut": "capslock" }
}
`;

const VSCODE = `// User MCP servers
{
\t"servers": {
\t\t// the GitHub server
\t\t"github": {
\t\t\t"type": "http",
\t\t\t"url": "https://api.githubcopilot.com/mcp/",
\t\t},
\t},
\t"inputs": [
\t\t{ "type": "promptString", "id": "token", "description": "Token", "password": true }
\t]
}
`;

describe('where each client keeps its servers', () => {
  it('Claude Desktop, Cursor and VS Code on Linux, macOS and Windows; none for Claude Code', () => {
    const linux = { platform: 'linux' as const, env: {}, home: '/home/ada' };
    const mac = { platform: 'darwin' as const, env: {}, home: '/Users/ada' };
    const win = { platform: 'win32' as const, env: { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' }, home: 'C:\\Users\\ada' };
    expect(clientConfigPath('claude-desktop', linux)).toBe('/home/ada/.config/Claude/claude_desktop_config.json');
    expect(clientConfigPath('claude-desktop', mac)).toBe('/Users/ada/Library/Application Support/Claude/claude_desktop_config.json');
    expect(clientConfigPath('claude-desktop', win)).toBe('C:\\Users\\ada\\AppData\\Roaming\\Claude\\claude_desktop_config.json');
    expect(clientConfigPath('cursor', linux)).toBe('/home/ada/.cursor/mcp.json');
    expect(clientConfigPath('cursor', mac)).toBe('/Users/ada/.cursor/mcp.json');
    expect(clientConfigPath('cursor', win)).toBe('C:\\Users\\ada\\.cursor\\mcp.json');
    expect(clientConfigPath('vscode', linux)).toBe('/home/ada/.config/Code/User/mcp.json');
    expect(clientConfigPath('vscode', mac)).toBe('/Users/ada/Library/Application Support/Code/User/mcp.json');
    expect(clientConfigPath('vscode', win)).toBe('C:\\Users\\ada\\AppData\\Roaming\\Code\\User\\mcp.json');
    expect(clientConfigPath('claude-code', linux)).toBeNull();
  });
});

describe('syntheo connect (the built CLI)', () => {
  it('prints the exact snippet for this installation, with --db when one is chosen', async () => {
    const { home: h, env } = home();
    const r = await run(['--db', join(h, 'work.db'), 'connect', 'vscode'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(`VS Code: add this to ${join(h, '.config', 'Code', 'User', 'mcp.json')}`);
    const json = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
    expect(json).toEqual({ servers: { syntheo: { type: 'stdio', command: process.execPath, args: [CLI, 'mcp', '--db', join(h, 'work.db')] } } });
    // Nothing is written without --write.
    expect(existsSync(join(h, '.config'))).toBe(false);
  });

  it('Claude Desktop --write: other servers and keys kept, a backup of the old file, and a second run changes nothing', async () => {
    const { home: h, env } = home();
    const file = put(join(h, '.config', 'Claude', 'claude_desktop_config.json'), CLAUDE_DESKTOP);
    const db = join(h, 'meetings.db');
    const first = await run(['--db', db, 'connect', 'claude-desktop', '--write'], { env });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^Added "syntheo" in .*claude_desktop_config\.json \(the previous file is .*\.bak\)\./);
    const after = JSON.parse(readFileSync(file, 'utf8'));
    const before = JSON.parse(CLAUDE_DESKTOP);
    expect(after).toEqual({ ...before, mcpServers: { ...before.mcpServers, syntheo: { command: process.execPath, args: [CLI, 'mcp', '--db', db] } } });
    expect(backups(file)).toHaveLength(1);
    expect(readFileSync(join(dirname(file), backups(file)[0]!), 'utf8')).toBe(CLAUDE_DESKTOP);

    const written = readFileSync(file, 'utf8');
    const second = await run(['--db', db, 'connect', 'claude-desktop', '--write'], { env });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('nothing changed');
    expect(readFileSync(file, 'utf8')).toBe(written);
    expect(backups(file)).toHaveLength(1);
  });

  it('VS Code --write: a file with comments and trailing commas keeps them, and its other server and inputs', async () => {
    const { home: h, env } = home();
    const file = put(join(h, '.config', 'Code', 'User', 'mcp.json'), VSCODE);
    const r = await run(['connect', 'vscode', '--write'], { env });
    expect(r.code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('// User MCP servers');
    expect(text).toContain('\t\t// the GitHub server');
    expect(parseJsonc(text)).toEqual({
      servers: { github: { type: 'http', url: 'https://api.githubcopilot.com/mcp/' }, syntheo: { type: 'stdio', command: process.execPath, args: [CLI, 'mcp'] } },
      inputs: [{ type: 'promptString', id: 'token', description: 'Token', password: true }],
    });
    // Indented with tabs, like the rest of the file.
    expect(text).toContain('\t\t"syntheo": {\n\t\t\t"type": "stdio"');
  });

  it('Cursor --write: creates the file when there is none, updates an outdated entry, follows a symlinked config', async () => {
    const { home: h, env } = home();
    const fresh = await run(['connect', 'cursor', '--write'], { env });
    expect(fresh.code).toBe(0);
    const file = join(h, '.cursor', 'mcp.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ mcpServers: { syntheo: { command: process.execPath, args: [CLI, 'mcp'] } } });

    const { home: h2, env: env2 } = home();
    const real = put(join(h2, 'dotfiles', 'cursor-mcp.json'), JSON.stringify({ mcpServers: { syntheo: { command: 'syntheo', args: ['mcp'] }, other: { command: 'x' } } }, null, 2));
    mkdirSync(join(h2, '.cursor'));
    symlinkSync(real, join(h2, '.cursor', 'mcp.json'));
    const updated = await run(['connect', 'cursor', '--write'], { env: env2 });
    expect(updated.code).toBe(0);
    expect(updated.stdout).toMatch(/^Updated "syntheo" in /);
    expect(lstatSync(join(h2, '.cursor', 'mcp.json')).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(real, 'utf8'))).toEqual({ mcpServers: { syntheo: { command: process.execPath, args: [CLI, 'mcp'] }, other: { command: 'x' } } });
  });

  it('refuses a config that is not JSON, saying where, and leaves it untouched', async () => {
    const { home: h, env } = home();
    const broken = '{\n  "mcpServers": {\n    "a": { "command": "x" }\n  \n';
    const file = put(join(h, '.cursor', 'mcp.json'), broken);
    const r = await run(['--json', 'connect', 'cursor', '--write'], { env });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error.message).toBe(`${file} is not valid JSON (CloseBraceExpected at line 5, column 1). Fix it, or move it away to start a new one, then run this again.`);
    expect(readFileSync(file, 'utf8')).toBe(broken);
    expect(backups(file)).toEqual([]);

    put(file, '{ "mcpServers": [] }');
    const wrongShape = await run(['connect', 'cursor', '--write'], { env });
    expect(wrongShape.code).toBe(1);
    expect(wrongShape.stderr).toBe(`syntheo: "mcpServers" in ${file} is an array, not an object. Fix it, then run this again.\n`);
  });

  it('Claude Code: prints `claude mcp add`, and --write runs it (replacing an earlier entry)', async () => {
    const { home: h, env } = home();
    const printed = await run(['connect', 'claude-code'], { env: { ...env, PATH: join(h, 'none') } });
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain(`  claude mcp add --scope user syntheo -- ${process.execPath} ${CLI} mcp\n`);

    const missing = await run(['connect', 'claude-code', '--write'], { env: { ...env, PATH: join(h, 'none') } });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('`claude` (Claude Code) is not on PATH');

    const bin = join(h, 'bin');
    const log = join(h, 'claude.log');
    put(join(bin, 'claude'), `#!/bin/sh\necho "$@" >> '${log}'\n`);
    chmodSync(join(bin, 'claude'), 0o755);
    const ran = await run(['--db', join(h, 'm.db'), 'connect', 'claude-code', '--write'], { env: { ...env, PATH: bin } });
    expect(ran.code).toBe(0);
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual(['mcp remove --scope user syntheo', `mcp add --scope user syntheo -- ${process.execPath} ${CLI} mcp --db ${join(h, 'm.db')}`]);
  });
});
