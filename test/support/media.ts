import { spawnSync } from 'node:child_process';
import { expect } from 'vitest';
import { MediaError } from '../../src/ingest/ffmpeg.js';
import { needs } from './system-tools.js';

/**
 * ffmpeg and ffprobe (both in Debian's `ffmpeg`): tests that need them are skipped where they are
 * missing (the run prints one line naming the package), and fail under CI (see system-tools.ts).
 */
export const HAS_FFMPEG = !needs('ffmpeg') && spawnSync('ffprobe', ['-version'], { stdio: 'ignore' }).status === 0;

export async function mediaErrorOf(p: Promise<unknown>): Promise<MediaError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(MediaError);
    return e as MediaError;
  }
  throw new Error('expected a MediaError');
}
