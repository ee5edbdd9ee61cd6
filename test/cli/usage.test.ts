// Command-line conventions: one-line usage errors with the closest valid word, `help <command>`, honest help.
import { describe, expect, it } from 'vitest';
import { run } from './cli.js';

/** A usage error: exit 64, nothing on stdout, exactly one line on stderr. */
async function usage(args: string[]): Promise<string> {
  const r = await run(args);
  expect(r.code).toBe(64);
  expect(r.stdout).toBe('');
  expect(r.stderr.split('\n')).toHaveLength(2);
  return r.stderr;
}

describe('unknown commands and options: one line, the closest valid one, exit 64', () => {
  it('a mistyped group', async () => {
    expect(await usage(['meeting'])).toBe('syntheo: Unknown command "meeting": did you mean `syntheo meetings`? Run `syntheo help` for the list.\n');
  });

  it('a mistyped verb', async () => {
    expect(await usage(['meetings', 'lst'])).toBe(
      'syntheo: Unknown command "meetings lst": did you mean `syntheo meetings list`? Run `syntheo help meetings` for its commands.\n',
    );
  });

  it('a mistyped group and verb', async () => {
    expect(await usage(['meeting', 'lst'])).toContain('did you mean `syntheo meetings list`?');
  });

  it('a mistyped option, without Node\'s parseArgs text', async () => {
    expect(await usage(['meetings', 'list', '--limt', '5'])).toBe(
      'syntheo: Unknown option --limt for `syntheo meetings list`: did you mean --limit? Run `syntheo help meetings list` for its options.\n',
    );
  });

  it('an option without its value', async () => {
    expect(await usage(['meetings', 'list', '--limit'])).toBe('syntheo: --limit needs a value: --limit N.\n');
  });

  it('`syntheo --bogus` and `syntheo -v` name the option instead of printing the whole help', async () => {
    expect(await usage(['--bogus'])).toBe('syntheo: Unknown option --bogus. Run `syntheo --help` for the options.\n');
    expect(await usage(['-v'])).toBe('syntheo: Unknown option -v: did you mean -V (--version)? Run `syntheo --help` for the options.\n');
  });

  it('a global option that does nothing for the command is refused, not ignored', async () => {
    expect(await usage(['mcp', '--json'])).toBe('syntheo: --json has no effect on `syntheo mcp`. Run `syntheo help mcp` for its options.\n');
  });
});

describe('help', () => {
  it('`syntheo help <group> <verb>` is the command\'s help; `syntheo help <group>` lists its commands', async () => {
    const verb = await run(['help', 'meetings', 'list']);
    expect(verb.code).toBe(0);
    expect(verb.stdout).toBe((await run(['meetings', 'list', '--help'])).stdout);
    expect(verb.stdout).toContain('Usage: syntheo meetings list [options]');
    const group = await run(['help', 'proposals']);
    expect(group.code).toBe(0);
    expect(group.stdout).toContain('  proposals apply ');
    const top = await run(['help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain('Usage: syntheo <command> [options]');
    expect(await usage(['help', 'meetings', 'lst'])).toContain('did you mean `syntheo help meetings list`?');
  });

  it('top-level help lists -h and --version, and the help and completion commands', async () => {
    const r = await run(['--help']);
    expect(r.stdout).toMatch(/^  -h, --help +Show help$/m);
    expect(r.stdout).toMatch(/^  -V, --version +Print the version$/m);
    expect(r.stdout).toMatch(/^  help +/m);
    expect(r.stdout).toMatch(/^  completion +/m);
    expect(r.stdout).toMatch(/^  --no-color +/m);
  });

  it.each(['mcp', 'worker', 'studio'])('`%s --help` does not offer --json', async (name) => {
    const r = await run([name, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--db PATH');
    expect(r.stdout).not.toContain('--json');
  });

  it("the worker's help gives the level the worker really defaults to (info)", async () => {
    const r = await run(['worker', '--help']);
    expect(r.stdout).toMatch(/--log-level LEVEL .*\(default info, or \$SYNTHEO_LOG_LEVEL\)/);
    const other = await run(['meetings', 'list', '--help']);
    expect(other.stdout).toMatch(/--log-level LEVEL .*\(default warn, or \$SYNTHEO_LOG_LEVEL\)/);
  });

  it('`syntheo mcp --help` shows the pinned Inspector command the README uses', async () => {
    const r = await run(['mcp', '--help']);
    expect(r.stdout).toContain('npx -y @modelcontextprotocol/inspector@2.12.0 --cli syntheo mcp');
    expect(r.stdout).not.toMatch(/inspector --cli/);
  });
});
