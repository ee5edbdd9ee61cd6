import { sniffAudio, type AudioFormat } from '../audio/sniff.js';
import { MediaError, noAudio, probe, type MediaInfo, type ProbeOptions } from './ffmpeg.js';
import { sniffTranscript } from './transcript/sniff.js';
import { decodeText } from './transcript/text.js';
import type { TranscriptFormat } from './transcript/model.js';

// What an import's first bytes are: one of the eight audio formats (no ffmpeg needed), a transcript
// file, a container known to need ffmpeg (named, so a missing ffmpeg can be reported as such), text
// of another kind, or unknown. Then, for what ffmpeg must read, what it holds (inspectMedia).

export const CONTAINERS = ['matroska', 'avi', 'asf', 'mpegts', 'quicktime', 'mpeg_ps', 'flv', 'amr', 'aiff', 'caf', 'rf64'] as const;
export type Container = (typeof CONTAINERS)[number];

export const CONTAINER_NAMES: Record<Container, string> = {
  matroska: 'Matroska (MKV/MKA)',
  avi: 'AVI',
  asf: 'Windows Media (WMA/WMV)',
  mpegts: 'MPEG-TS',
  quicktime: 'QuickTime (MOV)',
  mpeg_ps: 'MPEG program stream (VOB/MPG)',
  flv: 'Flash video (FLV)',
  amr: 'AMR',
  aiff: 'AIFF',
  caf: 'Core Audio (CAF)',
  rf64: 'RF64/BW64 WAVE',
};

export type Detected =
  | { kind: 'audio'; format: AudioFormat }
  | { kind: 'transcript'; format: TranscriptFormat }
  | { kind: 'container'; container: Container }
  | { kind: 'text' }
  | { kind: 'unknown' };

const ascii = (b: Uint8Array, at: number, text: string): boolean => {
  if (b.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (b[at + i] !== text.charCodeAt(i)) return false;
  return true;
};

const ASF_GUID = [0x30, 0x26, 0xb2, 0x75, 0x8e, 0x66, 0xcf, 0x11, 0xa6, 0xd9, 0x00, 0xaa, 0x00, 0x62, 0xce, 0x6c];
const QUICKTIME_ATOMS = ['moov', 'mdat', 'wide', 'free', 'skip', 'pnot'];

/** Containers that ffmpeg reads and the eight-format sniffer does not accept. */
export function sniffContainer(head: Uint8Array): Container | null {
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return 'matroska';
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'AVI ')) return 'avi';
  if (ASF_GUID.every((b, i) => head[i] === b)) return 'asf';
  // Transport stream: a 0x47 sync byte every 188 bytes (every 192 in Blu-ray's M2TS).
  if ([0, 188, 376].every((at) => head[at] === 0x47) || [4, 196, 388].every((at) => head[at] === 0x47)) return 'mpegts';
  if (QUICKTIME_ATOMS.some((a) => ascii(head, 4, a))) return 'quicktime';
  if (head[0] === 0 && head[1] === 0 && head[2] === 1 && head[3] === 0xba) return 'mpeg_ps';
  if (ascii(head, 0, 'FLV\x01')) return 'flv';
  if (ascii(head, 0, '#!AMR')) return 'amr';
  if (ascii(head, 0, 'FORM') && (ascii(head, 8, 'AIFF') || ascii(head, 8, 'AIFC'))) return 'aiff';
  if (ascii(head, 0, 'caff')) return 'caf';
  if ((ascii(head, 0, 'RF64') || ascii(head, 0, 'BW64')) && ascii(head, 8, 'WAVE')) return 'rf64';
  return null;
}

export function detectHead(head: Uint8Array): Detected {
  const audio = sniffAudio(head);
  if (audio !== null) return { kind: 'audio', format: audio };
  const transcript = sniffTranscript(head);
  if (transcript !== null) return { kind: 'transcript', format: transcript };
  const container = sniffContainer(head);
  if (container !== null) return { kind: 'container', container };
  return decodeText(head, true) !== null ? { kind: 'text' } : { kind: 'unknown' };
}

export interface MediaForImport extends MediaInfo {
  /** True when the file must go through extractAudio before upload (a video, or a format servers do not take). */
  needsExtraction: boolean;
}

/**
 * What ffmpeg finds in a file detected as audio, a container or unknown. Null for one of the eight
 * audio formats when ffmpeg is missing: it can be uploaded as it is. Refuses, with the reason, a
 * container when ffmpeg is missing, a file ffmpeg cannot read, and a file without an audio track.
 */
export async function inspectMedia(path: string, detected: Detected, opts: ProbeOptions = {}): Promise<MediaForImport | null> {
  if (detected.kind === 'transcript' || detected.kind === 'text')
    throw new MediaError('unreadable', detected.kind === 'text' ? 'This file is text, but not a transcript Syntheo reads (WebVTT, SRT, Whisper JSON or "Speaker: text" lines).' : 'This file is a transcript: import it without ffmpeg.');
  let info: MediaInfo;
  try {
    info = await probe(path, opts);
  } catch (e) {
    if (!(e instanceof MediaError)) throw e;
    if (e.reason === 'ffmpeg_missing') {
      if (detected.kind === 'audio') return null;
      if (detected.kind === 'container') throw new MediaError('ffmpeg_missing', `This is a ${CONTAINER_NAMES[detected.container]} file. ${e.message}`);
      throw new MediaError('unreadable', 'This file is not one of the audio formats Syntheo reads without ffmpeg (WAV, MP3, OGG, MP4, M4A, FLAC, WebM, AAC), nor a transcript; ffmpeg, which reads many more, is not installed (Debian package `ffmpeg`).');
    }
    if (e.reason === 'unreadable' && detected.kind === 'unknown')
      throw new MediaError('unreadable', 'This file is not a recording or a transcript that Syntheo (or ffmpeg) can read.');
    throw e;
  }
  if (!info.hasAudio) throw noAudio(info);
  return { ...info, needsExtraction: info.hasVideo || detected.kind !== 'audio' };
}
