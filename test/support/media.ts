import { spawnSync } from 'node:child_process';
import { expect } from 'vitest';
import { MediaError } from '../../src/ingest/ffmpeg.js';

/** ffmpeg and ffprobe on PATH; tests that need them skip (with one line saying so) where they are not. */
export const HAS_FFMPEG = ['ffmpeg', 'ffprobe'].every((p) => spawnSync(p, ['-version'], { stdio: 'ignore' }).status === 0);

export function noteFfmpegSkip(file: string): void {
  if (!HAS_FFMPEG) console.warn(`${file}: ffmpeg tests skipped: ffmpeg/ffprobe not on PATH (Debian package \`ffmpeg\`)`);
}

export async function mediaErrorOf(p: Promise<unknown>): Promise<MediaError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(MediaError);
    return e as MediaError;
  }
  throw new Error('expected a MediaError');
}
