import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { TRANSCRIPT_LIMITS, TranscriptFileError, type ParsedTranscript, type TranscriptFormat, type TranscriptLimits } from './model.js';
import { parseSpeakerText } from './speaker-text.js';
import { TRANSCRIPT_SNIFF_BYTES, sniffTranscript } from './sniff.js';
import { parseSrt, parseVtt } from './subtitles.js';
import { decodeOrThrow } from './text.js';
import { parseWhisperJson } from './whisper-json.js';

export * from './model.js';
export { sniffTranscript, TRANSCRIPT_SNIFF_BYTES } from './sniff.js';

export interface ParseOptions {
  /** Skip detection (the caller already sniffed the file). */
  format?: TranscriptFormat;
  limits?: Partial<TranscriptLimits>;
}

/** Any accepted transcript file's bytes -> words, cues, turns and speakers; throws TranscriptFileError. */
export function parseTranscript(bytes: Uint8Array, opts: ParseOptions = {}): ParsedTranscript {
  const limits: TranscriptLimits = { ...TRANSCRIPT_LIMITS, ...opts.limits };
  const format = opts.format ?? sniffTranscript(bytes.subarray(0, TRANSCRIPT_SNIFF_BYTES)) ?? sniffTextBefore(bytes);
  if (format === null)
    throw new TranscriptFileError(null, null, 'its content is not WebVTT, SRT, Whisper JSON or "Speaker: text" lines');
  if (bytes.length > limits.maxBytes) throw tooLarge(format, bytes.length, limits);
  const text = decodeOrThrow(bytes, format);
  switch (format) {
    case 'vtt':
      return parseVtt(text, limits);
    case 'srt':
      return parseSrt(text, limits);
    case 'verbose_json':
      return parseWhisperJson(text, limits);
    case 'speaker_text':
      return parseSpeakerText(text, limits);
  }
}

/** A transcript with binary data further on: detected from the text before it, so the error names its line. */
function sniffTextBefore(bytes: Uint8Array): TranscriptFormat | null {
  const end = bytes.subarray(0, TRANSCRIPT_SNIFF_BYTES).findIndex((b) => (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0c && b !== 0x0d) || b === 0x7f);
  return end > 0 ? sniffTranscript(bytes.subarray(0, end)) : null;
}

function tooLarge(format: TranscriptFormat | null, size: number, limits: TranscriptLimits): TranscriptFileError {
  return new TranscriptFileError(format, null, `the file is ${sizeText(size)}, more than the ${sizeText(limits.maxBytes)} a transcript may be`);
}

const sizeText = (bytes: number): string => (bytes < 1048576 ? `${Math.ceil(bytes / 1024)} KB` : `${(bytes / 1048576).toFixed(1)} MB`);

/** Reads and parses a transcript file, refusing one over the size limit before reading it whole. */
export async function readTranscriptFile(path: string, opts: ParseOptions = {}): Promise<ParsedTranscript> {
  const limits: TranscriptLimits = { ...TRANSCRIPT_LIMITS, ...opts.limits };
  // O_NONBLOCK: a FIFO must not make us wait for a writer; it is then refused as not a regular file.
  const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await file.stat();
    if (!info.isFile()) throw new TranscriptFileError(opts.format ?? null, null, 'it is not a regular file');
    const { size } = info;
    if (size > limits.maxBytes) throw tooLarge(opts.format ?? null, size, limits);
    // Read at most one byte past the limit: the file may grow between stat and read.
    const buf = Buffer.alloc(Math.min(size, limits.maxBytes) + 1);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await file.read(buf, got, buf.length - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    if (got > limits.maxBytes) throw tooLarge(opts.format ?? null, got, limits);
    return parseTranscript(buf.subarray(0, got), opts);
  } finally {
    await file.close();
  }
}
