import { mkdirSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sniffAudio } from '../../src/audio/sniff.js';
import { inspectAudioFile, titleFromPath } from '../../src/audio/file.js';
import { tempDir } from '../support/db.js';

const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
const pad = (b: Buffer, n = 64) => Buffer.concat([b, Buffer.alloc(Math.max(0, n - b.length))]);

describe('sniffAudio', () => {
  it.each([
    ['wav', bytes('RIFF', [0, 0, 0, 0], 'WAVEfmt ')],
    ['ogg', bytes('OggS', [0, 2])],
    ['flac', bytes('fLaC', [0, 0, 0, 34])],
    ['m4a', bytes([0, 0, 0, 32], 'ftypM4A ', [0, 0, 0, 0])],
    ['mp4', bytes([0, 0, 0, 32], 'ftypisom', [0, 0, 2, 0])],
    ['webm', bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84], 'webm')],
    ['mp3', bytes([0xff, 0xfb, 0x90, 0x64])],
    ['mp3', bytes('ID3', [4, 0, 0, 0, 0, 0, 10], 'x'.repeat(10), [0xff, 0xfb, 0x90, 0x64])],
    ['aac', bytes([0xff, 0xf1, 0x50, 0x80, 0x02, 0x1f, 0xfc])],
  ])('recognises %s from its content', (format, head) => {
    expect(sniffAudio(pad(head))).toBe(format);
  });

  it.each([
    ['text', bytes('hello, this is not audio at all')],
    ['matroska video', bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x88], 'matroska')],
    ['AVI', bytes('RIFF', [0, 0, 0, 0], 'AVI LIST')],
    ['MPEG layer II', bytes([0xff, 0xfd, 0x90, 0x64])],
  ])('rejects %s', (_name, head) => {
    expect(sniffAudio(pad(head))).toBeNull();
  });
});

describe('inspectAudioFile', () => {
  const { dir, cleanup } = tempDir();
  afterAll(cleanup);
  const wav = join(dir, 'standup.wav');
  writeFileSync(wav, pad(bytes('RIFF', [0, 0, 0, 0], 'WAVEfmt '), 1024));

  it('accepts a real path and a symlink to it, resolving the link', async () => {
    const link = join(dir, 'link.wav');
    symlinkSync(wav, link);
    expect(await inspectAudioFile(link)).toMatchObject({ path: wav, size: 1024, format: 'wav' });
  });

  it.each([
    ['a relative path', () => 'recordings/standup.wav', /is relative/],
    ['a ~ path', () => '~/standup.wav', /starts with "~"/],
    ['a missing file', () => join(dir, 'nope.wav'), /does not exist/],
    ['a directory', () => dir, /is a directory/],
    ['an empty file', () => (writeFileSync(join(dir, 'empty.wav'), ''), join(dir, 'empty.wav')), /is empty \(0 bytes\)/],
    ['a text file named .wav', () => (writeFileSync(join(dir, 'notes.wav'), 'meeting notes\n'.repeat(50)), join(dir, 'notes.wav')), /not a supported recording: it looks like text/],
    ['a symlink loop', () => (symlinkSync(join(dir, 'loop-b'), join(dir, 'loop-a')), symlinkSync(join(dir, 'loop-a'), join(dir, 'loop-b')), join(dir, 'loop-a')), /symlink loop/],
    ['/dev/zero', () => '/dev/zero', /not a regular file/],
    ['a 5,000-character path', () => `/${'a'.repeat(5000)}.wav`, /longer than 4096 bytes/],
  ])('refuses %s with a clear message', async (_name, path, message) => {
    await expect(inspectAudioFile(path())).rejects.toThrow(message);
  });

  it('refuses an unreadable file', async () => {
    if (process.getuid?.() === 0) return; // root reads everything; the permission check cannot be observed
    const locked = join(dir, 'locked.wav');
    writeFileSync(locked, pad(bytes('RIFF', [0, 0, 0, 0], 'WAVE'), 100));
    chmodSync(locked, 0o000);
    await expect(inspectAudioFile(locked)).rejects.toThrow(/permission denied/);
  });

  it('derives the default title from the file name', () => {
    expect(titleFromPath('/x/Weekly sync 2026-11-30.m4a')).toBe('Weekly sync 2026-11-30');
    expect(titleFromPath('/x/.wav')).toBe('.wav');
    mkdirSync(join(dir, 'sub'), { recursive: true });
  });
});
