// Transcript text as people and prompts read it: pure, shared by the Store, the CLI and the worker.
import type { TranscriptWord } from '../queries/types.js';

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
