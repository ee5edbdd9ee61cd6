import { SyntheoError } from '../../errors.js';
import { clip } from '../../text/clip.js';

// The one shape every transcript file becomes: words as the pipeline stores them (NewWord plus
// `estimated`), the file's cues, speaker turns, the duration and the speakers.

export const TRANSCRIPT_FORMATS = ['vtt', 'srt', 'verbose_json', 'speaker_text'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

export const FORMAT_NAMES: Record<TranscriptFormat, string> = {
  vtt: 'WebVTT',
  srt: 'SRT',
  verbose_json: 'Whisper JSON',
  speaker_text: 'speaker-labelled text',
};

export interface ParsedWord {
  text: string;
  startMs: number;
  endMs: number;
  speaker: string | null;
  /** True when the file gave no time for this word and it was spread over its cue (or a nominal rate). */
  estimated: boolean;
}

/** One cue of the file (one speaker's part of it when a cue holds several speakers). */
export interface ParsedCue {
  startMs: number;
  endMs: number;
  speaker: string | null;
  firstWord: number;
  wordCount: number;
}

/** Consecutive cues of one speaker. */
export interface ParsedTurn {
  speaker: string | null;
  startMs: number;
  endMs: number;
  firstWord: number;
  wordCount: number;
}

export interface ParsedTranscript {
  format: TranscriptFormat;
  words: ParsedWord[];
  cues: ParsedCue[];
  turns: ParsedTurn[];
  durationMs: number;
  /** Distinct speakers in order of first appearance. */
  speakers: string[];
  /** 'file': every word timed by the file; 'estimated': none; 'mixed': some. */
  timing: 'file' | 'estimated' | 'mixed';
  language?: string;
}

export interface TranscriptLimits {
  maxBytes: number;
  maxLineChars: number;
  maxCues: number;
  maxWords: number;
  maxWordsPerCue: number;
  maxJsonDepth: number;
}

export const TRANSCRIPT_LIMITS: Readonly<TranscriptLimits> = Object.freeze({
  maxBytes: 50 * 1024 * 1024,
  maxLineChars: 65_536,
  maxCues: 200_000, // a 10-hour meeting in 2-second cues is 18,000
  maxWords: 2_000_000,
  maxWordsPerCue: 10_000,
  maxJsonDepth: 64,
});

/** Times beyond this are refused: no meeting lasts 100 hours, and it keeps arithmetic far from overflow. */
export const MAX_TIME_MS = 100 * 3600 * 1000;
export const MAX_SPEAKER_CHARS = 100;
/** ~150 words a minute, the rate the transcription client also assumes when nothing says otherwise. */
export const NOMINAL_MS_PER_WORD = 400;

/**
 * A transcript file that cannot be imported. `line` (1-based) is set when the problem sits on one
 * line; `problem` says what was wrong there, e.g. `timestamp "00:01:xx.000" is not HH:MM:SS.mmm`.
 */
export class TranscriptFileError extends SyntheoError {
  override readonly name = 'TranscriptFileError';
  constructor(
    readonly format: TranscriptFormat | null,
    readonly line: number | null,
    readonly problem: string,
  ) {
    const what = format === null ? 'This file cannot be imported as a transcript' : `This ${FORMAT_NAMES[format]} transcript cannot be imported`;
    const where = line === null ? problem : `line ${line}: ${problem}`;
    super('invalid', `${what}: ${where}. Fix the file (or export it again from the app that made it) and import it again.`);
  }
}

/** A short, printable excerpt of the file for an error message: at most 40 characters, controls escaped. */
export function quote(text: string): string {
  return JSON.stringify(clip(text, 40)).replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Words of a text: split on any whitespace, never empty. */
export function tokens(text: string): string[] {
  return text.split(/\s+/u).filter((t) => t !== '');
}

/** Collapses whitespace; null when empty or too long to be a name. */
export function cleanSpeaker(name: string): string | null {
  const s = name.replace(/\s+/gu, ' ').trim();
  if (s === '') return null;
  return [...s].length > MAX_SPEAKER_CHARS ? [...s].slice(0, MAX_SPEAKER_CHARS).join('') : s;
}

/** Start times for `toks` placed one after another over [startMs, endMs], each in proportion to its length. */
export function spreadTimes(toks: readonly string[], startMs: number, endMs: number): Array<[number, number]> {
  const span = Math.max(0, endMs - startMs);
  let total = 0;
  for (const t of toks) total += t.length + 1;
  let at = 0;
  return toks.map((t) => {
    const s = startMs + Math.round((at / total) * span);
    at += t.length + 1;
    return [s, startMs + Math.round((at / total) * span)];
  });
}

/** Accumulates words and cues, enforcing the limits, and makes the final shape. */
export class TranscriptBuilder {
  readonly words: ParsedWord[] = [];
  readonly cues: ParsedCue[] = [];
  private fileTimed = 0;

  constructor(
    readonly format: TranscriptFormat,
    readonly limits: TranscriptLimits,
  ) {}

  /** Adds one cue's words (already timed). `line` is where the cue starts, for errors. */
  addCue(words: readonly ParsedWord[], line: number | null): void {
    if (words.length === 0) return;
    if (words.length > this.limits.maxWordsPerCue)
      throw new TranscriptFileError(this.format, line, `a cue holds ${words.length} words, more than the ${this.limits.maxWordsPerCue} allowed`);
    if (this.words.length + words.length > this.limits.maxWords)
      throw new TranscriptFileError(this.format, line, `the transcript holds more than ${this.limits.maxWords} words`);
    let from = 0;
    for (let i = 1; i <= words.length; i++) {
      if (i === words.length || words[i]!.speaker !== words[from]!.speaker) {
        if (this.cues.length >= this.limits.maxCues) throw new TranscriptFileError(this.format, line, `the transcript holds more than ${this.limits.maxCues} cues`);
        const part = words.slice(from, i);
        this.cues.push({
          startMs: part[0]!.startMs,
          endMs: Math.max(...part.map((w) => w.endMs)),
          speaker: part[0]!.speaker,
          firstWord: this.words.length + from,
          wordCount: part.length,
        });
        from = i;
      }
    }
    for (const w of words) {
      if (!w.estimated) this.fileTimed++;
      this.words.push(w);
    }
  }

  finish(extra: { durationMs?: number | null; language?: string | null } = {}): ParsedTranscript {
    if (this.words.length === 0) throw new TranscriptFileError(this.format, null, 'the file holds no words');
    const turns: ParsedTurn[] = [];
    for (const c of this.cues) {
      const last = turns[turns.length - 1];
      if (last !== undefined && last.speaker === c.speaker && last.firstWord + last.wordCount === c.firstWord) {
        last.endMs = Math.max(last.endMs, c.endMs);
        last.wordCount += c.wordCount;
      } else turns.push({ ...c });
    }
    const seen = new Set<string>();
    let end = 0;
    for (const w of this.words) {
      if (w.speaker !== null) seen.add(w.speaker);
      if (w.endMs > end) end = w.endMs;
    }
    const timing = this.fileTimed === this.words.length ? 'file' : this.fileTimed === 0 ? 'estimated' : 'mixed';
    const out: ParsedTranscript = {
      format: this.format,
      words: this.words,
      cues: this.cues,
      turns,
      durationMs: Math.max(end, extra.durationMs ?? 0),
      speakers: [...seen],
      timing,
    };
    if (extra.language) out.language = extra.language;
    return out;
  }
}
