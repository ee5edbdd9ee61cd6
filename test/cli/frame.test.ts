import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { STACK_LINE, dbIn, run, runJson } from './cli.js';
import { tempDir } from '../support/db.js';

const GROUP_COMMANDS: Record<string, string[]> = {
  meetings: ['list', 'get', 'transcript', 'history', 'export'],
  folders: ['list', 'create'],
  proposals: ['list', 'show', 'apply', 'decline'],
  imports: ['add', 'show', 'list'],
  config: ['set', 'get', 'list', 'unset'],
};
const SINGLE = ['doctor', 'load', 'studio'];

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir();
});
afterAll(() => tmp.cleanup());

describe('help', () => {
  it('top level lists every group and exits 0', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const g of [...Object.keys(GROUP_COMMANDS), ...SINGLE]) expect(r.stdout).toMatch(new RegExp(`^  ${g} `, 'm'));
  });

  it('bare `syntheo` prints the help and exits 64', async () => {
    const r = await run([]);
    expect(r.code).toBe(64);
    expect(r.stdout).toContain('Usage: syntheo <command>');
  });

  it.each(Object.entries(GROUP_COMMANDS))('group %s lists its commands', async (group, verbs) => {
    const r = await run([group, '--help']);
    expect(r.code).toBe(0);
    for (const v of verbs) expect(r.stdout).toContain(`  ${group} ${v} `);
  });

  const commands = [...Object.entries(GROUP_COMMANDS).flatMap(([g, vs]) => vs.map((v) => `${g} ${v}`)), ...SINGLE];
  it.each(commands)('`%s --help` shows usage and an example', async (name) => {
    const r = await run([...name.split(' '), '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: syntheo ${name}`);
    expect(r.stdout).toMatch(new RegExp(`Examples:\\n  (syntheo|SYNTHEO_\\w+=\\S+ syntheo) `));
    // --json only where it acts: Studio's output is its own.
    if (name !== 'studio') expect(r.stdout).toContain('--json');
    else expect(r.stdout).not.toContain('--json');
  });

  it('--help wins over a missing argument and opens no database', async () => {
    const db = dbIn(tmp.dir, 'help.db');
    const r = await run(['--db', db, 'proposals', 'apply', '--help']);
    expect(r.code).toBe(0);
    expect(existsSync(db)).toBe(false);
  });
});

describe('usage errors exit 64', () => {
  it('unknown command', async () => {
    const r = await run(['meetngs', 'list']);
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('Unknown command "meetngs"');
  });

  it('unknown verb names the group help', async () => {
    const r = await run(['meetings', 'delete']);
    expect(r.code).toBe(64);
    expect(r.stderr).toBe('syntheo: Unknown command "meetings delete". Run `syntheo help meetings` for its commands.\n');
  });

  it('unknown flag, in JSON too', async () => {
    const r = await run(['meetings', 'list', '--nope']);
    expect(r.code).toBe(64);
    expect(r.stderr).toBe('syntheo: Unknown option --nope for `syntheo meetings list`. Run `syntheo help meetings list` for its options.\n');
    const j = await runJson(dbIn(tmp.dir), ['meetings', 'list', '--nope']);
    expect(j.code).toBe(64);
    expect(j.body).toEqual({ schema_version: 1, error: { code: 'usage', message: expect.stringContaining('Unknown option --nope'), exit_code: 64 } });
  });

  it('missing argument, non-integer --limit, bad --status', async () => {
    expect((await run(['meetings', 'get'])).stderr).toContain('Missing ID.');
    const limit = await run(['meetings', 'list', '--limit', 'ten']);
    expect(limit.code).toBe(64);
    expect(limit.stderr).toContain('--limit must be an integer, got "ten"');
    const status = await run(['proposals', 'list', '--status', 'open']);
    expect(status.code).toBe(64);
    expect(status.stderr).toContain('--status must be one of pending, applied, declined, all, got "open"');
  });
});

describe('missing database', () => {
  const reads = [
    ['meetings', 'list'],
    ['meetings', 'get', 'mtg_x'],
    ['meetings', 'transcript', 'mtg_x'],
    ['meetings', 'history', 'mtg_x'],
    ['meetings', 'export', 'mtg_x'],
    ['folders', 'list'],
    ['proposals', 'list'],
    ['proposals', 'show', 'prp_x'],
    ['imports', 'list'],
    ['imports', 'show', 'job_x'],
    ['config', 'get', 'llm.url'],
    ['config', 'list'],
    ['config', 'unset', 'llm.url'],
    ['doctor'],
    ['studio'],
  ];
  it.each(reads.map((r) => [r.join(' '), r]))('`%s` exits 3 and creates nothing', async (_, args) => {
    const db = dbIn(tmp.dir, 'never/created.db');
    const r = await run(['--db', db, ...(args as string[])]);
    expect(r.code).toBe(3);
    expect(r.stderr + r.stdout).toContain(`No Syntheo database at ${db}. Create one with \`syntheo demo\``);
    expect(existsSync(db)).toBe(false);
    expect(existsSync(dbIn(tmp.dir, 'never'))).toBe(false);
  });

  it('JSON error envelope says no_database', async () => {
    const db = dbIn(tmp.dir, 'nothing.db');
    const j = await runJson(db, ['meetings', 'list']);
    expect(j.code).toBe(3);
    expect(j.body.error.code).toBe('no_database');
    expect(j.body.error.exit_code).toBe(3);
    expect(j.body.error.message).toContain('syntheo demo');
  });
});

describe('a file that is not a Syntheo database', () => {
  it('random bytes: exit 1, clear message, no stack trace', async () => {
    const path = dbIn(tmp.dir, 'random.db');
    writeFileSync(path, Buffer.alloc(8192, 0x5a));
    const r = await run(['--db', path, 'meetings', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`syntheo: ${path} is not a Syntheo database: it is not SQLite, or it is damaged or encrypted. Point to another file with --db.\n`);
    expect(r.stderr).not.toMatch(STACK_LINE);
  });

  it("another app's SQLite database is refused and left as it was (not switched to WAL)", async () => {
    const path = dbIn(tmp.dir, 'foreign.db');
    const other = new BetterSqlite3(path);
    other.exec('CREATE TABLE notes (body TEXT)');
    other.close();
    for (const args of [['meetings', 'list'], ['folders', 'create', 'A/B'], ['load', '-']]) {
      const r = await run(['--db', path, ...args], { input: '[]' });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${path} is a SQLite database of another application (it holds tables notes); Syntheo will not modify it.`);
      expect(r.stderr).not.toMatch(STACK_LINE);
    }
    const check = new BetterSqlite3(path, { readonly: true });
    expect(check.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all()).toEqual(['notes']);
    check.close();
    expect(readdirSync(tmp.dir).filter((f) => f.startsWith('foreign.db'))).toEqual(['foreign.db']);
  });

  it('a directory given as --db', async () => {
    const r = await run(['--db', tmp.dir, 'meetings', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Cannot open the database at ${tmp.dir}`);
  });
});

it('--version', async () => {
  const r = await run(['--version']);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
});
