import { MAX_TIME_MS, TranscriptFileError, quote, type TranscriptFormat } from './model.js';

// Cue timestamps: WebVTT `[HH:]MM:SS.mmm`, SRT `HH:MM:SS,mmm`. Each accepts the other's separator,
// which converters often get wrong, but nothing looser: a bad timestamp is refused with its line.

const STAMP = /^(?:(\d{1,3}):)?([0-5]\d):([0-5]\d)[.,](\d{3})$/;

export function parseTimestamp(token: string, format: TranscriptFormat, line: number): number {
  const m = STAMP.exec(token);
  if (m === null) {
    const shape = format === 'srt' ? 'HH:MM:SS,mmm' : 'HH:MM:SS.mmm';
    throw new TranscriptFileError(format, line, `timestamp ${quote(token)} is not ${shape}`);
  }
  const ms = ((Number(m[1] ?? 0) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000 + Number(m[4]);
  if (ms > MAX_TIME_MS) throw new TranscriptFileError(format, line, `timestamp ${quote(token)} is beyond 100 hours`);
  return ms;
}

export interface CueTiming {
  startMs: number;
  endMs: number;
}

/** `start --> end [settings]`; the settings (WebVTT position, SRT coordinates) are ignored. */
export function parseTimingLine(text: string, format: TranscriptFormat, line: number): CueTiming {
  const arrow = text.indexOf('-->');
  const start = text.slice(0, arrow).trim();
  const after = text.slice(arrow + 3).trim();
  const end = after.split(/[ \t]+/)[0] ?? '';
  if (start === '') throw new TranscriptFileError(format, line, `cue timing ${quote(text.trim())} has no start time`);
  if (end === '') throw new TranscriptFileError(format, line, `cue timing ${quote(text.trim())} has no end time`);
  const startMs = parseTimestamp(start, format, line);
  const endMs = parseTimestamp(end, format, line);
  if (endMs < startMs) throw new TranscriptFileError(format, line, `the cue ends (${end}) before it starts (${start})`);
  return { startMs, endMs };
}

/** A time of day or offset written loosely in plain transcripts: `1:02:03`, `01:02`, `[00:05:00]`. */
const LOOSE = /^\[?(?:(\d{1,2}):)?(\d{1,2}):([0-5]\d)(?:[.,]\d{1,3})?\]?$/;

export function parseLooseTime(token: string): number | null {
  const m = LOOSE.exec(token);
  if (m === null) return null;
  const ms = ((Number(m[1] ?? 0) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000;
  return ms <= MAX_TIME_MS ? ms : null;
}
