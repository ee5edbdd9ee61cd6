import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

// Where Syntheo and the programs it talks to keep their files, per platform, as pure functions of
// (platform, env, home) so that every platform's answer is tested on any machine.

export interface PlatformEnv {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  home: string;
}

/** The process's own platform, environment and home ($HOME on Linux and macOS, %USERPROFILE% on Windows). */
export function currentPlatform(): PlatformEnv {
  return { platform: process.platform, env: process.env, home: homedir() };
}

export const pathFor = (platform: NodeJS.Platform): typeof posix => (platform === 'win32' ? win32 : posix);

/** An absolute directory from the environment, else undefined (XDG: a relative value is ignored). */
function absoluteDir(platform: NodeJS.Platform, value: string | undefined): string | undefined {
  return value && pathFor(platform).isAbsolute(value) ? value : undefined;
}

/** Syntheo's data folder: XDG on Linux and the BSDs, Application Support on macOS, %LOCALAPPDATA% on Windows. */
export function dataDir({ platform, env, home }: PlatformEnv): string {
  const p = pathFor(platform);
  if (platform === 'darwin') return p.join(home, 'Library', 'Application Support', 'Syntheo');
  if (platform === 'win32') return p.join(absoluteDir(platform, env.LOCALAPPDATA) ?? p.join(home, 'AppData', 'Local'), 'Syntheo');
  return p.join(absoluteDir(platform, env.XDG_DATA_HOME) ?? p.join(home, '.local', 'share'), 'syntheo');
}

/** The default before platform folders: `$XDG_DATA_HOME/syntheo/syntheo.db` on every platform. */
export function legacyDbPath({ platform, env, home }: PlatformEnv): string {
  const p = pathFor(platform);
  return p.join(absoluteDir(platform, env.XDG_DATA_HOME) ?? p.join(home, '.local', 'share'), 'syntheo', 'syntheo.db');
}

/**
 * The database when neither --db nor SYNTHEO_DB names one: the platform's data folder, unless that
 * file does not exist yet and one exists at the old default (macOS and Windows before 0.2).
 */
export function defaultDbPath(where: PlatformEnv, exists: (path: string) => boolean): string {
  const current = pathFor(where.platform).join(dataDir(where), 'syntheo.db');
  if (exists(current)) return current;
  const legacy = legacyDbPath(where);
  return legacy !== current && exists(legacy) ? legacy : current;
}

/** Per-user configuration folder (Claude Desktop, VS Code and systemd units live under it). */
export function configHome({ platform, env, home }: PlatformEnv): string {
  const p = pathFor(platform);
  if (platform === 'darwin') return p.join(home, 'Library', 'Application Support');
  if (platform === 'win32') return absoluteDir(platform, env.APPDATA) ?? p.join(home, 'AppData', 'Roaming');
  return absoluteDir(platform, env.XDG_CONFIG_HOME) ?? p.join(home, '.config');
}
