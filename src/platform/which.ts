import { accessSync, constants, statSync } from 'node:fs';
import { pathFor } from './paths.js';

// One PATH lookup for every program Syntheo runs (ffmpeg, pocketsphinx, systemctl, claude...).

export interface LookupEnv {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
}

/** A variable by name, case-insensitively on Windows (`Path`, `PATHEXT`), where a plain object may hold any case. */
export function envValue({ platform, env }: LookupEnv, name: string): string | undefined {
  if (platform !== 'win32') return env[name];
  const key = Object.keys(env).find((k) => k.toUpperCase() === name);
  return key === undefined ? undefined : env[key];
}

const DEFAULT_PATHEXT = '.COM;.EXE;.BAT;.CMD';

/**
 * Every file that `name` may be on this PATH, in the order a shell tries them. On Windows each
 * directory is tried with each PATHEXT extension, unless the name already ends with one.
 * A name with a directory in it is not looked up.
 */
export function programCandidates(name: string, where: LookupEnv): string[] {
  const p = pathFor(where.platform);
  if (name === '' || name.includes('/') || (where.platform === 'win32' && name.includes('\\'))) return [];
  const dirs = (envValue(where, 'PATH') ?? '')
    .split(p.delimiter)
    // Windows PATH entries may be quoted ("C:\Program Files\x").
    .map((d) => (where.platform === 'win32' ? d.replace(/^"(.*)"$/, '$1') : d))
    .filter((d) => d !== '');
  if (where.platform !== 'win32') return dirs.map((d) => p.join(d, name));
  const exts = (envValue(where, 'PATHEXT') || DEFAULT_PATHEXT).split(';').filter((e) => e.startsWith('.'));
  const hasExt = exts.some((e) => name.toUpperCase().endsWith(e.toUpperCase()));
  const names = hasExt ? [name] : exts.map((e) => name + e);
  return dirs.flatMap((d) => names.map((n) => p.join(d, n)));
}

/** The first candidate that is an executable file, else null. */
export function findProgram(name: string, where: LookupEnv = { platform: process.platform, env: process.env }): string | null {
  for (const candidate of programCandidates(name, where)) {
    try {
      if (!statSync(candidate).isFile()) continue;
      // Windows has no execute bit: a file with a PATHEXT extension is a program.
      if (where.platform !== 'win32') accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}
