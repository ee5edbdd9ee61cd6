import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { detectHead, inspectMedia, sniffContainer } from '../../src/ingest/detect.js';
import { tempDir } from '../support/db.js';
import { HAS_FFMPEG, mediaErrorOf } from '../support/media.js';
import { FORMATS, fixturePath } from '../support/speech-fixtures.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');
const head = (path: string): Uint8Array => readFileSync(path).subarray(0, 8192);
const NO_FFPROBE = { ffprobePath: '/nonexistent/ffprobe' };

describe('detectHead', () => {
  it.each(FORMATS.map((f) => [f]))('the spoken %s fixture is that audio format', (format) => {
    expect(detectHead(head(fixturePath('budget', format)))).toEqual({ kind: 'audio', format });
  });

  it('every transcript fixture is a transcript', () => {
    const dir = join(FIXTURES, 'transcripts');
    const files = readdirSync(dir).filter((f) => !f.endsWith('.md'));
    expect(files.length).toBeGreaterThanOrEqual(15);
    for (const f of files) expect([f, detectHead(head(join(dir, f))).kind]).toEqual([f, 'transcript']);
  });

  it.each([
    ['budget.mkv', { kind: 'container', container: 'matroska' }],
    ['hiring.avi', { kind: 'container', container: 'avi' }],
    ['budget.mpegts', { kind: 'container', container: 'mpegts' }],
    ['launch.wma', { kind: 'container', container: 'asf' }],
    // QuickTime files with an ftyp box are read as MP4 by the eight-format sniffer, as before.
    ['launch.mov', { kind: 'audio', format: 'mp4' }],
    ['silent-video.mp4', { kind: 'audio', format: 'mp4' }],
  ])('video fixture %s', (file, want) => {
    expect(detectHead(head(join(FIXTURES, 'video', file)))).toEqual(want);
  });

  it.each([
    ['flv', Buffer.from('FLV\x01\x05\x00\x00\x00\x09', 'latin1')],
    ['amr', Buffer.from('#!AMR\n\x3c', 'latin1')],
    ['aiff', Buffer.from('FORM\x00\x00\x10\x00AIFFCOMM', 'latin1')],
    ['caf', Buffer.from('caff\x00\x01\x00\x00desc', 'latin1')],
    ['rf64', Buffer.from('RF64\xff\xff\xff\xffWAVEds64', 'latin1')],
    ['mpeg_ps', Buffer.from([0, 0, 1, 0xba, 0x44, 0, 4, 0, 4, 1])],
    ['quicktime', Buffer.from('\x00\x00\x00\x08wide\x00\x10\x00\x00mdat', 'latin1')],
    ['mpegts', Buffer.concat([0, 1, 2].map(() => Buffer.concat([Buffer.from([0x47, 0x40, 0x00, 0x10]), Buffer.alloc(184, 0xff)])))],
    ['mpegts', Buffer.concat([0, 1, 2].map(() => Buffer.concat([Buffer.alloc(4), Buffer.from([0x47, 0x40, 0x00, 0x10]), Buffer.alloc(184, 0xff)])))],
  ])('%s from its magic bytes', (container, bytes) => {
    expect(sniffContainer(bytes)).toBe(container);
    expect(detectHead(bytes)).toEqual({ kind: 'container', container });
  });

  it('other text and other binary', () => {
    expect(detectHead(Buffer.from('Dear team, the notes are attached.\n'))).toEqual({ kind: 'text' });
    expect(detectHead(Buffer.from('%PDF-1.7\n\x00\x01binary', 'latin1'))).toEqual({ kind: 'unknown' });
  });
});

describe('inspectMedia without ffmpeg', () => {
  it('one of the eight formats can still be uploaded as it is', async () => {
    const m4a = fixturePath('budget', 'm4a');
    expect(await inspectMedia(m4a, detectHead(head(m4a)), NO_FFPROBE)).toBeNull();
  });

  it('a container that needs ffmpeg says which, and to install the Debian package `ffmpeg`', async () => {
    const mkv = join(FIXTURES, 'video', 'budget.mkv');
    const e = await mediaErrorOf(inspectMedia(mkv, detectHead(head(mkv)), NO_FFPROBE));
    expect(e.reason).toBe('ffmpeg_missing');
    expect(e.message).toMatch(/^This is a Matroska \(MKV\/MKA\) file\. ffprobe is not installed.*package `ffmpeg`/);
  });

  it('an unknown file is refused as unreadable, naming what would read more', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const f = join(dir, 'blob.bin');
      writeFileSync(f, Buffer.from([0, 1, 2, 3, 4, 5]));
      const e = await mediaErrorOf(inspectMedia(f, detectHead(head(f)), NO_FFPROBE));
      expect(e.reason).toBe('unreadable');
      expect(e.message).toContain('Debian package `ffmpeg`');
    } finally {
      cleanup();
    }
  });
});

describe.skipIf(!HAS_FFMPEG)('inspectMedia (needs ffmpeg: Debian package `ffmpeg`)', () => {
  const { dir, cleanup } = tempDir();
  afterAll(cleanup);
  const inspect = (path: string) => inspectMedia(path, detectHead(head(path)));

  it.each([
    ['video/budget.mkv', true, true],
    ['video/launch.wma', false, true],
    ['video/launch.mov', true, true],
    ['speech/budget.mp4', true, true],
    ['speech/budget.m4a', false, false],
    ['speech/budget.webm', false, false],
  ])('%s: video %s, needs extraction %s', async (file, hasVideo, needsExtraction) => {
    const info = await inspect(join(FIXTURES, file));
    expect([info!.hasAudio, info!.hasVideo, info!.needsExtraction]).toEqual([true, hasVideo, needsExtraction]);
  });

  it('a video without audio and a file ffmpeg cannot read are refused with the reason', async () => {
    expect((await mediaErrorOf(inspect(join(FIXTURES, 'video', 'silent-video.mp4')))).message).toBe('This video file has no audio track, so there is nothing to transcribe.');
    const f = join(dir, 'blob.bin');
    writeFileSync(f, Buffer.from([0, 1, 2, 3, 4, 5, 6, 7]));
    expect((await mediaErrorOf(inspect(f))).message).toBe('This file is not a recording or a transcript that Syntheo (or ffmpeg) can read.');
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'Dear team, the notes are attached.\n');
    expect((await mediaErrorOf(inspect(notes))).message).toBe('This file is text, but not a transcript Syntheo reads (WebVTT, SRT, Whisper JSON or "Speaker: text" lines).');
  });
});
