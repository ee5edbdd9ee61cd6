import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inspectAudioFile } from '../../src/audio/file.js';
import { truncationOf } from '../../src/audio/truncation.js';
import { tempDir } from '../support/db.js';
import { FORMATS, PASSAGES, fixturePath } from '../support/speech-fixtures.js';

/** An MPEG-1 Layer III stereo frame header (128 kbit/s, 44.1 kHz: 417 bytes) followed by `tag` at offset 36. */
function mpeg1Frame(tag: Buffer): Buffer {
  const frame = Buffer.alloc(417);
  Buffer.from([0xff, 0xfb, 0x90, 0x00]).copy(frame, 0);
  tag.copy(frame, 36);
  return frame;
}
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

describe('truncationOf', () => {
  it('reads the byte count of a Xing header after its frame count, and of a VBRI header', () => {
    const xing = mpeg1Frame(Buffer.concat([Buffer.from('Xing'), u32(0x03), u32(1000), u32(500_000)]));
    expect(truncationOf('mp3', xing, 100_000, xing)).toBe('its header declares 500000 bytes of audio but the file has 100000');
    expect(truncationOf('mp3', xing, 460_000, xing)).toBeNull();
    const bytesOnly = mpeg1Frame(Buffer.concat([Buffer.from('Info'), u32(0x02), u32(500_000)]));
    expect(truncationOf('mp3', bytesOnly, 1_000, bytesOnly)).toMatch(/declares 500000 bytes/);
    const framesOnly = mpeg1Frame(Buffer.concat([Buffer.from('Xing'), u32(0x01), u32(1000)]));
    expect(truncationOf('mp3', framesOnly, 1_000, framesOnly)).toBeNull();
    const vbri = mpeg1Frame(Buffer.concat([Buffer.from('VBRI'), Buffer.alloc(6), u32(800_000)]));
    expect(truncationOf('mp3', vbri, 2_000, vbri)).toMatch(/declares 800000 bytes/);
  });

  it('refuses an MP3 that ends inside its first frame, and lets a plain CBR stream through', () => {
    const plain = mpeg1Frame(Buffer.alloc(0));
    expect(truncationOf('mp3', plain, 300, plain)).toMatch(/ends inside its first MPEG audio frame/);
    expect(truncationOf('mp3', plain, 10_000, plain)).toBeNull();
  });

  it('takes a WAV size of 0 or 0xFFFFFFFF for a recorder that never wrote it', () => {
    const wav = (size: number) => Buffer.concat([Buffer.from('RIFF'), Buffer.from(new Uint32Array([size]).buffer), Buffer.from('WAVE')]);
    expect(truncationOf('wav', wav(0), 10, undefined)).toBeNull();
    expect(truncationOf('wav', wav(0xffffffff), 10, undefined)).toBeNull();
    expect(truncationOf('wav', wav(1_000_000), 500_000, undefined)).toMatch(/declares 1000008 bytes but the file has 500000/);
    expect(truncationOf('wav', wav(1_000_000), 950_000, undefined)).toBeNull();
  });
});

describe('inspectAudioFile and the spoken fixtures', () => {
  const { dir, cleanup } = tempDir();
  afterAll(cleanup);

  it('accepts every fixture, whole', async () => {
    for (const p of PASSAGES) for (const format of FORMATS) expect((await inspectAudioFile(fixturePath(p.name, format))).format).toBe(format);
  });

  it('refuses each MP3 fixture cut to half, and accepts it missing only its last bytes', async () => {
    for (const p of PASSAGES) {
      const whole = readFileSync(fixturePath(p.name, 'mp3'));
      const half = join(dir, `${p.name}-half.mp3`);
      writeFileSync(half, whole.subarray(0, whole.length / 2));
      await expect(inspectAudioFile(half)).rejects.toThrow(/is cut short/);
      const nearlyWhole = join(dir, `${p.name}-tail.mp3`);
      writeFileSync(nearlyWhole, whole.subarray(0, whole.length - 100));
      expect((await inspectAudioFile(nearlyWhole)).format).toBe('mp3');
    }
  });
});
