import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOMParser, type Document } from '@xmldom/xmldom';
import { parse as parsePlist } from 'plist';
import { afterAll, describe, expect, it } from 'vitest';
import { LAUNCHD_LABEL, launchdPlist, servicePlan, systemdUnit, windowsTaskXml } from '../../src/platform/service.js';
import { findProgram } from '../../src/platform/which.js';
import { CLI, run } from '../cli/cli.js';
import { tempDir } from '../support/db.js';

const tmp = tempDir('syntheo-service-');
afterAll(tmp.cleanup);

// Paths with what each format must escape: spaces, quotes, %, $, backslashes, XML's <&>.
const DB = '/home/ada/My Meetings/100% "real" $HOME <&> \\x.db';
const spec = { node: process.execPath, script: CLI, db: DB, path: '/opt/homebrew/bin:/usr/bin:/bin' };
const ARGV = [process.execPath, CLI, 'worker', '--db', DB];

/** ExecStart= split back into words, as systemd reads it (quotes, \-escapes, %% and $$). */
function systemdWords(line: string): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < line.length) {
    while (line[i] === ' ') i++;
    if (i >= line.length) break;
    let word = '';
    if (line[i] === '"') {
      for (i++; line[i] !== '"'; i++) word += line[i] === '\\' ? line[++i] : line[i];
      i++;
    } else for (; i < line.length && line[i] !== ' '; i++) word += line[i];
    words.push(word.replace(/%%/g, '%').replace(/\$\$/g, '$'));
  }
  return words;
}

/** A Windows command line split as CommandLineToArgvW does (backslashes before quotes, "" inside quotes). */
function windowsArgv(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < line.length) {
    while (line[i] === ' ' || line[i] === '\t') i++;
    if (i >= line.length) break;
    let arg = '';
    let quoted = false;
    for (; i < line.length && (quoted || (line[i] !== ' ' && line[i] !== '\t')); i++) {
      let slashes = 0;
      while (line[i] === '\\') {
        slashes++;
        i++;
      }
      if (line[i] === '"') {
        arg += '\\'.repeat(Math.floor(slashes / 2));
        if (slashes % 2) arg += '"';
        else quoted = !quoted;
      } else {
        arg += '\\'.repeat(slashes);
        if (i < line.length) arg += line[i];
        else break;
      }
    }
    out.push(arg);
  }
  return out;
}

function parseXml(xml: string): Document {
  return new DOMParser({
    onError: (level, message) => {
      if (level !== 'warning') throw new Error(`XML ${level}: ${message}`);
    },
  }).parseFromString(xml, 'text/xml');
}

