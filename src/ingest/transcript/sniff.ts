import { sniffAudio } from '../../audio/sniff.js';
import type { TranscriptFormat } from './model.js';
import { classifyLine } from './speaker-text.js';
import { decodeText } from './text.js';

/** Bytes to read from the start of a file for sniffTranscript(). */
export const TRANSCRIPT_SNIFF_BYTES = 8192;

// Keys a transcription tool's JSON starts with (OpenAI/speaches verbose_json, whisper.cpp -oj).
const JSON_FIRST_KEYS = new Set(['task', 'language', 'duration', 'text', 'segments', 'words', 'transcription', 'systeminfo', 'model', 'params', 'result']);
const JSON_CONTENT_KEY = /"(?:segments|words|text|transcription)"\s*:/;
const TIMING = /^[\d:.,]+[ \t]*-->/;

/**
 * Which transcript format the first bytes of a file are, from content alone; null for anything else
 * (audio, video, binary, prose). Malformed files of a known format are still detected, so that
 * parsing can say which line is wrong.
 */
export function sniffTranscript(bytes: Uint8Array): TranscriptFormat | null {
  const head = bytes.subarray(0, TRANSCRIPT_SNIFF_BYTES);
  if (head.length === 0 || sniffAudio(head) !== null) return null;
  const text = decodeText(head, true);
  if (text === null) return null;
  if (/^WEBVTT(?:[ \t\r\n]|$)/.test(text)) return 'vtt';
  const body = text.trimStart();
  if (body.startsWith('{')) {
    const first = /^\{\s*"([A-Za-z_]+)"\s*:/.exec(body);
    return first !== null && JSON_FIRST_KEYS.has(first[1]!) && JSON_CONTENT_KEY.test(body) ? 'verbose_json' : null;
  }
  let all = body.split(/\r\n|\r|\n/);
  // The head may end inside a line: judge only whole lines, unless that is all there is.
  if (all.length > 1 && head.length >= TRANSCRIPT_SNIFF_BYTES) all = all.slice(0, -1);
  const nonEmpty = all.map((l) => l.trim()).filter((l) => l !== '');
  const [l0, l1] = nonEmpty;
  if (l0 !== undefined && (TIMING.test(l0) || (/^\d{1,9}$/.test(l0) && l1 !== undefined && l1.includes('-->')))) return 'srt';

  // Speaker lines saying something: a third of the lines or more, mostly with capitalised names
  // (YAML's and config files' `key: value` lines have lowercase keys).
  const sample = nonEmpty.slice(0, 60);
  const names: string[] = [];
  for (const l of sample) {
    const c = classifyLine(l);
    if (c.kind === 'turn' && (c.text.trim() !== '' || c.atMs !== null)) names.push(c.speaker);
  }
  if (names.length === 0 || names.length * 3 < sample.length) return null;
  const capitalised = names.filter((n) => !/^\p{Ll}/u.test(n)).length;
  return capitalised * 2 > names.length ? 'speaker_text' : null;
}
