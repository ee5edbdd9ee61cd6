import { cleanSpeaker } from './model.js';

// "Name: text" at the start of a cue or line (Zoom's WebVTT, SRT, plain transcripts). A name starts
// with a letter, holds at most six words and no sentence punctuation, so "Note: ..." is a speaker but
// "10:30", "https://x" and "So, to sum up: ..." are not.

const NAME = /^(\p{L}[\p{L}\p{M}\p{N} .'’\-()&@]{0,99}?)[ \t]*[:：](?:[ \t]+|$)/u;

export interface SpeakerSplit {
  speaker: string;
  rest: string;
}

export function splitSpeaker(text: string): SpeakerSplit | null {
  const m = NAME.exec(text);
  if (m === null) return null;
  const name = cleanSpeaker(m[1]!);
  if (name === null || name.split(' ').length > 6) return null;
  return { speaker: name, rest: text.slice(m[0].length) };
}

/** A name alone in parentheses, as Google Meet's WebVTT captions write the speaker: "(Zoë Martin)". */
const PAREN_NAME = /^\(([^()]{1,100})\)$/u;

export function parenSpeaker(line: string): string | null {
  const m = PAREN_NAME.exec(line);
  return m === null ? null : cleanSpeaker(m[1]!);
}