describe('the generated service files', () => {
  it('systemd: systemd-analyze verify accepts the unit, and ExecStart reads back as the exact worker command', () => {
    const unit = systemdUnit(spec);
    const file = join(tmp.dir, 'syntheo-worker.service');
    writeFileSync(file, unit);
    const analyze = findProgram('systemd-analyze');
    if (analyze !== null) {
      const r = spawnSync(analyze, ['verify', file], { encoding: 'utf8', timeout: 30_000 });
      expect(r.stderr.split('\n').filter((l) => l.includes('syntheo-worker.service'))).toEqual([]);
      expect(r.status).toBe(0);
    }
    // Parsed as systemd reads it: sections and keys, the command word by word.
    const sections = new Map<string, Map<string, string>>();
    let section = '';
    for (const line of unit.split('\n')) {
      if (line === '' || line.startsWith('#')) continue;
      const header = /^\[(\w+)\]$/.exec(line);
      if (header) sections.set((section = header[1]!), new Map());
      else sections.get(section)!.set(line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1));
    }
    expect([...sections.keys()]).toEqual(['Unit', 'Service', 'Install']);
    expect(systemdWords(sections.get('Service')!.get('ExecStart')!)).toEqual(ARGV);
    expect(sections.get('Service')!.get('Environment')).toBe('"PATH=/opt/homebrew/bin:/usr/bin:/bin"');
    expect(sections.get('Service')!.get('Restart')).toBe('on-failure');
    expect(sections.get('Install')!.get('WantedBy')).toBe('default.target');
  });

  it('launchd: the plist parses, with the label, the exact program arguments, run at load, restart on failure and a log file', () => {
    const parsed = parsePlist(launchdPlist({ ...spec, logFile: '/Users/ada/Library/Logs/Syntheo/worker.log' })) as Record<string, unknown>;
    expect(parsed).toEqual({
      Label: LAUNCHD_LABEL,
      ProgramArguments: ARGV,
      EnvironmentVariables: { PATH: '/opt/homebrew/bin:/usr/bin:/bin' },
      RunAtLoad: true,
      KeepAlive: { SuccessfulExit: false },
      ThrottleInterval: 10,
      ProcessType: 'Background',
      ExitTimeOut: 60,
      StandardOutPath: '/Users/ada/Library/Logs/Syntheo/worker.log',
      StandardErrorPath: '/Users/ada/Library/Logs/Syntheo/worker.log',
    });
  });

  it('Windows: the task XML parses, starts at logon for this user without time limit, and its arguments read back exactly', () => {
    const winSpec = { node: 'C:\\Program Files\\nodejs\\node.exe', script: 'C:\\Users\\Ada Lovelace\\syntheo\\dist\\src\\cli\\main.js', db: 'C:\\Users\\Ada Lovelace\\My "meetings"\\', path: undefined };
    const doc = parseXml(windowsTaskXml({ ...winSpec, userId: 'PC\\ada', workingDir: 'C:\\Users\\Ada Lovelace\\AppData\\Local\\Syntheo' }));
    const NS = 'http://schemas.microsoft.com/windows/2004/02/mit/task';
    expect(doc.documentElement?.namespaceURI).toBe(NS);
    expect(doc.documentElement?.localName).toBe('Task');
    const text = (tag: string) => Array.from(doc.getElementsByTagNameNS(NS, tag)).map((e) => e.textContent);
    expect(text('UserId')).toEqual(['PC\\ada', 'PC\\ada']); // the logon trigger and the principal
    expect(doc.getElementsByTagNameNS(NS, 'LogonTrigger').length).toBe(1);
    expect(text('LogonType')).toEqual(['InteractiveToken']);
    expect(text('RunLevel')).toEqual(['LeastPrivilege']);
    expect(text('ExecutionTimeLimit')).toEqual(['PT0S']);
    expect(text('MultipleInstancesPolicy')).toEqual(['IgnoreNew']);
    expect(text('Command')).toEqual([winSpec.node]);
    expect(windowsArgv(text('Arguments')[0]!)).toEqual([winSpec.script, 'worker', '--db', winSpec.db]);
  });

  it('each platform writes to its own place', () => {
    const s = { ...spec, path: undefined };
    expect(servicePlan({ platform: 'linux', env: {}, home: '/home/ada' }, s, 1000).file).toBe('/home/ada/.config/systemd/user/syntheo-worker.service');
    const mac = servicePlan({ platform: 'darwin', env: {}, home: '/Users/ada' }, s, 501);
    expect(mac.file).toBe('/Users/ada/Library/LaunchAgents/studio.syntheo.worker.plist');
    expect(mac.enable).toEqual([['launchctl', 'bootstrap', 'gui/501', mac.file]]);
    expect(mac.stopOld).toEqual([['launchctl', 'bootout', 'gui/501/studio.syntheo.worker']]);
    const win = servicePlan({ platform: 'win32', env: { LOCALAPPDATA: 'C:\\Users\\ada\\AppData\\Local', USERDOMAIN: 'PC', USERNAME: 'ada' }, home: 'C:\\Users\\ada' }, s, undefined);
    expect(win.file).toBe('C:\\Users\\ada\\AppData\\Local\\Syntheo\\syntheo-worker-task.xml');
    expect(win.enable[0]).toEqual(['schtasks', '/Create', '/TN', 'Syntheo Worker', '/XML', win.file, '/F']);
  });
});

