import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sniffAudio } from '../../src/audio/sniff.js';
import { extractAudio, probe, type MediaInfo } from '../../src/ingest/ffmpeg.js';
import { tempDir } from '../support/db.js';
import { HAS_FFMPEG, mediaErrorOf } from '../support/media.js';
import { fixturePath } from '../support/speech-fixtures.js';

const VIDEO = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'video');

describe('when ffmpeg is missing', () => {
  it('probe and extractAudio say to install the Debian package `ffmpeg`', async () => {
    const e = await mediaErrorOf(probe(join(VIDEO, 'budget.mkv'), { ffprobePath: '/nonexistent/ffprobe' }));
    expect(e.reason).toBe('ffmpeg_missing');
    expect(e.kind).toBe('unavailable');
    expect(e.message).toContain('ffprobe is not installed');
    expect(e.message).toContain('Install the Debian/Ubuntu package `ffmpeg`');
    const x = await mediaErrorOf(extractAudio(join(VIDEO, 'budget.mkv'), join(VIDEO, 'never.ogg'), { ffprobePath: '/nonexistent/ffprobe', ffmpegPath: '/nonexistent/ffmpeg' }));
    expect(x.reason).toBe('ffmpeg_missing');
    expect(existsSync(join(VIDEO, 'never.ogg'))).toBe(false);
  });
});

