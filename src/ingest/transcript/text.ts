import { TranscriptFileError, type TranscriptFormat } from './model.js';

// Bytes -> text: UTF-8 (with or without BOM), UTF-16 with a BOM (Windows subtitle tools), else
// Windows-1252 (old subtitle files). Text with control characters (NUL...) is not text.

/** C0 controls other than tab, LF, FF, CR; DEL. Their presence means binary, not a transcript. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/u;

/**
 * Decodes a whole file or, with `partial`, the head of one (a multi-byte character cut at the end is
 * dropped). Returns null when the bytes are not text. The BOM is removed.
 */
export function decodeText(bytes: Uint8Array, partial = false): string | null {
  let text: string | null = null;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) text = tryDecode('utf-8', bytes.subarray(3), partial);
  else if (bytes[0] === 0xff && bytes[1] === 0xfe) text = tryDecode('utf-16le', bytes.subarray(2), partial);
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) text = tryDecode('utf-16be', bytes.subarray(2), partial);
  else text = tryDecode('utf-8', bytes, partial) ?? tryDecode('windows-1252', bytes, partial);
  if (text === null || CONTROL.test(text)) return null;
  return text;
}

function tryDecode(encoding: string, bytes: Uint8Array, partial: boolean): string | null {
  try {
    return new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(bytes, { stream: partial });
  } catch {
    return null;
  }
}

/** The line of the first control character, for the error that refuses a binary file. */
export function controlLine(bytes: Uint8Array): number {
  let line = 1;
  for (const b of bytes) {
    if (b === 0x0a) line++;
    else if ((b < 0x20 && b !== 0x09 && b !== 0x0c && b !== 0x0d) || b === 0x7f) return line;
  }
  return line;
}

export function decodeOrThrow(bytes: Uint8Array, format: TranscriptFormat | null): string {
  const text = decodeText(bytes);
  if (text === null) throw new TranscriptFileError(format, controlLine(bytes), 'the file holds binary data (control characters), not text');
  return text;
}

export interface Line {
  text: string;
  /** 1-based line number. */
  no: number;
}

/** Lines split on LF, CRLF or CR, each checked against the length limit. Linear in the text. */
export function* lines(text: string, maxLineChars: number, format: TranscriptFormat): Generator<Line> {
  let at = 0;
  let no = 1;
  while (at <= text.length) {
    let end = at;
    while (end < text.length && text.charCodeAt(end) !== 10 && text.charCodeAt(end) !== 13) end++;
    if (end - at > maxLineChars) throw new TranscriptFileError(format, no, `the line is longer than ${maxLineChars} characters`);
    if (end === text.length && end === at && at > 0) return; // no empty line after a final newline
    yield { text: text.slice(at, end), no };
    if (end >= text.length) return;
    at = end + (text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10 ? 2 : 1);
    no++;
  }
}