describe('syntheo service (Linux, the built CLI)', () => {
  /** A home, and a PATH whose `systemctl` only records how it was called. */
  function setup() {
    const home = join(tmp.dir, `home-${Math.random().toString(36).slice(2, 8)}`);
    const bin = join(home, 'bin');
    mkdirSync(bin, { recursive: true });
    const log = join(home, 'systemctl.log');
    writeFileSync(join(bin, 'systemctl'), `#!/bin/sh\necho "$@" >> '${log}'\necho "active (fake)"\n`);
    chmodSync(join(bin, 'systemctl'), 0o755);
    const env = { HOME: home, XDG_CONFIG_HOME: undefined, PATH: bin };
    const unit = join(home, '.config', 'systemd', 'user', 'syntheo-worker.service');
    const calls = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);
    return { home, env, unit, calls };
  }

  it('install writes the unit for this installation and enables it with systemctl --user; status and uninstall follow it', async () => {
    const { home, env, unit, calls } = setup();
    const db = join(home, 'meetings.db');

    const dry = await run(['--db', db, 'service', 'install', '--dry-run'], { env });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`ExecStart=${process.execPath} ${CLI} worker --db ${db}`);
    expect(existsSync(unit)).toBe(false);
    expect(calls()).toEqual([]);

    const installed = await run(['--db', db, 'service', 'install'], { env });
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    expect(readFileSync(unit, 'utf8')).toContain(`ExecStart=${process.execPath} ${CLI} worker --db ${db}\n`);
    expect(calls()).toEqual(['--user daemon-reload', '--user enable syntheo-worker.service', '--user restart syntheo-worker.service']);
    // Installing again replaces the file and restarts the running service on it.
    const again = await run(['--db', db, 'service', 'install'], { env });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^Replaced /);
    expect(calls()).toHaveLength(6);

    const status = await run(['--db', db, '--json', 'service', 'status'], { env });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).data).toMatchObject({ kind: 'systemd', file: unit, installed: true, current: true, manager: { exit_code: 0, output: 'active (fake)' } });
    // Another database: the installed unit no longer matches.
    expect((await run(['--db', join(home, 'other.db'), 'service', 'status'], { env })).code).toBe(1);

    const removed = await run(['--db', db, 'service', 'uninstall'], { env });
    expect(removed.code).toBe(0);
    expect(existsSync(unit)).toBe(false);
    expect(calls().slice(-2)).toEqual(['--user disable --now syntheo-worker.service', '--user daemon-reload']);
    expect((await run(['--db', db, 'service', 'uninstall'], { env })).stdout).toContain('Not installed');
  });

  it('without systemctl on PATH it writes the unit and prints the commands to run', async () => {
    const { home, unit } = setup();
    const r = await run(['service', 'install'], { env: { HOME: home, XDG_CONFIG_HOME: undefined, XDG_DATA_HOME: undefined, PATH: join(home, 'nothing') } });
    expect(r.code).toBe(0);
    expect(existsSync(unit)).toBe(true);
    expect(readFileSync(unit, 'utf8')).toContain(`--db ${join(home, '.local', 'share', 'syntheo', 'syntheo.db')}\n`);
    expect(r.stdout).toContain('To enable and start it, run:\n  systemctl --user daemon-reload\n  systemctl --user enable syntheo-worker.service\n  systemctl --user restart syntheo-worker.service');
  });
});

describe('help', () => {
  it('lists the service and connect commands, each with usage and examples', async () => {
    const service = await run(['service', '--help']);
    expect(service.code).toBe(0);
    for (const v of ['install', 'uninstall', 'status']) expect(service.stdout).toContain(`  service ${v} `);
    const connect = await run(['connect', '--help']);
    for (const c of ['claude-desktop', 'cursor', 'vscode', 'claude-code']) expect(connect.stdout).toMatch(new RegExp(`^  connect ${c}\\s`, 'm'));
    const one = await run(['connect', 'cursor', '--help']);
    expect(one.stdout).toContain('Usage: syntheo connect cursor [options]');
    expect(one.stdout).toContain('Examples:\n  syntheo connect cursor\n');
  });
});
