import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeWorker, run, runJson, writeWav } from './cli.js';
import { openTestDb } from '../support/db.js';
import { HAS_FFMPEG } from '../support/media.js';

// `syntheo imports add` with what is not one of the eight audio formats: transcripts (checked at
// enqueue), containers ffmpeg reads (checked with ffprobe), and the same without ffmpeg on PATH.

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
let db: ReturnType<typeof openTestDb>;
let dir: string;
/** PATH with no ffmpeg/ffprobe: an empty folder (the CLI is started by absolute node path). */
let noFfmpeg: string;

beforeEach(() => {
  db = openTestDb();
  dir = join(db.dir, 'in');
  noFfmpeg = join(db.dir, 'empty-bin');
  mkdirSync(dir);
  mkdirSync(noFfmpeg);
  fakeWorker(db.sqlite);
});
afterEach(() => db.cleanup());

const jobs = () => (db.sqlite.prepare('SELECT count(*) AS n FROM recording_imports').get() as { n: number }).n;

describe('imports add: transcripts', () => {
  it('queues a Teams WebVTT saved under another name, as vtt', async () => {
    const file = join(dir, 'teams-export.data');
    copyFileSync(join(FIXTURES, 'transcripts', 'teams.vtt'), file);
    const r = await runJson(db.path, ['imports', 'add', file]);
    expect(r.code).toBe(0);
    expect(r.body.data).toMatchObject({ file_format: 'vtt', title: 'teams-export', processing_status: 'queued' });
  });

  it('refuses a malformed SRT naming the line and the problem, and queues nothing', async () => {
    const file = join(dir, 'broken.srt');
    copyFileSync(join(FIXTURES, 'transcripts', 'malformed-order.srt'), file);
    const r = await run(['--db', db.path, 'imports', 'add', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/This SRT transcript cannot be imported: line \d+: /);
    expect(jobs()).toBe(0);
  });
});

describe.skipIf(!HAS_FFMPEG)('imports add: containers ffmpeg reads', () => {
  it.each([
    ['budget.mkv', 'matroska'],
    ['launch.mov', 'mp4'], // QuickTime's ftyp box: sniffed as MP4, a video: extracted all the same
    ['hiring.avi', 'avi'],
    ['budget.mpegts', 'mpegts'],
    ['launch.wma', 'asf'],
  ])('queues %s as %s', async (name, format) => {
    const r = await runJson(db.path, ['imports', 'add', join(FIXTURES, 'video', name)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.body.data.file_format).toBe(format);
    const row = db.sqlite.prepare('SELECT extract_audio FROM recording_imports WHERE id = ?').get(r.body.data.job_id) as { extract_audio: number };
    expect(row.extract_audio).toBe(1);
  });

  it('refuses a video without an audio track, saying so', async () => {
    const r = await run(['--db', db.path, 'imports', 'add', join(FIXTURES, 'video', 'silent-video.mp4')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('has no audio track, so there is nothing to transcribe');
    expect(jobs()).toBe(0);
  });

  it('without ffmpeg: an MKV is refused naming ffmpeg and the format; a WAV and a transcript still queue', async () => {
    const env = { PATH: noFfmpeg };
    const mkv = await run(['--db', db.path, 'imports', 'add', join(FIXTURES, 'video', 'budget.mkv')], { env });
    expect(mkv.code).toBe(1);
    expect(mkv.stderr).toContain('This is a Matroska (MKV/MKA) file. ffprobe is not installed');
    expect(jobs()).toBe(0);
    const wav = await runJson(db.path, ['imports', 'add', writeWav(join(dir, 'memo.wav'))], { env });
    expect(wav.code, wav.stderr).toBe(0);
    const txt = join(dir, 'notes.txt');
    writeFileSync(txt, 'Zoë Martin: hello there\nJosé Pérez: hello again\n');
    const t = await runJson(db.path, ['imports', 'add', txt], { env });
    expect(t.code, t.stderr).toBe(0);
    expect(t.body.data.file_format).toBe('speaker_text');
  });
});
