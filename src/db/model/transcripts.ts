// Pure pieces of transcripts shared by every engine and by their callers (no SQL here).
import type { TranscriptWord } from '../queries/types.js';

/** A word to store: its text, its times when known, its speaker when known. */
export interface NewWord {
  text: string;
  startMs: number | null;
  endMs: number | null;
  speaker: string | null;
}

/** Words joined by single spaces; a new line, prefixed `Speaker: ` when there is one, where the speaker changes (no times: the LLM prompts' form). */
export function transcriptText(words: readonly Pick<TranscriptWord, 'text' | 'speaker'>[]): string {
  let out = '';
  let current: string | null | undefined;
  for (const w of words) {
    if (w.speaker !== current) {
      if (current !== undefined) out += '\n';
      if (w.speaker !== null) out += `${w.speaker}: `;
      current = w.speaker;
    } else {
      out += ' ';
    }
    out += w.text;
  }
  return out;
}
