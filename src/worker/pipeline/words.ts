import type { NewWord } from '../../db/queries/transcripts.js';
import type { TranscriptWord } from '../clients/transcription.js';

/** Words from the transcription client, moved by `shiftMs` (a chunk's place in the recording). */
export function toNewWords(words: readonly TranscriptWord[], shiftMs = 0): NewWord[] {
  return words.map((w) => ({ text: w.text, startMs: w.startMs + shiftMs, endMs: w.endMs + shiftMs, speaker: w.speaker }));
}

/** Distinct speakers in order of first appearance. */
export function speakersOf(words: readonly NewWord[]): string[] {
  const seen = new Set<string>();
  for (const w of words) if (w.speaker !== null) seen.add(w.speaker);
  return [...seen];
}
