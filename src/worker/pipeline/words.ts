import type { NewWord } from '../../db/model/transcripts.js';
import type { TranscriptTiming } from '../../db/schema/enums.js';
import type { Transcript, ServerWord } from '../clients/transcription.js';

/** Words from the transcription client, moved by `shiftMs` (a chunk's place in the recording). */
export function toNewWords(words: readonly ServerWord[], shiftMs = 0): NewWord[] {
  return words.map((w) => ({ text: w.text, startMs: w.startMs + shiftMs, endMs: w.endMs + shiftMs, speaker: w.speaker }));
}

/** Distinct speakers in order of first appearance. */
export function speakersOf(words: readonly NewWord[]): string[] {
  const seen = new Set<string>();
  for (const w of words) if (w.speaker !== null) seen.add(w.speaker);
  return [...seen];
}

/** The stored flag for a transcription answer (the server's times, ours spread over its segments, or both). */
export function serverTiming(transcript: Pick<Transcript, 'timing'>): TranscriptTiming {
  return transcript.timing === 'server' ? 'measured' : transcript.timing;
}

/** The flag for a transcript parsed from a file: its own times, ours, or both. */
export function fileTiming(timing: 'file' | 'estimated' | 'mixed'): TranscriptTiming {
  return timing === 'file' ? 'measured' : timing;
}

/** Two parts of one transcript (chunks): the same flag, or 'mixed'. */
export function joinTiming(a: TranscriptTiming | undefined, b: TranscriptTiming): TranscriptTiming {
  return a === undefined || a === b ? b : 'mixed';
}
