// Pure pieces of transcripts shared by every engine and by their callers (no SQL here).
import { stamp } from '../../text/clock.js';
import type { TranscriptTiming } from '../schema/enums.js';
import { pagination } from '../queries/pagination.js';
import type { Page, TranscriptPage, TranscriptTurn, TranscriptWord } from '../queries/types.js';

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

export interface Turn {
  /** Position in the page of the turn's first and (exclusive) last word. */
  from: number;
  to: number;
  speaker: string | null;
  /** The first known start time in the turn. */
  start_ms: number | null;
}

/** Runs of words by the same speaker (a page's first run starts at the page, mid-turn or not). */
export function speakerTurns(words: readonly Pick<TranscriptWord, 'speaker' | 'start_ms'>[]): Turn[] {
  const turns: Turn[] = [];
  for (const [i, w] of words.entries()) {
    const last = turns.at(-1);
    if (last && last.speaker === w.speaker) {
      last.to = i + 1;
      last.start_ms ??= w.start_ms;
    } else turns.push({ from: i, to: i + 1, speaker: w.speaker, start_ms: w.start_ms });
  }
  return turns;
}

/** `[12:31] Alice: words of the turn` (no time when none is known, no name when the speaker is unknown). */
export function turnLine(turn: Turn, words: readonly Pick<TranscriptWord, 'text'>[]): string {
  let line = turn.start_ms === null ? '' : `[${stamp(turn.start_ms)}] `;
  if (turn.speaker !== null) line += `${turn.speaker}: `;
  for (let i = turn.from; i < turn.to; i++) line += i === turn.from ? words[i]!.text : ` ${words[i]!.text}`;
  return line;
}

/**
 * A page of the transcript from its words, as every engine answers it: `text` one line per speaker turn
 * with its start time; `words` one {index, text, start_ms, end_ms, speaker} per word, or with
 * `wordTimings: false` one [offset, start_ms] per line of text (what a model needs, at a twelfth of the tokens).
 */
export function transcriptPageOf(
  meetingId: string,
  words: TranscriptWord[],
  page: Page,
  transcript: { word_count: number; timing: TranscriptTiming },
  options: { wordTimings: boolean },
): TranscriptPage | TranscriptPage<TranscriptTurn> {
  const turns = speakerTurns(words);
  const text = turns.map((t) => turnLine(t, words)).join('\n');
  const paging = pagination(page, words.length, transcript.word_count);
  // Said only when the times are not measured: a key on every page would cost every page.
  const timing = transcript.timing === 'measured' ? {} : { timing: transcript.timing };
  if (options.wordTimings) return { meeting_id: meetingId, text, words, pagination: paging, ...timing };
  return { meeting_id: meetingId, text, words: turns.map((t): TranscriptTurn => [words[t.from]!.index, t.start_ms]), pagination: paging, ...timing };
}
