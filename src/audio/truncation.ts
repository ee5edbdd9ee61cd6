// A cheap "is this file cut short?" check for import_recording, from the bytes already read to sniff
// the format. The worker reads the recording fully later; this only catches what the first frame or
// header gives away: a copy or download that stopped early would otherwise be queued, then
// transcribed in part without anyone noticing.
import type { AudioFormat } from './sniff.js';

/** Below this share of what its header declares, a file is taken to be cut short (a last partial frame is not). */
export const MIN_PRESENT_SHARE = 0.9;

/** Bytes of the first MPEG frame needed to read a Xing/Info or VBRI header. */
export const MPEG_HEAD_BYTES = 64;

const MPEG1_L3_KBPS = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const MPEG2_L3_KBPS = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

interface MpegFrame {
  length: number;
  /** Offset of a Xing/Info header in the frame: after the 4-byte header and the side information. */
  xingAt: number;
}

/** The first MPEG-1/2/2.5 Layer III frame header at `frame[0]`, or null when it is not one. */
function layer3Frame(frame: Uint8Array): MpegFrame | null {
  if (frame.length < 4 || frame[0] !== 0xff || (frame[1]! & 0xe0) !== 0xe0) return null;
  const version = (frame[1]! >> 3) & 0x03; // 3 = MPEG-1, 2 = MPEG-2, 0 = MPEG-2.5
  if (version === 1 || ((frame[1]! >> 1) & 0x03) !== 1) return null;
  const kbps = (version === 3 ? MPEG1_L3_KBPS : MPEG2_L3_KBPS)[frame[2]! >> 4];
  const rate = RATES[version]![(frame[2]! >> 2) & 0x03];
  if (!kbps || !rate) return null;
  const padding = (frame[2]! >> 1) & 0x01;
  const mono = frame[3]! >> 6 === 3;
  const length = Math.floor(((version === 3 ? 144_000 : 72_000) * kbps) / rate) + padding;
  const sideInfo = version === 3 ? (mono ? 17 : 32) : mono ? 9 : 17;
  return { length, xingAt: 4 + sideInfo };
}

const u32be = (b: Uint8Array, at: number) => (b.length >= at + 4 ? ((b[at]! << 24) >>> 0) + (b[at + 1]! << 16) + (b[at + 2]! << 8) + b[at + 3]! : undefined);
const tagAt = (b: Uint8Array, at: number, tag: string) => b.length >= at + 4 && String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!) === tag;

/** The stream size an MP3's first frame declares (Xing/Info or VBRI header), when it declares one. */
function declaredMp3Bytes(frame: Uint8Array, first: MpegFrame): number | undefined {
  for (const at of [first.xingAt, first.xingAt + 2]) {
    if (tagAt(frame, at, 'Xing') || tagAt(frame, at, 'Info')) {
      const flags = u32be(frame, at + 4) ?? 0;
      if (!(flags & 0x02)) return undefined;
      // The byte count follows the frame count when both are present.
      return u32be(frame, at + 8 + (flags & 0x01 ? 4 : 0));
    }
  }
  // Fraunhofer VBRI: 32 bytes after the header, byte count at +10.
  if (tagAt(frame, 36, 'VBRI')) return u32be(frame, 36 + 10);
  return undefined;
}

/**
 * Why the file looks cut short, or null. `head` is the start of the file; `frame` the bytes at
 * `frameStart` (after an ID3v2 tag) for an MP3; `size` the file's size.
 */
export function truncationOf(format: AudioFormat, head: Uint8Array, size: number, frame?: Uint8Array, frameStart = 0): string | null {
  if (format === 'mp3' && frame) {
    const first = layer3Frame(frame);
    if (!first) return null;
    if (size < frameStart + first.length) return `it ends inside its first MPEG audio frame (${size} bytes): it holds no complete frame of sound`;
    const declared = declaredMp3Bytes(frame, first);
    // Compared with the whole file: some encoders count the ID3 tag in, others do not.
    if (declared !== undefined && declared > 0 && size < declared * MIN_PRESENT_SHARE) return `its header declares ${declared} bytes of audio but the file has ${size}`;
    return null;
  }
  if (format === 'wav') {
    const riff = head.length >= 8 ? head[4]! + (head[5]! << 8) + (head[6]! << 16) + ((head[7]! << 24) >>> 0) : 0;
    // 0 and 0xFFFFFFFF: a recorder still writing (or a stream) that never filled the size in.
    if (riff === 0 || riff >= 0xffffff00) return null;
    const declared = riff + 8;
    if (size < declared * MIN_PRESENT_SHARE) return `its RIFF header declares ${declared} bytes but the file has ${size}`;
  }
  return null;
}
