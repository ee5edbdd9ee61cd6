import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findProgram, programCandidates } from '../../src/platform/which.js';
import { tempDir } from '../support/db.js';
import { run } from '../cli/cli.js';

const tmp = tempDir('syntheo-which-');
afterAll(tmp.cleanup);

function file(dir: string, name: string, mode: number): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, mode);
  return path;
}

describe('findProgram (PATH lookup)', () => {
  it('finds the first executable file on PATH, skipping non-executable files, directories and empty entries', () => {
    const a = join(tmp.dir, 'a');
    const b = join(tmp.dir, 'b');
    const c = join(tmp.dir, 'c');
    file(a, 'ffmpeg', 0o644); // not executable
    mkdirSync(join(b, 'ffmpeg'), { recursive: true }); // a directory
    const real = file(c, 'ffmpeg', 0o755);
    const env = { PATH: ['', a, b, c].join(delimiter) };
    expect(findProgram('ffmpeg', { platform: 'linux', env })).toBe(real);
    expect(findProgram('pocketsphinx_continuous', { platform: 'linux', env })).toBeNull();
    expect(findProgram('ffmpeg', { platform: 'linux', env: {} })).toBeNull();
    // A name with a directory is not looked up on PATH.
    expect(findProgram(`c/ffmpeg`, { platform: 'linux', env: { PATH: tmp.dir } })).toBeNull();
  });

  it('Windows: each PATH entry with each PATHEXT extension, Path in any case, quoted entries, a name that has its extension', () => {
    const env = { Path: 'C:\\Windows\\system32;"C:\\Program Files\\ffmpeg\\bin";;', PATHEXT: '.COM;.EXE;.BAT;.CMD' };
    expect(programCandidates('ffmpeg', { platform: 'win32', env })).toEqual([
      'C:\\Windows\\system32\\ffmpeg.COM',
      'C:\\Windows\\system32\\ffmpeg.EXE',
      'C:\\Windows\\system32\\ffmpeg.BAT',
      'C:\\Windows\\system32\\ffmpeg.CMD',
      'C:\\Program Files\\ffmpeg\\bin\\ffmpeg.COM',
      'C:\\Program Files\\ffmpeg\\bin\\ffmpeg.EXE',
      'C:\\Program Files\\ffmpeg\\bin\\ffmpeg.BAT',
      'C:\\Program Files\\ffmpeg\\bin\\ffmpeg.CMD',
    ]);
    expect(programCandidates('claude.cmd', { platform: 'win32', env })).toEqual(['C:\\Windows\\system32\\claude.cmd', 'C:\\Program Files\\ffmpeg\\bin\\claude.cmd']);
    // Without PATHEXT, Windows' own default list.
    expect(programCandidates('node', { platform: 'win32', env: { PATH: 'C:\\node' } })).toEqual(['C:\\node\\node.COM', 'C:\\node\\node.EXE', 'C:\\node\\node.BAT', 'C:\\node\\node.CMD']);
  });

  it('doctor finds ffmpeg through it (and says when it is missing)', async () => {
    const bin = join(tmp.dir, 'doctor-bin');
    const ffmpeg = file(bin, 'ffmpeg', 0o755);
    const db = join(tmp.dir, 'doctor.db');
    await run(['--db', db, 'demo']);
    const withIt = JSON.parse((await run(['--db', db, '--json', 'doctor'], { env: { PATH: bin } })).stdout);
    expect(withIt.data.ffmpeg).toBe(ffmpeg);
    const without = JSON.parse((await run(['--db', db, '--json', 'doctor'], { env: { PATH: join(tmp.dir, 'empty') } })).stdout);
    expect(without.data.ffmpeg).toBeNull();
  });
});
