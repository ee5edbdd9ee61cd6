import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveDbPath } from '../../src/db/open.js';
import { configHome, dataDir, defaultDbPath, legacyDbPath } from '../../src/platform/paths.js';
import { tempDir } from '../support/db.js';

const tmp = tempDir('syntheo-paths-');
afterAll(tmp.cleanup);

let n = 0;
/** A fresh, empty home folder. */
function home(): string {
  const dir = join(tmp.dir, `home-${++n}`);
  mkdirSync(dir);
  return dir;
}

function touch(path: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '');
  return path;
}

describe('the default data folder per platform', () => {
  it('Linux: $XDG_DATA_HOME/syntheo, else ~/.local/share/syntheo; a relative XDG_DATA_HOME is ignored', () => {
    expect(dataDir({ platform: 'linux', env: {}, home: '/home/ada' })).toBe('/home/ada/.local/share/syntheo');
    expect(dataDir({ platform: 'linux', env: { XDG_DATA_HOME: '/data' }, home: '/home/ada' })).toBe('/data/syntheo');
    expect(dataDir({ platform: 'linux', env: { XDG_DATA_HOME: 'rel/data' }, home: '/home/ada' })).toBe('/home/ada/.local/share/syntheo');
    expect(dataDir({ platform: 'freebsd', env: {}, home: '/home/ada' })).toBe('/home/ada/.local/share/syntheo');
  });

  it('macOS: ~/Library/Application Support/Syntheo', () => {
    expect(dataDir({ platform: 'darwin', env: { XDG_DATA_HOME: '/elsewhere' }, home: '/Users/ada' })).toBe('/Users/ada/Library/Application Support/Syntheo');
  });

  it('Windows: %LOCALAPPDATA%\\Syntheo, else <home>\\AppData\\Local\\Syntheo', () => {
    expect(dataDir({ platform: 'win32', env: { LOCALAPPDATA: 'C:\\Users\\ada\\AppData\\Local' }, home: 'C:\\Users\\ada' })).toBe('C:\\Users\\ada\\AppData\\Local\\Syntheo');
    expect(dataDir({ platform: 'win32', env: {}, home: 'C:\\Users\\ada' })).toBe('C:\\Users\\ada\\AppData\\Local\\Syntheo');
  });

  it('the per-user configuration folder: XDG_CONFIG_HOME or ~/.config, Application Support, %APPDATA%', () => {
    expect(configHome({ platform: 'linux', env: {}, home: '/home/ada' })).toBe('/home/ada/.config');
    expect(configHome({ platform: 'linux', env: { XDG_CONFIG_HOME: '/cfg' }, home: '/home/ada' })).toBe('/cfg');
    expect(configHome({ platform: 'darwin', env: {}, home: '/Users/ada' })).toBe('/Users/ada/Library/Application Support');
    expect(configHome({ platform: 'win32', env: { APPDATA: 'D:\\Roaming' }, home: 'C:\\Users\\ada' })).toBe('D:\\Roaming');
    expect(configHome({ platform: 'win32', env: {}, home: 'C:\\Users\\ada' })).toBe('C:\\Users\\ada\\AppData\\Roaming');
  });
});

describe('the default database', () => {
  it('macOS: a new installation uses Application Support; a database at the old default is still found, until one exists in the new place', () => {
    const h = home();
    const where = { platform: 'darwin' as const, env: {}, home: h };
    const fresh = join(h, 'Library', 'Application Support', 'Syntheo', 'syntheo.db');
    expect(defaultDbPath(where, existsSync)).toBe(fresh);

    const old = touch(join(h, '.local', 'share', 'syntheo', 'syntheo.db'));
    expect(legacyDbPath(where)).toBe(old);
    expect(defaultDbPath(where, existsSync)).toBe(old);

    touch(fresh);
    expect(defaultDbPath(where, existsSync)).toBe(fresh);
  });

  it('Windows: %LOCALAPPDATA%\\Syntheo\\syntheo.db, or the old ~/.local/share one when only that exists', () => {
    const where = { platform: 'win32' as const, env: { LOCALAPPDATA: 'C:\\Users\\ada\\AppData\\Local' }, home: 'C:\\Users\\ada' };
    const files = new Set<string>();
    expect(defaultDbPath(where, (p) => files.has(p))).toBe('C:\\Users\\ada\\AppData\\Local\\Syntheo\\syntheo.db');
    files.add('C:\\Users\\ada\\.local\\share\\syntheo\\syntheo.db');
    expect(defaultDbPath(where, (p) => files.has(p))).toBe('C:\\Users\\ada\\.local\\share\\syntheo\\syntheo.db');
  });

  it('Linux: unchanged, $XDG_DATA_HOME/syntheo/syntheo.db', () => {
    const h = home();
    expect(defaultDbPath({ platform: 'linux', env: {}, home: h }, existsSync)).toBe(join(h, '.local', 'share', 'syntheo', 'syntheo.db'));
    expect(defaultDbPath({ platform: 'linux', env: { XDG_DATA_HOME: join(h, 'xdg') }, home: h }, existsSync)).toBe(join(h, 'xdg', 'syntheo', 'syntheo.db'));
  });

  it('--db and SYNTHEO_DB still win over the platform default', () => {
    expect(resolveDbPath('/x/flag.db', { SYNTHEO_DB: '/x/env.db' })).toBe('/x/flag.db');
    expect(resolveDbPath(undefined, { SYNTHEO_DB: '/x/env.db' })).toBe('/x/env.db');
  });

  it.runIf(process.platform === 'linux')('resolveDbPath uses the platform default when neither is given', () => {
    expect(resolveDbPath(undefined, { XDG_DATA_HOME: '/x/xdg' })).toBe('/x/xdg/syntheo/syntheo.db');
  });
});
