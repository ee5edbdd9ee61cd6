// `node dist/bench/video-upload.js`: what a video import sends to the transcription server. Makes a
// 1080p30 H.264 MP4 with a spoken AAC track (ffmpeg, `--seconds` long), extracts its audio as the
// worker does (extractAudio: mono 16 kHz Opus), and compares the sizes. Budget: under 1/20.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs } from './args.js';
import { printTable } from './stats.js';
import { extractAudio } from '../src/ingest/ffmpeg.js';
import { PACKAGE_ROOT } from '../src/package.js';

const values = benchArgs('video-upload', 'Size of the upload for a 1080p video import, against the video (budget: under 1/20).', {
  seconds: { type: 'string', value: 'N', description: 'Length of the generated video (default 3600: one hour)' },
});
const seconds = Number(values.seconds ?? 3600);
const dir = mkdtempSync(join(tmpdir(), 'syntheo-bench-video-'));
try {
  const video = join(dir, 'screen.mp4');
  const made = spawnSync('ffmpeg', [
    '-v', 'error', '-stream_loop', '-1', '-i', join(PACKAGE_ROOT, 'test', 'fixtures', 'speech', 'budget.m4a'),
    '-f', 'lavfi', '-i', 'testsrc2=size=1920x1080:rate=30', '-t', String(seconds), '-map', '1:v', '-map', '0:a',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '23', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '128k', '-y', video,
  ]);
  if (made.status !== 0) throw new Error(`ffmpeg could not make the video: ${made.stderr.toString().slice(-300)}`);
  const started = performance.now();
  const audio = await extractAudio(video, join(dir, 'audio.ogg'));
  const ms = performance.now() - started;
  const videoBytes = statSync(video).size;
  const ratio = audio.bytes / videoBytes;
  process.stdout.write(
    printTable(`Video import upload (${seconds} s of 1080p30)`, [
      { name: 'video file', value: `${(videoBytes / 1048576).toFixed(1)} MB` },
      { name: 'upload (Opus 16 kHz mono)', value: `${(audio.bytes / 1048576).toFixed(2)} MB`, detail: `extracted in ${(ms / 1000).toFixed(1)} s` },
      { name: 'upload / video', value: `1/${Math.round(1 / ratio)}`, budget: 'under 1/20', ok: ratio < 1 / 20 },
    ]) + '\n',
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