describe.skipIf(!HAS_FFMPEG)('ffmpeg as a module (needs ffmpeg: Debian package `ffmpeg`)', () => {
  const { dir, cleanup } = tempDir('syntheo-ffmpeg-test-');
  afterAll(cleanup);
  const lengths = new Map<string, number>();
  const speechMs = (passage: string): number => {
    if (!lengths.has(passage)) lengths.set(passage, Math.round(Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', fixturePath(passage, 'wav')], { encoding: 'utf8' })) * 1000));
    return lengths.get(passage)!;
  };

  // Each container people bring, made by scripts/make-video-fixtures.sh from the spoken fixtures.
  const cases: Array<{ file: string; passage: string; expect: Partial<MediaInfo> }> = [
    { file: 'budget.mkv', passage: 'budget', expect: { container: 'matroska,webm', hasAudio: true, hasVideo: true, audioCodec: 'aac', videoCodec: 'h264' } },
    { file: 'launch.mov', passage: 'launch', expect: { container: 'mov,mp4,m4a,3gp,3g2,mj2', containerName: 'QuickTime / MOV', hasAudio: true, hasVideo: true, creationTime: '2026-03-04T15:30:12.000Z' } },
    { file: 'hiring.avi', passage: 'hiring', expect: { container: 'avi', hasAudio: true, hasVideo: true, audioCodec: 'mp3', videoCodec: 'mpeg4' } },
    { file: 'budget.mpegts', passage: 'budget', expect: { container: 'mpegts', hasAudio: true, hasVideo: true, audioCodec: 'mp2' } },
    { file: 'launch.wma', passage: 'launch', expect: { container: 'asf', hasAudio: true, hasVideo: false, audioCodec: 'wmav2', videoCodec: null } },
  ];

  it.each(cases)('probe $file: container, tracks, duration, creation time', async ({ file, passage, expect: want }) => {
    const info = await probe(join(VIDEO, file));
    expect(info).toMatchObject(want);
    if (want.creationTime === undefined) expect(info.creationTime).toBeNull();
    // The container lasts as long as its longest track (the 1 fps picture rounds up to whole seconds).
    expect(info.durationMs).toBeGreaterThanOrEqual(speechMs(passage) - 100);
    expect(info.durationMs).toBeLessThanOrEqual(speechMs(passage) + 2100);
  });

  it.each([...cases.map((c) => ({ name: c.file, file: join(VIDEO, c.file), passage: c.passage })), { name: 'speech/budget.mp4', file: fixturePath('budget', 'mp4'), passage: 'budget' }])(
    'extractAudio $name -> mono 16 kHz Opus in OGG, as long as the speech',
    async ({ file, passage }) => {
      const out = join(dir, `${passage}-${file.split('.').pop()}.ogg`);
      const res = await extractAudio(file, out);
      expect(res).toMatchObject({ path: out, codec: 'opus', bytes: statSync(out).size });
      expect(sniffAudio(readFileSync(out).subarray(0, 64))).toBe('ogg');
      const streams = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_streams', out], { encoding: 'utf8' })) as { streams: Array<Record<string, unknown>> };
      expect(streams.streams.map((s) => [s.codec_type, s.codec_name, s.channels])).toEqual([['audio', 'opus', 1]]);
      // Opus decodes at 48 kHz; the encoder was fed 16 kHz, which the OGG header records.
      expect(Math.abs(res.durationMs! - speechMs(passage))).toBeLessThan(150);
      // 24 kbit/s plus OGG pages and headers.
      expect((res.bytes * 8) / (res.durationMs! / 1000)).toBeLessThan(32_000);
    },
  );

  it('an MP4 screen recording sends a small fraction of its size: the video track is left behind', async () => {
    const mp4 = join(dir, 'screen.mp4');
    execFileSync('ffmpeg', [
      '-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=15', '-i', fixturePath('budget', 'wav'),
      '-map', '0:v', '-map', '1:a', '-shortest', '-c:v', 'libx264', '-preset', 'ultrafast', '-b:v', '600k', '-c:a', 'aac', '-b:a', '64k', mp4,
    ]);
    const before = await probe(mp4);
    expect([before.hasVideo, before.hasAudio]).toEqual([true, true]);
    const res = await extractAudio(mp4, join(dir, 'screen.ogg'));
    const ratio = res.bytes / statSync(mp4).size;
    expect(ratio).toBeLessThan(1 / 10);
    expect(Math.abs(res.durationMs! - speechMs('budget'))).toBeLessThan(150);
  });

  it("codec 'flac': lossless mono 16 kHz, for servers that decode only WAV/MP3/FLAC", async () => {
    const out = join(dir, 'launch.flac');
    const res = await extractAudio(join(VIDEO, 'launch.mov'), out, { codec: 'flac' });
    expect(sniffAudio(readFileSync(out).subarray(0, 64))).toBe('flac');
    const s = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_streams', out], { encoding: 'utf8' })) as { streams: Array<Record<string, unknown>> };
    expect(s.streams.map((x) => [x.codec_name, x.sample_rate, x.channels])).toEqual([['flac', '16000', 1]]);
    expect(Math.abs(res.durationMs! - speechMs('launch'))).toBeLessThan(150);
  });

  it('a video with no audio track is refused with that reason, and nothing is written', async () => {
    const out = join(dir, 'silent.ogg');
    const e = await mediaErrorOf(extractAudio(join(VIDEO, 'silent-video.mp4'), out));
    expect([e.reason, e.kind, e.message]).toEqual(['no_audio', 'invalid', 'This video file has no audio track, so there is nothing to transcribe.']);
    expect(readdirSync(dir).filter((f) => f.startsWith('silent'))).toEqual([]);
  });

  it('a transcript or a text file: probe says what it is; a text file is unreadable, and its path is not in the message', async () => {
    const vtt = await probe(join(VIDEO, '..', 'transcripts', 'zoom.vtt'));
    expect([vtt.container, vtt.hasAudio, vtt.hasVideo]).toEqual(['webvtt', false, false]);
    const notes = join(dir, 'secret-notes.txt');
    writeFileSync(notes, 'not a recording at all\n');
    const e = await mediaErrorOf(probe(notes));
    expect([e.reason, e.message]).toEqual(['unreadable', 'ffmpeg cannot read this file as audio or video (Invalid data found when processing input).']);
    const gone = await mediaErrorOf(probe(join(dir, 'missing.mkv')));
    expect(gone.message).not.toContain(dir);
  });

  it('a file name that looks like an ffmpeg protocol or option is read as a plain local file', async () => {
    const odd = join(dir, 'pipe:1 -y http:x.mkv');
    copyFileSync(join(VIDEO, 'budget.mkv'), odd);
    expect((await probe(odd)).container).toBe('matroska,webm');
  });

  describe('bounded in time, cancellable (a FIFO nobody writes to blocks ffprobe forever)', () => {
    let fifo: string;
    beforeAll(() => {
      fifo = join(dir, 'stalled.mkv');
      execFileSync('mkfifo', [fifo]);
    });

    it('times out with a clear error', async () => {
      const e = await mediaErrorOf(probe(fifo, { timeoutMs: 300 }));
      expect([e.reason, e.kind]).toEqual(['timeout', 'unavailable']);
      expect(e.message).toBe('ffprobe did not finish within 0.3 s; the file may be very long or damaged.');
    });

    it('stops when its signal is aborted, with the signal’s reason, and leaves no partial output', async () => {
      const ac = new AbortController();
      const reason = new Error('import cancelled');
      setTimeout(() => ac.abort(reason), 200);
      await expect(extractAudio(fifo, join(dir, 'stalled.ogg'), { signal: ac.signal })).rejects.toBe(reason);
      expect(readdirSync(dir).filter((f) => f.startsWith('stalled.ogg'))).toEqual([]);
      const already = AbortSignal.abort(reason);
      await expect(probe(join(VIDEO, 'budget.mkv'), { signal: already })).rejects.toBe(reason);
    });
  });
});
