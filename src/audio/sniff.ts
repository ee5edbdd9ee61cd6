// Audio format detection from content (never from the file name): the eight formats of the reference.

export const AUDIO_FORMATS = ['wav', 'mp3', 'ogg', 'mp4', 'm4a', 'flac', 'webm', 'aac'] as const;
export type AudioFormat = (typeof AUDIO_FORMATS)[number];

export const AUDIO_FORMAT_LIST = 'WAV, MP3, OGG, MP4, M4A, FLAC, WebM or AAC';

/** The MIME type of each format: what an upload or an <audio> element is told the bytes are. */
export const AUDIO_MIME: Record<AudioFormat, string> = {
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  mp4: 'video/mp4',
  m4a: 'audio/mp4',
  flac: 'audio/flac',
  webm: 'audio/webm',
  aac: 'audio/aac',
};

/** The MIME type for a format name or a file extension (`.mp3`), or application/octet-stream. */
export function audioMime(formatOrExt: string): string {
  const key = formatOrExt.replace(/^\./, '').toLowerCase();
  return (AUDIO_FORMATS as readonly string[]).includes(key) ? AUDIO_MIME[key as AudioFormat] : 'application/octet-stream';
}

/** Bytes to read from the start of a file for sniff(): enough to skip a large ID3 tag's header. */
export const SNIFF_BYTES = 4096;

const ascii = (b: Uint8Array, at: number, text: string): boolean => {
  if (b.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (b[at + i] !== text.charCodeAt(i)) return false;
  return true;
};

/** MPEG audio frame sync: 11 set bits. Layer bits 01 = Layer III (MP3), 00 = ADTS (AAC). */
function mpegKind(b: Uint8Array, at: number): 'mp3' | 'aac' | null {
  if (b.length < at + 4) return null;
  const b0 = b[at]!;
  const b1 = b[at + 1]!;
  if (b0 !== 0xff || (b1 & 0xe0) !== 0xe0) return null;
  const layer = (b1 >> 1) & 0x03;
  if ((b1 & 0xf0) === 0xf0 && layer === 0) {
    // ADTS: sampling frequency index 0..12, frame length >= 7.
    const sf = (b[at + 2]! >> 2) & 0x0f;
    return sf <= 12 ? 'aac' : null;
  }
  if (layer === 1) {
    const bitrate = b[at + 2]! >> 4;
    const rate = (b[at + 2]! >> 2) & 0x03;
    return bitrate !== 0 && bitrate !== 15 && rate !== 3 ? 'mp3' : null;
  }
  return null;
}

/** Size of an ID3v2 tag at the start (header + body + optional footer), else 0. */
export function id3Size(b: Uint8Array): number {
  if (!ascii(b, 0, 'ID3') || b.length < 10) return 0;
  const size = ((b[6]! & 0x7f) << 21) | ((b[7]! & 0x7f) << 14) | ((b[8]! & 0x7f) << 7) | (b[9]! & 0x7f);
  const footer = (b[5]! & 0x10) !== 0 ? 10 : 0;
  return 10 + size + footer;
}

/**
 * Detects the container from the first bytes. `afterId3` gives the bytes that follow an ID3 tag
 * when the tag is larger than the header buffer (the caller reads them).
 */
export function sniffAudio(head: Uint8Array, afterId3?: Uint8Array): AudioFormat | null {
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WAVE')) return 'wav';
  if (ascii(head, 0, 'OggS')) return 'ogg';
  if (ascii(head, 0, 'fLaC')) return 'flac';
  if (ascii(head, 4, 'ftyp')) {
    const brand = String.fromCharCode(...head.subarray(8, 12));
    return brand === 'M4A ' || brand === 'M4B ' || brand === 'M4P ' ? 'm4a' : 'mp4';
  }
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) {
    // EBML: WebM declares DocType "webm" in the header; other Matroska files are not accepted.
    const text = Buffer.from(head.subarray(0, 64)).toString('latin1');
    return text.includes('webm') ? 'webm' : null;
  }
  if (ascii(head, 0, 'ADIF')) return 'aac';
  const tag = id3Size(head);
  if (tag > 0) {
    const rest = tag < head.length ? head.subarray(tag) : afterId3;
    if (!rest) return null;
    if (ascii(rest, 0, 'fLaC')) return 'flac';
    return mpegKind(rest, 0);
  }
  return mpegKind(head, 0);
}

/** What a rejected file's content looks like, for a message a person can act on. */
export function describeContent(head: Uint8Array): string {
  if (head.length === 0) return 'it is empty';
  if (ascii(head, 0, '%PDF')) return 'it looks like a PDF document';
  if (ascii(head, 0, 'PK')) return 'it looks like a ZIP archive (or an Office document)';
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return 'it is a Matroska (MKV/MKA) file, not WebM';
  if (ascii(head, 0, 'RIFF')) return 'it is a RIFF file but not WAVE (AVI?)';
  let printable = 0;
  const n = Math.min(head.length, 512);
  for (let i = 0; i < n; i++) {
    const c = head[i]!;
    if (c === 9 || c === 10 || c === 13 || (c >= 32 && c < 127) || c >= 0xc2) printable++;
  }
  return printable / n > 0.95 ? 'it looks like text' : 'its content is not a recognised audio format';
}
